package io.berth.scheduler.apidispatcher;

import io.fabric8.kubernetes.api.model.Pod;

/** How the pod calls name their object. Stateless. */
final class PodCalls {
  private PodCalls() {}

  /** The pod's uid, or namespace/name for a pod that has none (built in memory). */
  static String uidOf(Pod pod) {
    String uid = pod.getMetadata().getUid();
    return uid != null && !uid.isEmpty() ? uid
        : pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
