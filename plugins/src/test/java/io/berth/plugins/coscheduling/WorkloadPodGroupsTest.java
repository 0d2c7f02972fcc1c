package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.WorkloadFixtures.workloadGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading v1alpha2 PodGroups: policy, topology key and defaults, and errors naming the object and field. */
class WorkloadPodGroupsTest {

  @Test
  void gangPolicyBecomesMinMemberWithUpstreamsFiveMinuteTimeout() {
    PodGroup g = WorkloadPodGroups.from(workloadGroup("train", Map.of("gang", Map.of("minCount", 4)),
        "topology.kubernetes.io/zone"));
    assertThat(g.gang()).isTrue();
    assertThat(g.minMember()).isEqualTo(4);
    assertThat(g.scheduleTimeoutSeconds()).contains(300);
    assertThat(g.topologyKey()).contains("topology.kubernetes.io/zone");
    assertThat(g.api()).isEqualTo(GroupRef.Api.WORKLOAD);
    assertThat(g.minResources()).isEmpty();
    assertThat(g.ref()).isEqualTo(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "train"));
  }

  @Test
  void basicPolicyIsNoGang() {
    PodGroup g = WorkloadPodGroups.from(workloadGroup("web", Map.of("basic", Map.of()), null));
    assertThat(g.gang()).isFalse();
    assertThat(g.minMember()).isEqualTo(1);
    assertThat(g.topologyKey()).isEmpty();
  }

  @Test
  void badPoliciesAreNamedByField() {
    assertThatThrownBy(() -> WorkloadPodGroups.from(workloadGroup("both", Map.of("basic", Map.of(), "gang",
        Map.of("minCount", 2)), null))).hasMessage("PodGroup \"ns/both\": spec.schedulingPolicy: Invalid value: "
        + "exactly one of basic and gang must be set");
    assertThatThrownBy(() -> WorkloadPodGroups.from(workloadGroup("none", Map.of(), null)))
        .hasMessageContaining("spec.schedulingPolicy: Invalid value: exactly one");
    assertThatThrownBy(() -> WorkloadPodGroups.from(workloadGroup("zero", Map.of("gang", Map.of("minCount", 0)),
        null))).hasMessage("PodGroup \"ns/zero\": spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be "
        + "greater than or equal to 1");
    assertThatThrownBy(() -> WorkloadPodGroups.from(workloadGroup("half", Map.of("gang", Map.of("minCount", 1.5)),
        null))).hasMessageContaining("spec.schedulingPolicy.gang.minCount: Invalid value: 1.5");
  }

  @Test
  void badTopologyConstraintsAreNamedByField() {
    assertThatThrownBy(() -> WorkloadPodGroups.from(workloadGroup("key", Map.of("basic", Map.of()), "not a key!")))
        .hasMessageStartingWith("PodGroup \"ns/key\": spec.schedulingConstraints.topology[0].key: Invalid value: "
            + "\"not a key!\"");
    GenericKubernetesResource two = workloadGroup("two", Map.of("basic", Map.of()), "a");
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) two.getAdditionalProperties().get("spec");
    spec.put("schedulingConstraints", Map.of("topology", List.of(Map.of("key", "a"), Map.of("key", "b"))));
    assertThatThrownBy(() -> WorkloadPodGroups.from(two))
        .hasMessageContaining("spec.schedulingConstraints.topology: Too many: 2");
    spec.put("schedulingConstraints", Map.of("topology", List.of(Map.of())));
    assertThatThrownBy(() -> WorkloadPodGroups.from(two))
        .hasMessageContaining("spec.schedulingConstraints.topology[0].key: Required value");
  }

  @Test
  void schedulerPluginsPodGroupTakesItsTopologyKeyFromTheAnnotation() {
    GenericKubernetesResource pg = GangFixtures.podGroup("pg", 2);
    pg.getMetadata().setAnnotations(Map.of(PodGroup.TOPOLOGY_KEY_ANNOTATION, "example.com/rdma-zone"));
    PodGroup g = PodGroup.from(pg);
    assertThat(g.topologyKey()).contains("example.com/rdma-zone");
    assertThat(g.gang()).isTrue();
    pg.getMetadata().setAnnotations(Map.of(PodGroup.TOPOLOGY_KEY_ANNOTATION, "/bad"));
    assertThatThrownBy(() -> PodGroup.from(pg)).hasMessageContaining(
        "metadata.annotations[scheduling.x-k8s.io/topology-key]: Invalid value: \"/bad\"");
  }
}
