package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Resolves a pod's {@link GroupRef} to its group in either API: scheduler-plugins' PodGroups through one lister,
 * kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2} PodGroups through another. {@link #start} backs both with
 * informers ({@link PodGroupInformer}); {@link #shared} hands every plugin of one client the same resolver, so
 * Coscheduling and TopologyPlacement watch the groups once, and {@link #existing} finds it without starting one.
 * Tests pass their own listers. Thread-safe as its
 * listers are (the shared map is guarded by its class lock; listeners are a copy-on-write list); owns and closes the
 * informers it started.
 */
public final class GroupResolver implements PodGroupLister, AutoCloseable {

  // one resolver per client (a daemon has one); guarded by GroupResolver.class
  private static final Map<KubernetesClient, GroupResolver> SHARED = new IdentityHashMap<>();

  private final PodGroupLister schedulerPlugins;
  private final PodGroupLister workload;
  private final List<Consumer<GenericKubernetesResource>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<GenericKubernetesResource>> deleteListeners = new CopyOnWriteArrayList<>();

  /**
   * @param schedulerPlugins scheduler-plugins' PodGroups
   * @param workload the v1alpha2 PodGroups, by namespace and name
   */
  public GroupResolver(PodGroupLister schedulerPlugins, PodGroupLister workload) {
    this.schedulerPlugins = schedulerPlugins;
    this.workload = workload;
  }

  /** Starts an informer per API; every added or updated group of either is handed to {@code onChange}. */
  static GroupResolver start(KubernetesClient client, Consumer<GenericKubernetesResource> onChange) {
    return start(client, onChange, g -> { });
  }

  /** As {@link #start(KubernetesClient, Consumer)}; every deleted group of either is handed to {@code onDelete}. */
  static GroupResolver start(KubernetesClient client, Consumer<GenericKubernetesResource> onChange,
      Consumer<GenericKubernetesResource> onDelete) {
    PodGroupInformer x = new PodGroupInformer(client, PodGroupInformer.CONTEXT, PodGroup::from, onChange, onDelete);
    PodGroupInformer w = new PodGroupInformer(client, PodGroupInformer.context(GroupRef.Api.WORKLOAD),
        WorkloadPodGroups::from, onChange, onDelete);
    return new GroupResolver(x, w);
  }

  /**
   * The resolver of {@code client}'s groups, started on first use; {@code onChange} (null for none) is told of
   * every added or updated group of either API from then on.
   */
  public static GroupResolver shared(KubernetesClient client, Consumer<GenericKubernetesResource> onChange) {
    return shared(client, onChange, null);
  }

  /** As {@link #shared(KubernetesClient, Consumer)}; {@code onDelete} (null for none) is told of deleted groups. */
  public static GroupResolver shared(KubernetesClient client, Consumer<GenericKubernetesResource> onChange,
      Consumer<GenericKubernetesResource> onDelete) {
    GroupResolver r;
    synchronized (GroupResolver.class) {
      r = SHARED.get(client);
      if (r == null) {
        GroupResolver[] holder = new GroupResolver[1];
        Consumer<GenericKubernetesResource> fanOut = g -> {
          GroupResolver self = holder[0];
          if (self != null) {
            self.listeners.forEach(l -> l.accept(g));
          }
        };
        Consumer<GenericKubernetesResource> deleteFanOut = g -> {
          GroupResolver self = holder[0];
          if (self != null) {
            self.deleteListeners.forEach(l -> l.accept(g));
          }
        };
        r = start(client, fanOut, deleteFanOut);
        holder[0] = r;
        SHARED.put(client, r);
      }
    }
    r.listen(onChange, onDelete);
    return r;
  }

  /**
   * The resolver {@link #shared} already started for {@code client}, if any; starts nothing and adds no listener, so
   * a read-only reader (the scheduler's {@code /debug/simulate}) sees the groups the daemon's plugins watch without
   * watching them again. Empty when no plugin of {@code client} asked for the shared resolver.
   */
  public static Optional<GroupResolver> existing(KubernetesClient client) {
    synchronized (GroupResolver.class) {
      return Optional.ofNullable(SHARED.get(client));
    }
  }

  /**
   * Tells this resolver's listeners of an added or updated group, as its informers do: for an embedding that keeps
   * the groups itself (the replay), after its listers see the new version.
   */
  public void changed(GenericKubernetesResource group) {
    listeners.forEach(l -> l.accept(group));
  }

  /** Tells this resolver's listeners of a deleted group, as its informers do (see {@link #changed}). */
  public void deleted(GenericKubernetesResource group) {
    deleteListeners.forEach(l -> l.accept(group));
  }

  /** Adds listeners of added or updated groups and of deleted ones (either may be null). */
  void listen(Consumer<GenericKubernetesResource> onChange, Consumer<GenericKubernetesResource> onDelete) {
    if (onChange != null) {
      listeners.add(onChange);
    }
    if (onDelete != null) {
      deleteListeners.add(onDelete);
    }
  }

  @Override
  public Optional<PodGroup> get(String namespace, String name) {
    return schedulerPlugins.get(namespace, name);
  }

  @Override
  public Optional<PodGroup> get(GroupRef ref) {
    return switch (ref.api()) {
      case SCHEDULER_PLUGINS -> schedulerPlugins.get(ref.namespace(), ref.name());
      case WORKLOAD -> workload.get(ref.namespace(), ref.name());
    };
  }

  @Override
  public void close() throws Exception {
    for (PodGroupLister l : new PodGroupLister[] {schedulerPlugins, workload}) {
      if (l instanceof AutoCloseable c) {
        c.close();
      }
    }
  }
}
