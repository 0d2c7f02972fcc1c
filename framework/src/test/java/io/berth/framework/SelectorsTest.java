package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectorsTest {
  @Test
  void labelSelectorsFollowUpstreamNilAndEmptyRules() {
    assertThat(LabelSelectors.compile(null, "f").matches(Map.of("a", "b"))).isFalse();
    assertThat(LabelSelectors.compile(new LabelSelectorBuilder().build(), "f").matches(Map.of()))
        .isTrue();
    LabelMatcher m = LabelSelectors.compile(new LabelSelectorBuilder().addToMatchLabels("app", "web")
        .addNewMatchExpression().withKey("tier").withOperator("NotIn").withValues("db").endMatchExpression()
        .build(), "f");
    assertThat(m.matches(Map.of("app", "web"))).isTrue();
    assertThat(m.matches(Map.of("app", "web", "tier", "db"))).isFalse();
  }

  @Test
  void invalidOperatorNamesTheField() {
    assertThatThrownBy(() -> LabelSelectors.compile(new LabelSelectorBuilder().addNewMatchExpression()
        .withKey("k").withOperator("Near").endMatchExpression().build(), "spec.x.labelSelector"))
        .hasMessageContaining("spec.x.labelSelector.matchExpressions[0].operator");
  }

  private static Node node(String name, Map<String, String> labels) {
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build();
  }

  @Test
  void nodeSelectorTermsAreOredAndRequirementsAnded() {
    var selector = new NodeSelectorBuilder()
        .addToNodeSelectorTerms(new NodeSelectorTermBuilder().addToMatchExpressions(
            new NodeSelectorRequirementBuilder().withKey("gpu").withOperator("Gt").withValues("2").build(),
            new NodeSelectorRequirementBuilder().withKey("zone").withOperator("In").withValues("a").build())
            .build())
        .addToNodeSelectorTerms(new NodeSelectorTermBuilder().addToMatchFields(
            new NodeSelectorRequirementBuilder().withKey("metadata.name").withOperator("In")
                .withValues("special").build()).build())
        .build();
    NodeSelectorMatcher m = NodeSelectorMatcher.compile(selector, "f");
    assertThat(m.matches(node("n1", Map.of("gpu", "4", "zone", "a")))).isTrue();
    assertThat(m.matches(node("n2", Map.of("gpu", "2", "zone", "a")))).isFalse();
    assertThat(m.matches(node("special", Map.of()))).isTrue();
    assertThat(NodeSelectorMatcher.compile(new NodeSelectorBuilder()
        .addToNodeSelectorTerms(new NodeSelectorTermBuilder().build()).build(), "f")
        .matches(node("n", Map.of()))).isFalse();
  }

  @Test
  void tolerationsMatchAsUpstream() {
    var taint = new TaintBuilder().withKey("dedicated").withValue("gpu").withEffect("NoSchedule").build();
    assertThat(Taints.tolerates(new TolerationBuilder().withKey("dedicated").withValue("gpu")
        .withEffect("NoSchedule").build(), taint)).isTrue();
    assertThat(Taints.tolerates(new TolerationBuilder().withOperator("Exists").build(), taint)).isTrue();
    assertThat(Taints.tolerates(new TolerationBuilder().withKey("dedicated").withOperator("Exists")
        .withEffect("NoExecute").build(), taint)).isFalse();
    assertThat(Taints.tolerates(new TolerationBuilder().withKey("dedicated").withValue("cpu").build(),
        taint)).isFalse();
    assertThat(Taints.describe(taint)).isEqualTo("dedicated=gpu:NoSchedule");
  }
}
