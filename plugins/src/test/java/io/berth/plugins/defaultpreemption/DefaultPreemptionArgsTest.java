package io.berth.plugins.defaultpreemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.testing.TestHandle;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DefaultPreemptionArgs defaulting and validation, as upstream's
 * {@code ValidateDefaultPreemptionArgs} and its test cases, plus the candidate-count arithmetic
 * ({@code calculateNumCandidates}).
 */
class DefaultPreemptionArgsTest {
  @Test
  void emptyArgsTakeUpstreamDefaults() {
    assertThat(DefaultPreemptionArgs.parse(Map.of()))
        .isEqualTo(new DefaultPreemptionArgs(10, 100));
  }

  @Test
  void parsesBothFieldsAndTypeMeta() {
    Map<String, Object> args = Map.of("apiVersion", "kubescheduler.config.k8s.io/v1",
        "kind", "DefaultPreemptionArgs", "minCandidateNodesPercentage", 50,
        "minCandidateNodesAbsolute", 500L);
    assertThat(DefaultPreemptionArgs.parse(args)).isEqualTo(new DefaultPreemptionArgs(50, 500));
  }

  @Test
  void zeroAbsoluteWithNonZeroPercentageIsValid() {
    assertThat(DefaultPreemptionArgs.parse(Map.of("minCandidateNodesAbsolute", 0)))
        .isEqualTo(new DefaultPreemptionArgs(10, 0));
  }

  @Test
  void percentageAboveHundredNamesTheField() {
    assertThatThrownBy(() -> DefaultPreemptionArgs.parse(
        Map.of("minCandidateNodesPercentage", 110)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minCandidateNodesPercentage: Invalid value: 110:"
            + " not in valid range [0, 100]");
  }

  @Test
  void negativeValuesAreBothReported() {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("minCandidateNodesPercentage", -1);
    args.put("minCandidateNodesAbsolute", -1);
    assertThatThrownBy(() -> DefaultPreemptionArgs.parse(args))
        .hasMessage("[minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100],"
            + " minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]");
  }

  @Test
  void bothZeroIsRejectedOnBothFields() {
    assertThatThrownBy(() -> DefaultPreemptionArgs.parse(
        Map.of("minCandidateNodesPercentage", 0, "minCandidateNodesAbsolute", 0)))
        .hasMessage("[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same"
            + " time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0:"
            + " cannot be zero at the same time as minCandidateNodesPercentage]");
  }

  @Test
  void wrongTypeAndUnknownFieldsAreNamed() {
    assertThatThrownBy(() -> DefaultPreemptionArgs.parse(
        Map.of("minCandidateNodesAbsolute", "ten")))
        .hasMessage("minCandidateNodesAbsolute: Invalid value: \"ten\": must be a 32-bit integer");
    assertThatThrownBy(() -> DefaultPreemptionArgs.parse(
        Map.of("minCandidateNodesAbsolute", 1L << 40)))
        .hasMessageStartingWith("minCandidateNodesAbsolute: Invalid value: 1099511627776");
    assertThatThrownBy(() -> DefaultPreemptionArgs.parse(Map.of("minCandidates", 1)))
        .hasMessage("unknown field \"minCandidates\"");
  }

  @Test
  void factoryRejectsInvalidArgs() {
    assertThatThrownBy(() -> DefaultPreemption.create(
        Map.of("minCandidateNodesPercentage", 101), new TestHandle()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minCandidateNodesPercentage");
  }

  private static DefaultPreemption plugin(int percentage, int absolute) {
    return DefaultPreemption.create(Map.of("minCandidateNodesPercentage", percentage,
        "minCandidateNodesAbsolute", absolute), new TestHandle(), n -> 0,
        PreemptionRuntime.CLOCK);
  }

  @Test
  void numCandidatesIsThePercentageAtLeastTheAbsoluteAtMostAllNodes() {
    // upstream TestNodesWherePreemptionMightHelp-style arithmetic: defaults 10% / 100
    assertThat(plugin(10, 100).calculateNumCandidates(10)).isEqualTo(10);
    assertThat(plugin(10, 100).calculateNumCandidates(5000)).isEqualTo(500);
    assertThat(plugin(10, 100).calculateNumCandidates(500)).isEqualTo(100);
    assertThat(plugin(40, 1).calculateNumCandidates(5)).isEqualTo(2);
    assertThat(plugin(100, 0).calculateNumCandidates(7)).isEqualTo(7);
    assertThat(plugin(10, 0).calculateNumCandidates(5)).isZero();
  }
}
