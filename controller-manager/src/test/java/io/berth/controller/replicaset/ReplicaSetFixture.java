package io.berth.controller.replicaset;

import io.berth.controller.GroupVersionKind;
import io.berth.controller.OwnerReferences;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.Map;

/** ReplicaSets for unit tests: selector and template labels {@code app=<name>}, one nginx container. */
final class ReplicaSetFixture {

  private ReplicaSetFixture() {
  }

  static ReplicaSetBuilder replicaSet(String name, Integer replicas) {
    return new ReplicaSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withUid("uid-" + name)
        .withGeneration(1L)
        .withResourceVersion("1")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build())
        .withNewTemplate()
        .withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
        .withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer().endSpec()
        .endTemplate()
        .endSpec();
  }

  /** A ReplicaSet whose selector (an expression) does not match its template's labels. */
  static ReplicaSet mismatched(String name) {
    return replicaSet(name, 2).editSpec()
        .withSelector(new LabelSelectorBuilder().withMatchExpressions(new LabelSelectorRequirementBuilder()
            .withKey("app").withOperator("In").withValues("something-else").build()).build())
        .endSpec().build();
  }

  static ReplicaSet ownedBy(ReplicaSet rs, HasMetadata owner) {
    return new ReplicaSetBuilder(rs).editMetadata()
        .withOwnerReferences(OwnerReferences.newControllerRef(owner, GroupVersionKind.DEPLOYMENT))
        .endMetadata().build();
  }
}
