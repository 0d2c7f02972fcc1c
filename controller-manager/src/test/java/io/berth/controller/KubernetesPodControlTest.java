package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubernetesPodControlTest {

  private static final ReplicaSet RS = new ReplicaSetBuilder().withNewMetadata().withName("web")
      .withNamespace("default").withUid("rs-uid").endMetadata().build();

  private static PodTemplateSpec template() {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(Map.of("app", "web"))
        .withAnnotations(Map.of("note", "x"))
        .withFinalizers("example.com/keep")
        .withName("ignored")
        .endMetadata()
        .withNewSpec()
        .addNewContainer().withName("c").withImage("nginx").endContainer()
        .withTerminationGracePeriodSeconds(5L)
        .endSpec()
        .build();
  }

  @Test
  void aPodFromTheTemplateCopiesMetadataAndSpecAndIsControlledByTheOwner() {
    PodTemplateSpec template = template();
    OwnerReference ref = OwnerReferences.newControllerRef(RS, GroupVersionKind.REPLICA_SET);
    Pod pod = KubernetesPodControl.podFromTemplate(template, RS, ref);
    assertThat(pod.getMetadata().getGenerateName()).isEqualTo("web-");
    assertThat(pod.getMetadata().getName()).isNull();
    assertThat(pod.getMetadata().getLabels()).isEqualTo(Map.of("app", "web"));
    assertThat(pod.getMetadata().getAnnotations()).isEqualTo(Map.of("note", "x"));
    assertThat(pod.getMetadata().getFinalizers()).containsExactly("example.com/keep");
    assertThat(pod.getMetadata().getOwnerReferences()).containsExactly(ref);
    assertThat(ref.getApiVersion()).isEqualTo("apps/v1");
    assertThat(ref.getController()).isTrue();
    assertThat(ref.getBlockOwnerDeletion()).isTrue();
    assertThat(pod.getSpec()).isEqualTo(template.getSpec());
    pod.getMetadata().getLabels().put("mutated", "yes");
    assertThat(template.getMetadata().getLabels()).doesNotContainKey("mutated");
  }

  @Test
  void aVeryLongOwnerNameIsUsedWithoutTheDash() {
    String name = "a".repeat(253);
    ReplicaSet rs = new ReplicaSetBuilder(RS).editMetadata().withName(name).endMetadata().build();
    Pod pod = KubernetesPodControl.podFromTemplate(template(), rs, null);
    assertThat(pod.getMetadata().getGenerateName()).isEqualTo(name);
    assertThat(pod.getMetadata().getOwnerReferences()).isEmpty();
  }

  @Test
  void anIncompleteControllerRefIsRefused() {
    OwnerReference good = OwnerReferences.newControllerRef(RS, GroupVersionKind.REPLICA_SET);
    KubernetesPodControl.validateControllerRef(good);
    assertThatThrownBy(() -> KubernetesPodControl.validateControllerRef(null)).hasMessage("controllerRef is nil");
    for (var broken : List.of(
        new OwnerReferenceBuilder(good).withApiVersion("").build(),
        new OwnerReferenceBuilder(good).withKind(null).build(),
        new OwnerReferenceBuilder(good).withController(false).build(),
        new OwnerReferenceBuilder(good).withBlockOwnerDeletion(null).build())) {
      assertThatThrownBy(() -> KubernetesPodControl.validateControllerRef(broken))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
