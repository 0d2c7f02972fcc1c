package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.component.ConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ControllerSelectionTest {

  private static final ControllerFactory NONE = context -> {
    throw new UnsupportedOperationException();
  };

  private static ControllerRegistry registry() {
    return new ControllerRegistry().register("replicaset", NONE).register("deployment", NONE)
        .register("garbagecollector", NONE);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "*                        | deployment,garbagecollector,replicaset",
      "*,-deployment            | garbagecollector,replicaset",
      "-deployment,*            | garbagecollector,replicaset",
      "replicaset               | replicaset",
      "replicaset,deployment    | deployment,replicaset",
      "replicaset,-replicaset   | replicaset",
      "-replicaset,replicaset,* | deployment,garbagecollector",
      "' * , -replicaset '      | deployment,garbagecollector",
      "-replicaset              | ''",
      "''                       | ''"})
  void enablesAsKubeControllerManagerDoes(String flag, String expected) {
    assertThat(String.join(",", ControllerSelection.parse(flag).enabled(registry()))).isEqualTo(expected);
  }

  @Test
  void unknownNamesAreAConfigurationErrorNamingTheFlagAndEachName() {
    assertThatThrownBy(() -> ControllerSelection.parse("nope,*,-ghost").enabled(registry()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--controllers")
        .hasMessageContaining("\"nope\"")
        .hasMessageContaining("\"-ghost\"")
        .hasMessageContaining("known controllers: deployment, garbagecollector, replicaset");
  }

  @Test
  void withNothingRegisteredOnlyTheStarIsValid() {
    assertThat(ControllerSelection.parse("*").enabled(new ControllerRegistry())).isEmpty();
    assertThatThrownBy(() -> ControllerSelection.parse("replicaset").enabled(new ControllerRegistry()))
        .isInstanceOf(ConfigurationException.class).hasMessageContaining("known controllers: none");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "*                        | deployment,replicaset",
      "*,podgroup               | deployment,podgroup,replicaset",
      "podgroup                 | podgroup",
      "-podgroup,*              | deployment,replicaset"})
  void disabledByDefaultControllersRunOnlyWhenNamed(String flag, String expected) {
    ControllerRegistry r = new ControllerRegistry().register("replicaset", NONE).register("deployment", NONE)
        .registerDisabledByDefault("podgroup", NONE);
    assertThat(String.join(",", ControllerSelection.parse(flag).enabled(r))).isEqualTo(expected);
    assertThat(r.disabledByDefault()).containsExactly("podgroup");
  }

  @Test
  void theBuiltInPodGroupControllerIsOffByDefault() {
    assertThat(ControllerSelection.parse("*").enabled(ControllerRegistry.builtIn())).doesNotContain("podgroup")
        .contains("deployment", "replicaset");
    assertThat(ControllerSelection.parse("*,podgroup").enabled(ControllerRegistry.builtIn())).contains("podgroup");
  }
}
