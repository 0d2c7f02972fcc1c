package io.berth.plugins.capacityscheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading an ElasticQuota: units, the preemptible label, and errors naming the object and the field. */
class ElasticQuotaTest {
  private static GenericKubernetesResource eq(Map<String, Object> spec, Map<String, String> labels) {
    return new GenericKubernetesResourceBuilder().withApiVersion("scheduling.x-k8s.io/v1alpha1")
        .withKind("ElasticQuota").withNewMetadata().withNamespace("team").withName("q").withLabels(labels)
        .endMetadata().addToAdditionalProperties("spec", spec).build();
  }

  @Test
  void readsMinMaxInSchedulerUnitsAndThePreemptibleLabel() {
    ElasticQuota q = ElasticQuota.from(eq(Map.of("min", Map.of("cpu", "1500m", "memory", "1Gi"),
        "max", Map.of("cpu", 4)), Map.of(ElasticQuota.PREEMPTIBLE_LABEL, "true")));
    assertThat(q.min()).containsEntry("cpu", 1500L).containsEntry("memory", 1L << 30);
    assertThat(q.max()).containsEntry("cpu", 4000L);
    assertThat(q.preemptible()).isTrue();
    assertThat(q.governs("memory")).isTrue();
    assertThat(q.governs("nvidia.com/gpu")).isFalse();
  }

  @Test
  void badInputNamesTheQuotaAndTheField() {
    assertThatThrownBy(() -> ElasticQuota.from(eq(Map.of("min", Map.of("cpu", "lots")), Map.of())))
        .hasMessageStartingWith("ElasticQuota \"team/q\": spec.min[cpu]: quantity");
    assertThatThrownBy(() -> ElasticQuota.from(eq(Map.of("min", Map.of("cpu", "4"), "max", Map.of("cpu", "2")),
        Map.of()))).hasMessage("ElasticQuota \"team/q\": spec.min[cpu]: Invalid value: 4: must be less than or"
            + " equal to spec.max[cpu] 2");
    assertThatThrownBy(() -> ElasticQuota.from(eq(Map.of("max", "8"), Map.of())))
        .hasMessage("ElasticQuota \"team/q\": spec.max: Invalid value: must be a map of quantities");
  }
}
