package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeploymentValidationTest {

  private static Deployment valid() {
    return Fixtures.rolling(3, "25%", "25%");
  }

  private static Arguments row(String name, UnaryOperator<DeploymentBuilder> change, String expectedMessage) {
    return Arguments.of(name, change, expectedMessage);
  }

  static Stream<Arguments> problems() {
    return Stream.of(
        row("missing selector", b -> b.editSpec().withSelector(null).endSpec(),
            "spec.selector: Required value"),
        row("everything selector", b -> b.editSpec().withNewSelector().endSelector().endSpec(),
            "spec.selector: Invalid value: {}: empty selector is invalid for deployment"),
        row("selector does not match the template labels",
            b -> b.editSpec().withNewSelector().addToMatchLabels("app", "bar").endSelector().endSpec(),
            "spec.template.metadata.labels: Invalid value: {\"app\":\"foo\"}: `selector` does not match "
                + "template `labels`"),
        row("In without values", b -> b.editSpec().withSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("app").withOperator("In").endMatchExpression().build())
                .endSpec(),
            "spec.selector.matchExpressions[0].values: Required value"),
        row("Exists with values", b -> b.editSpec().withSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("app").withOperator("Exists").withValues("x")
                .endMatchExpression().build()).endSpec(),
            "spec.selector.matchExpressions[0].values: Forbidden"),
        row("unknown operator", b -> b.editSpec().withSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("app").withOperator("Near").withValues("x")
                .endMatchExpression().build()).endSpec(),
            "spec.selector.matchExpressions[0].operator: Invalid value: \"Near\""),
        row("bad label key", b -> b.editSpec().withNewSelector().addToMatchLabels("-app", "foo")
                .endSelector().endSpec(),
            "spec.selector.matchLabels: Invalid value: \"-app\""),
        row("bad label value", b -> b.editSpec().withNewSelector().addToMatchLabels("app", "foo bar")
                .endSelector().endSpec(),
            "spec.selector.matchLabels: Invalid value: \"foo bar\""),
        row("unparsable maxSurge", b -> b.editSpec().editStrategy().editRollingUpdate()
                .withMaxSurge(new IntOrString("abc%")).endRollingUpdate().endStrategy().endSpec(),
            "spec.strategy.rollingUpdate.maxSurge: invalid value \"abc%\""),
        row("maxUnavailable string without percent", b -> b.editSpec().editStrategy().editRollingUpdate()
                .withMaxUnavailable(new IntOrString("3")).endRollingUpdate().endStrategy().endSpec(),
            "spec.strategy.rollingUpdate.maxUnavailable: invalid value \"3\": string is not a percentage"),
        row("negative maxSurge", b -> b.editSpec().editStrategy().editRollingUpdate()
                .withMaxSurge(new IntOrString(-1)).endRollingUpdate().endStrategy().endSpec(),
            "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"),
        row("maxUnavailable above 100%", b -> b.editSpec().editStrategy().editRollingUpdate()
                .withMaxUnavailable(new IntOrString("150%")).endRollingUpdate().endStrategy()
                .endSpec(),
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\": must not be greater "
                + "than 100%"),
        row("both zero", b -> b.editSpec().editStrategy().withNewRollingUpdate()
                .withMaxSurge(new IntOrString("0%")).withMaxUnavailable(new IntOrString(0))
                .endRollingUpdate().endStrategy().endSpec(),
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` "
                + "is 0"),
        row("rollingUpdate with Recreate", b -> b.editSpec().editStrategy().withType("Recreate").endStrategy()
                .endSpec(),
            "spec.strategy.rollingUpdate: Forbidden"),
        row("unknown strategy", b -> b.editSpec().withNewStrategy().withType("BlueGreen").endStrategy()
                .endSpec(),
            "spec.strategy.type: Unsupported value: \"BlueGreen\""),
        row("negative replicas", b -> b.editSpec().withReplicas(-1).endSpec(),
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
        row("deadline not above minReadySeconds", b -> b.editSpec().withMinReadySeconds(30)
                .withProgressDeadlineSeconds(30).endSpec(),
            "spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds"),
        row("negative history limit", b -> b.editSpec().withRevisionHistoryLimit(-2).endSpec(),
            "spec.revisionHistoryLimit: Invalid value: -2"),
        row("missing template", b -> b.editSpec().withTemplate(null).endSpec(),
            "spec.template: Required value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void problems(String name, UnaryOperator<DeploymentBuilder> change, String expectedMessage) {
    Deployment d = change.apply(new DeploymentBuilder(valid())).build();
    List<String> problems = DeploymentValidation.validate(d);
    assertThat(problems).anySatisfy(p -> assertThat(p).startsWith(expectedMessage));
    assertThat(problems).allSatisfy(p -> assertThat(p).startsWith("spec"));
  }

  @Test
  void validDeploymentHasNoProblems() {
    assertThat(DeploymentValidation.validate(valid())).isEmpty();
    Deployment withExpressions = new DeploymentBuilder(valid()).editSpec().withSelector(new LabelSelectorBuilder()
        .addNewMatchExpression().withKey("app").withOperator("In").withValues("foo", "bar")
        .endMatchExpression()
        .addNewMatchExpression().withKey("tier").withOperator("DoesNotExist").endMatchExpression()
        .build()).endSpec().build();
    assertThat(DeploymentValidation.validate(withExpressions)).isEmpty();
  }

  @Test
  void selectsEverythingOnlyForAPresentEmptySelector() {
    assertThat(DeploymentValidation.selectsEverything(valid())).isFalse();
    assertThat(DeploymentValidation.selectsEverything(new DeploymentBuilder(valid()).editSpec().withNewSelector()
        .withMatchLabels(Map.of()).endSelector().endSpec().build())).isTrue();
    assertThat(DeploymentValidation.selectsEverything(new DeploymentBuilder(valid()).editSpec().withSelector(null)
        .endSpec().build())).isFalse();
  }

  @Test
  void severalProblemsAreAllReported() {
    Deployment d = new DeploymentBuilder(valid()).editSpec().withReplicas(-1).editStrategy().editRollingUpdate()
        .withMaxSurge(new IntOrString("x%")).endRollingUpdate().endStrategy().endSpec().build();
    assertThat(DeploymentValidation.validate(d)).hasSize(2);
  }
}
