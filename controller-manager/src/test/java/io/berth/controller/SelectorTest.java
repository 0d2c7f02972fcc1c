package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectorTest {

  private static LabelSelector expression(String key, String op, String... values) {
    return new LabelSelectorBuilder().addNewMatchExpression().withKey(key).withOperator(op)
        .withValues(List.of(values)).endMatchExpression().build();
  }

  @Test
  void aMissingSelectorSelectsNothingAndAnEmptyOneEverything() throws Exception {
    assertThat(Selector.fromLabelSelector(null).matches(Map.of("a", "b"))).isFalse();
    Selector empty = Selector.fromLabelSelector(new LabelSelector());
    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.matches(Map.of())).isTrue();
  }

  @Test
  void matchLabelsAndExpressionsMustAllHold() throws Exception {
    LabelSelector ls = new LabelSelectorBuilder().withMatchLabels(Map.of("app", "web"))
        .addNewMatchExpression().withKey("tier").withOperator("In").withValues("a", "b").endMatchExpression()
        .addNewMatchExpression().withKey("canary").withOperator("DoesNotExist").endMatchExpression()
        .addNewMatchExpression().withKey("env").withOperator("NotIn").withValues("prod").endMatchExpression()
        .addNewMatchExpression().withKey("team").withOperator("Exists").endMatchExpression()
        .build();
    Selector s = Selector.fromLabelSelector(ls);
    assertThat(s.matches(Map.of("app", "web", "tier", "a", "team", "x"))).isTrue();
    assertThat(s.matches(Map.of("app", "web", "tier", "a", "team", "x", "env", "dev"))).isTrue();
    assertThat(s.matches(Map.of("app", "web", "tier", "c", "team", "x"))).isFalse();
    assertThat(s.matches(Map.of("app", "web", "tier", "a", "team", "x", "canary", "1"))).isFalse();
    assertThat(s.matches(Map.of("app", "web", "tier", "a", "team", "x", "env", "prod"))).isFalse();
    assertThat(s.matches(Map.of("app", "web", "tier", "a"))).isFalse();
    assertThat(s.matches(null)).isFalse();
    assertThat(s.toString()).isEqualTo("app=web,tier in (a,b),!canary,env notin (prod),team");
  }

  @Test
  void badSelectorsNameTheFieldThatIsWrong() {
    assertThatThrownBy(() -> Selector.fromLabelSelector(expression("app", "Near", "x")))
        .isInstanceOf(Selector.InvalidSelectorException.class)
        .hasMessageStartingWith("matchExpressions[0].operator: Unsupported value: \"Near\"");
    assertThatThrownBy(() -> Selector.fromLabelSelector(expression("app", "In")))
        .hasMessageStartingWith("matchExpressions[0].values: Required value");
    assertThatThrownBy(() -> Selector.fromLabelSelector(expression("app", "Exists", "x")))
        .hasMessageStartingWith("matchExpressions[0].values: Forbidden");
    assertThatThrownBy(() -> Selector.fromLabelSelector(expression("-bad-", "Exists")))
        .hasMessageStartingWith("matchExpressions[0].key: Invalid value: \"-bad-\"");
    assertThatThrownBy(() -> Selector.fromLabelSelector(
        new LabelSelectorBuilder().withMatchLabels(Map.of("app", "a b")).build()))
        .hasMessageStartingWith("matchLabels[app]: Invalid value: \"a b\"");
    assertThatThrownBy(() -> Selector.fromLabelSelector(expression("Example.com/x", "Exists")))
        .hasMessageContaining("prefix part");
  }

  @Test
  void aSetSelectorMatchesSupersets() {
    Selector s = Selector.fromSet(Map.of("app", "web", "v", "1"));
    assertThat(s.matches(Map.of("app", "web", "v", "1", "extra", "x"))).isTrue();
    assertThat(s.matches(Map.of("app", "web"))).isFalse();
    assertThat(Selector.fromSet(Map.of()).isEmpty()).isTrue();
  }

  @Test
  void theRequiredLabelIsTheFirstEqualityOrInRequirementAndNoneWithoutOne() throws Exception {
    assertThat(Selector.fromSet(Map.of("tier", "front", "app", "web")).requiredLabel())
        .contains(new Selector.RequiredLabel("app", java.util.Set.of("web")));
    LabelSelector inAfterExists = new LabelSelectorBuilder()
        .addNewMatchExpression().withKey("track").withOperator("Exists").endMatchExpression()
        .addNewMatchExpression().withKey("app").withOperator("In").withValues("a", "b").endMatchExpression()
        .build();
    assertThat(Selector.fromLabelSelector(inAfterExists).requiredLabel())
        .contains(new Selector.RequiredLabel("app", java.util.Set.of("a", "b")));
    LabelSelector onlyNegative = new LabelSelectorBuilder()
        .addNewMatchExpression().withKey("app").withOperator("NotIn").withValues("x").endMatchExpression()
        .addNewMatchExpression().withKey("legacy").withOperator("DoesNotExist").endMatchExpression()
        .build();
    assertThat(Selector.fromLabelSelector(onlyNegative).requiredLabel()).isEmpty();
    assertThat(Selector.EVERYTHING.requiredLabel()).isEmpty();
    assertThat(Selector.NOTHING.requiredLabel()).isEmpty();
  }
}
