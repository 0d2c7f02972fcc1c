package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Resolves a pod's {@link GroupRef} to its group in either API: scheduler-plugins' PodGroups through one lister,
 * kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2} PodGroups through another. {@link #start} backs both with
 * informers ({@link PodGroupInformer}); tests pass their own listers. Thread-safe as its listers are; owns and closes
 * the informers it started.
 */
public final class GroupResolver implements PodGroupLister, AutoCloseable {

  private final PodGroupLister schedulerPlugins;
  private final PodGroupLister workload;

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
    PodGroupInformer x = new PodGroupInformer(client, onChange);
    PodGroupInformer w = new PodGroupInformer(client, PodGroupInformer.context(GroupRef.Api.WORKLOAD),
        WorkloadPodGroups::from, onChange);
    return new GroupResolver(x, w);
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
