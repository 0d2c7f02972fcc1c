package io.berth.simulator.replay;

import io.berth.plugins.capacityscheduling.CapacityScheduling;
import io.berth.plugins.capacityscheduling.ElasticQuota;
import io.berth.plugins.coscheduling.GroupResolver;
import io.berth.plugins.coscheduling.PodGroup;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.berth.plugins.coscheduling.WorkloadPodGroups;
import io.berth.scheduler.record.RecordingWorkload;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The replay's gang and quota objects, as recorded: scheduler-plugins' {@code scheduling.x-k8s.io/v1alpha1}
 * PodGroups and ElasticQuotas and kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2} PodGroups. In a daemon the
 * plugins watch these through informers of their own; in the replay {@link #apply} stores each recorded version
 * and tells the plugins at once, on the replay thread, as an informer event would: Coscheduling and
 * TopologyPlacement read the groups through {@link #resolver()} (a new or changed group activates its pending
 * members), CapacityScheduling plugins are handed each quota. Each version is parsed once, when applied; a
 * malformed one is reported (by the lister's {@link IllegalArgumentException}) as the daemon reports it.
 *
 * <p>Thread-safe: the group maps are guarded by this (the replay thread writes; the scheduling and binding threads
 * read through the resolver); the quota plugins are a copy-on-write list.
 */
final class ReplayGroups {
  static final String WORKLOAD_API = RecordingWorkload.SCHEDULING_K8S_IO_V1ALPHA2;

  /** One version of a group, parsed: the group, or why it is malformed. */
  private record Parsed(PodGroup group, String error) {}

  // guarded by this; namespace/name -> the group as last applied
  private final Map<String, Parsed> pluginGroups = new HashMap<>();
  // guarded by this
  private final Map<String, Parsed> workloadGroups = new HashMap<>();
  private final GroupResolver resolver = new GroupResolver(lister(pluginGroups), lister(workloadGroups));
  private final List<CapacityScheduling> quotaPlugins = new CopyOnWriteArrayList<>();

  /** Whether this holds objects of {@code apiVersion} and {@code kind}. */
  static boolean handles(String apiVersion, String kind) {
    return (PodGroup.API_VERSION.equals(apiVersion) && PodGroup.KIND.equals(kind))
        || (WORKLOAD_API.equals(apiVersion) && PodGroup.KIND.equals(kind))
        || ((ElasticQuota.GROUP + "/" + ElasticQuota.VERSION).equals(apiVersion) && ElasticQuota.KIND.equals(kind));
  }

  /** The groups of both APIs, for Coscheduling and TopologyPlacement. */
  GroupResolver resolver() {
    return resolver;
  }

  /** Hands every quota applied from now on to {@code plugin}. */
  void addQuotaPlugin(CapacityScheduling plugin) {
    quotaPlugins.add(plugin);
  }

  /** Applies one recorded version ({@code deleted}: its deletion) and tells the plugins. */
  void apply(String apiVersion, String kind, GenericKubernetesResource obj, boolean deleted) {
    if (ElasticQuota.KIND.equals(kind)) {
      for (CapacityScheduling p : quotaPlugins) {
        if (deleted) {
          p.quotaDeleted(obj);
        } else {
          p.quotaChanged(obj);
        }
      }
      return;
    }
    boolean workload = WORKLOAD_API.equals(apiVersion);
    String key = obj.getMetadata().getNamespace() + "/" + obj.getMetadata().getName();
    synchronized (this) {
      Map<String, Parsed> groups = workload ? workloadGroups : pluginGroups;
      if (deleted) {
        groups.remove(key);
      } else {
        groups.put(key, parse(workload ? WorkloadPodGroups::from : PodGroup::from, obj));
      }
    }
    if (deleted) {
      resolver.deleted(obj);
    } else {
      resolver.changed(obj);
    }
  }

  private static Parsed parse(Function<GenericKubernetesResource, PodGroup> parser, GenericKubernetesResource r) {
    try {
      return new Parsed(parser.apply(r), null);
    } catch (IllegalArgumentException malformed) {
      return new Parsed(null, malformed.getMessage());
    }
  }

  private PodGroupLister lister(Map<String, Parsed> groups) {
    return (namespace, name) -> {
      Parsed p;
      synchronized (this) {
        p = groups.get(namespace + "/" + name);
      }
      if (p == null) {
        return Optional.empty();
      }
      if (p.error() != null) {
        throw new IllegalArgumentException(p.error());
      }
      return Optional.of(p.group());
    };
  }
}
