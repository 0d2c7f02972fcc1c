package io.berth.plugins.topologyplacement;

import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/** Zoned nodes, v1alpha2 PodGroups with a topology key and their members, for the TopologyPlacement tests. */
final class Zones {

  static final String ZONE = "topology.kubernetes.io/zone";

  private Zones() {
  }

  static Node node(String name, String zone, String cpu) {
    Map<String, Quantity> q = Map.of("cpu", new Quantity(cpu), "memory", new Quantity("64Gi"),
        "pods", new Quantity("110"));
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus()
        .withAllocatable(q).withCapacity(q).endStatus();
    if (zone != null) {
      b.editMetadata().addToLabels(ZONE, zone).endMetadata();
    }
    return b.build();
  }

  static NodeInfo info(String name, String zone, String cpu, Pod... pods) {
    return NodeInfo.of(node(name, zone, cpu), pods);
  }

  static Pod member(String name, String group, String cpu) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name)
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("pause").withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().withNewSchedulingGroup()
        .withPodGroupName(group).endSchedulingGroup().endSpec().build();
  }

  static Pod bound(Pod p, String node) {
    return new PodBuilder(p).editSpec().withNodeName(node).endSpec().build();
  }

  static GenericKubernetesResource gang(String name, int minCount, String key) {
    return new GenericKubernetesResourceBuilder().withApiVersion("scheduling.k8s.io/v1alpha2").withKind("PodGroup")
        .withNewMetadata().withNamespace("ns").withName(name).withCreationTimestamp("2026-01-01T00:00:00Z")
        .endMetadata().addToAdditionalProperties("spec", Map.of(
            "schedulingPolicy", Map.of("gang", Map.of("minCount", minCount)),
            "schedulingConstraints", Map.of("topology", List.of(Map.of("key", key))))).build();
  }
}
