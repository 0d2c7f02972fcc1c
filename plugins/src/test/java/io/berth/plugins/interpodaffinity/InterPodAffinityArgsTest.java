package io.berth.plugins.interpodaffinity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.testing.TestHandle;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing and validation of InterPodAffinityArgs, as upstream's ValidateInterPodAffinityArgs. */
class InterPodAffinityArgsTest {
  @Test
  void emptyArgsTakeTheDefaults() {
    assertThat(InterPodAffinityArgs.parse(Map.of()))
        .isEqualTo(new InterPodAffinityArgs(1, false));
    assertThat(InterPodAffinityArgs.parse(null)).isEqualTo(InterPodAffinityArgs.DEFAULTS);
  }

  @Test
  void parsesBothFieldsAndIgnoresTypeMeta() {
    Map<String, Object> args = Map.of("apiVersion", "kubescheduler.config.k8s.io/v1",
        "kind", "InterPodAffinityArgs", "hardPodAffinityWeight", 7,
        "ignorePreferredTermsOfExistingPods", true);

    assertThat(InterPodAffinityArgs.parse(args)).isEqualTo(new InterPodAffinityArgs(7, true));
  }

  @Test
  void acceptsTheBoundsOfTheWeightRange() {
    assertThat(InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", 0))
        .hardPodAffinityWeight()).isZero();
    assertThat(InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", 100L))
        .hardPodAffinityWeight()).isEqualTo(100);
  }

  @Test
  void nullFieldsTakeTheDefaults() {
    Map<String, Object> args = new HashMap<>();
    args.put("hardPodAffinityWeight", null);
    args.put("ignorePreferredTermsOfExistingPods", null);

    assertThat(InterPodAffinityArgs.parse(args)).isEqualTo(InterPodAffinityArgs.DEFAULTS);
  }

  @Test
  void rejectsWeightAboveTheRangeNamingTheField() {
    assertThatThrownBy(() -> InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", 101)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]");
  }

  @Test
  void rejectsNegativeWeightNamingTheField() {
    assertThatThrownBy(() -> InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", -1)))
        .hasMessage("hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]");
    assertThatThrownBy(() -> new InterPodAffinityArgs(-3, false))
        .hasMessage("hardPodAffinityWeight: Invalid value: -3: not in valid range [0, 100]");
  }

  @Test
  void rejectsHugeIntegersAsOutOfRange() {
    BigInteger huge = BigInteger.TWO.pow(80);

    assertThatThrownBy(() -> InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", huge)))
        .hasMessageStartingWith("hardPodAffinityWeight: Invalid value: " + huge);
  }

  @Test
  void rejectsNonIntegerWeightNamingTheField() {
    assertThatThrownBy(() -> InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", "5")))
        .hasMessage("hardPodAffinityWeight: Invalid value: \"5\": must be an integer");
    assertThatThrownBy(() -> InterPodAffinityArgs.parse(Map.of("hardPodAffinityWeight", 1.5)))
        .hasMessage("hardPodAffinityWeight: Invalid value: 1.5: must be an integer");
  }

  @Test
  void rejectsNonBooleanIgnoreFlagNamingTheField() {
    assertThatThrownBy(() -> InterPodAffinityArgs.parse(
        Map.of("ignorePreferredTermsOfExistingPods", "yes")))
        .hasMessage(
            "ignorePreferredTermsOfExistingPods: Invalid value: \"yes\": must be a boolean");
  }

  @Test
  void rejectsUnknownFields() {
    assertThatThrownBy(() -> InterPodAffinityArgs.parse(Map.of("hardPodAffinityWieght", 3)))
        .hasMessage("unknown field \"hardPodAffinityWieght\"");
  }

  @Test
  void factoryValidatesArgsAndExposesThem() {
    TestHandle handle = new TestHandle();

    assertThatThrownBy(() -> InterPodAffinity.create(Map.of("hardPodAffinityWeight", 200), handle))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hardPodAffinityWeight");
    InterPodAffinity plugin = (InterPodAffinity) InterPodAffinity.create(
        Map.of("hardPodAffinityWeight", 4), handle);
    assertThat(plugin.args().hardPodAffinityWeight()).isEqualTo(4);
    assertThat(plugin.name()).isEqualTo("InterPodAffinity").isEqualTo(InterPodAffinity.NAME);
  }
}
