package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TaintsTest {
  @Test
  void wellFormedTaintsAndTolerationsPass() {
    assertThat(Taints.validateTaints(List.of(taint("a", "NoSchedule"), taint("b", "NoExecute"),
        taint("c", "PreferNoSchedule")))).isEmpty();
    assertThat(Taints.validateTaints(null)).isEmpty();
    assertThat(Taints.validateTolerations(List.of(tol("a", "Equal", "v", "NoSchedule"),
        tol("a", null, "v", null), tol(null, "Exists", null, null), tol("b", "Exists", "", ""))))
        .isEmpty();
  }

  @Test
  void taintErrorsNameTheField() {
    assertThat(Taints.validateTaints(List.of(taint("a", "NoSchedule"), taint("b", "Maybe"))))
        .get().asString().startsWith("spec.taints[1].effect: Unsupported value: \"Maybe\"");
    assertThat(Taints.validateTaints(List.of(taint("a", null))))
        .get().asString().startsWith("spec.taints[0].effect: Unsupported value: \"\"");
    assertThat(Taints.validateTaints(List.of(taint(null, "NoSchedule"))))
        .contains("spec.taints[0].key: Required value");
  }

  @Test
  void tolerationErrorsNameTheField() {
    assertThat(Taints.validateTolerations(List.of(tol("a", "Equal", "v", null),
        tol("a", "Near", "v", null)))).get().asString()
        .startsWith("spec.tolerations[1].operator: Unsupported value: \"Near\"");
    assertThat(Taints.validateTolerations(List.of(tol("a", "Exists", "v", null)))).get().asString()
        .startsWith("spec.tolerations[0].operator: Invalid value: \"v\": value must be empty");
    assertThat(Taints.validateTolerations(List.of(tol("", "Equal", "v", null)))).get().asString()
        .startsWith("spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be"
            + " Exists when `key` is empty");
    assertThat(Taints.validateTolerations(List.of(tol("a", "Exists", null, "Later"))))
        .get().asString().startsWith("spec.tolerations[0].effect: Unsupported value: \"Later\"");
  }

  @Test
  void aPodWithAMalformedTolerationReportsItAsItsParseError() {
    PodInfo pi = PodInfo.of(new PodBuilder().withNewMetadata().withName("p").withNamespace("ns")
        .endMetadata().withNewSpec().withTolerations(tol("a", "Near", "v", null)).endSpec().build());
    assertThat(pi.parseError()).get().asString().startsWith("spec.tolerations[0].operator");
    PodInfo ok = PodInfo.of(new PodBuilder().withNewMetadata().withName("p").withNamespace("ns")
        .endMetadata().withNewSpec().withTolerations(tol("a", "Exists", null, null)).endSpec()
        .build());
    assertThat(ok.parseError()).isEqualTo(Optional.empty());
  }

  private static Taint taint(String key, String effect) {
    return new TaintBuilder().withKey(key).withValue("v").withEffect(effect).build();
  }

  private static Toleration tol(String key, String op, String value, String effect) {
    return new TolerationBuilder().withKey(key).withOperator(op).withValue(value)
        .withEffect(effect).build();
  }
}
