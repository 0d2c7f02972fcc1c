package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** kube-scheduler 1.36 PodGroups ({@code scheduling.k8s.io/v1alpha2}) and their members for the tests. */
final class WorkloadFixtures {

  private WorkloadFixtures() {
  }

  /** A v1alpha2 PodGroup in {@code ns} with {@code policy} and, unless null, a topology key. */
  static GenericKubernetesResource workloadGroup(String name, Map<String, Object> policy, String topologyKey) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("podGroupTemplateRef", Map.of("workload", Map.of("workloadName", "job", "podGroupTemplateName", "w")));
    spec.put("schedulingPolicy", policy);
    if (topologyKey != null) {
      spec.put("schedulingConstraints", Map.of("topology", List.of(Map.of("key", topologyKey))));
    }
    return new GenericKubernetesResourceBuilder().withApiVersion(GroupRef.Api.WORKLOAD.apiVersion())
        .withKind(PodGroup.KIND).withNewMetadata().withNamespace("ns").withName(name)
        .withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata().addToAdditionalProperties("spec", spec).build();
  }

  static GenericKubernetesResource gang(String name, int minCount) {
    return workloadGroup(name, Map.of("gang", Map.of("minCount", minCount)), null);
  }

  static GenericKubernetesResource basic(String name) {
    return workloadGroup(name, Map.of("basic", Map.of()), null);
  }

  /** A pod joined to v1alpha2 PodGroup {@code group} through {@code spec.schedulingGroup.podGroupName}. */
  static Pod workloadMember(String name, String group, String cpu) {
    return GangFixtures.member(name, null).editSpec().editFirstContainer().withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().withNewSchedulingGroup()
        .withPodGroupName(group).endSchedulingGroup().endSpec().build();
  }
}
