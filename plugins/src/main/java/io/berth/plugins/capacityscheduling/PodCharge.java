package io.berth.plugins.capacityscheduling;

import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * What one pod takes from its namespace's quota: its requests (see {@link Amounts#requestsOf}), its priority and
 * whether the pod itself is labelled preemptible. Immutable.
 *
 * @param uid the pod's UID, the key of the charge
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param priority the pod's priority
 * @param requests the pod's requests by resource name
 * @param labelledPreemptible whether the pod has {@value ElasticQuota#PREEMPTIBLE_LABEL}{@code =true}
 */
record PodCharge(String uid, String namespace, String name, int priority, Map<String, Long> requests,
    boolean labelledPreemptible) {

  PodCharge {
    requests = Map.copyOf(requests);
  }

  /** The charge of {@code pod}; throws {@link IllegalArgumentException} naming a bad quantity. */
  static PodCharge of(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    boolean preemptible = labels != null && "true".equals(labels.get(ElasticQuota.PREEMPTIBLE_LABEL));
    return new PodCharge(pod.getMetadata().getUid(), pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
        PrioritySort.podPriority(pod), Amounts.requestsOf(pod), preemptible);
  }

  /** Whether {@code pod} is labelled preemptible (its namespace's quota may make it so too). */
  static boolean labelledPreemptible(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels != null && "true".equals(labels.get(ElasticQuota.PREEMPTIBLE_LABEL));
  }
}
