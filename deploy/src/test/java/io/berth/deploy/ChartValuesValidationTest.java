package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Bad values fail the render (as they fail {@code helm install}) through values.schema.json, with a message that
 * names the offending value.
 */
class ChartValuesValidationTest {

  @Test
  void wrongTypeNamesTheValue() {
    assertThatThrownBy(() -> HelmRender.chart().set("scheduler.replicas", "abc").call())
        .hasMessageContaining("schema")
        .hasMessageContaining("scheduler/replicas");
  }

  @Test
  void unknownTopLevelKeyNamesTheKey() {
    assertThatThrownBy(() -> HelmRender.chart().values(DeployPaths.testValues("unknown-top-level-key.yaml")).call())
        .hasMessageContaining("schema")
        .hasMessageContaining("schedulr");
  }

  @Test
  void unknownNestedKeyNamesTheKey() {
    assertThatThrownBy(() -> HelmRender.chart().set("scheduler.replica", "3").call())
        .hasMessageContaining("schema")
        .hasMessageContaining("replica");
  }

  @Test
  void unknownPluginNameNamesTheField() {
    assertThatThrownBy(() -> HelmRender.chart().values(DeployPaths.testValues("unknown-plugin.yaml")).call())
        .hasMessageContaining("schema")
        .hasMessageContaining("scheduler/config/profiles/0/plugins/filter/enabled/0/name");
  }

  @Test
  void malformedPluginConfigNamesTheField() {
    assertThatThrownBy(() -> HelmRender.chart().values(DeployPaths.testValues("malformed-plugin-config.yaml"))
        .call())
        .hasMessageContaining("schema")
        .hasMessageContaining("scheduler/config/profiles/0/pluginConfig/0")
        .hasMessageContaining("arg");
  }

  @Test
  void unknownFeatureGateNamesTheValue() {
    assertThatThrownBy(() -> HelmRender.chart().set("scheduler.featureGates.NoSuchGate", "true").call())
        .hasMessageContaining("schema")
        .hasMessageContaining("featureGates")
        .hasMessageContaining("NoSuchGate");
  }

  @Test
  void percentageOfNodesToScoreAboveHundredNamesTheValue() {
    assertThatThrownBy(() -> HelmRender.chart().set("scheduler.config.percentageOfNodesToScore", "101").call())
        .hasMessageContaining("schema")
        .hasMessageContaining("percentageOfNodesToScore");
  }
}
