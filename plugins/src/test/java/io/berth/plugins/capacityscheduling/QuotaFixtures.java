package io.berth.plugins.capacityscheduling;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.Map;

/** Quotas, pods and charges for the quota tests. */
final class QuotaFixtures {
  private QuotaFixtures() {}

  /** A cpu-only quota in {@code ns}: min and max in cores (max null: none). */
  static ElasticQuota cpuQuota(String ns, long minCores, Long maxCores) {
    Map<String, Long> max = new HashMap<>();
    if (maxCores != null) {
      max.put("cpu", maxCores * 1000);
    }
    return new ElasticQuota(ns, "quota-" + ns, Map.of("cpu", minCores * 1000), max, false, Map.of());
  }

  static PodCharge charge(String ns, String name, long cpuMilli, int priority, boolean preemptible) {
    return new PodCharge("uid-" + ns + "-" + name, ns, name, priority, Map.of("cpu", cpuMilli, "pods", 1L),
        preemptible);
  }

  static Pod pod(String ns, String name, String cpu, int priority, boolean preemptible) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name)
        .withUid("uid-" + ns + "-" + name).endMetadata().withNewSpec().withPriority(priority).addNewContainer()
        .withName("c").withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer()
        .endSpec();
    if (preemptible) {
      b.editMetadata().addToLabels(ElasticQuota.PREEMPTIBLE_LABEL, "true").endMetadata();
    }
    return b.build();
  }
}
