package io.berth.scheduler.cache;

import io.fabric8.kubernetes.api.model.Pod;

/** How the cache names pods: keyed by UID, described as namespace/name. Stateless. */
final class PodKeys {
  private PodKeys() {}

  /** The pod's cache key, its UID; throws for a pod without one. */
  static String key(Pod pod) {
    String uid = pod.getMetadata() == null ? null : pod.getMetadata().getUid();
    if (uid == null || uid.isEmpty()) {
      throw new IllegalArgumentException("cannot get cache key for pod with empty UID: "
          + describe(pod));
    }
    return uid;
  }

  static void requireNodeName(Pod pod) {
    if (nodeName(pod).isEmpty()) {
      throw new IllegalArgumentException("pod " + describe(pod) + " has no spec.nodeName");
    }
  }

  static String nodeName(Pod pod) {
    String name = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return name == null ? "" : name;
  }

  static String describe(Pod pod) {
    if (pod.getMetadata() == null) {
      return "<no metadata>";
    }
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
