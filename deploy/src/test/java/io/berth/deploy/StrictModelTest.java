package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

/** The strict parse that RenderedObjectsTest relies on rejects what fabric8 alone would accept. */
class StrictModelTest {
  private static final String DEPLOYMENT = """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: d
      spec:
        replicas: %s
        selector:
          matchLabels: {app: d}
        template:
          metadata:
            labels: {app: d}
          spec:
            containers:
              - name: c
                image: i
                %s
      """;

  @Test
  void acceptsAWellFormedDocument() {
    Deployment d = StrictModel.parse(Rendered.parse(DEPLOYMENT.formatted("2", "imagePullPolicy: Always"))
        .documents().get(0));

    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
  }

  @Test
  void rejectsAnUnknownFieldNamingIt() {
    assertThatThrownBy(() -> StrictModel.parse(Rendered.parse(DEPLOYMENT.formatted("2", "imagePullPolicyy: Always"))
        .documents().get(0)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("imagePullPolicyy");
  }

  @Test
  void rejectsAValueOfTheWrongType() {
    assertThatThrownBy(() -> StrictModel.parse(Rendered.parse(DEPLOYMENT.formatted("\"2\"", "tty: true"))
        .documents().get(0)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Deployment/d");
  }

  @Test
  void rejectsAKindWithoutModelClass() {
    assertThatThrownBy(() -> StrictModel.parse(Rendered.parse("apiVersion: v9\nkind: Nothing\nmetadata: {name: x}\n")
        .documents().get(0)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no fabric8 model class");
  }
}
