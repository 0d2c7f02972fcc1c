package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Round-by-round ratios and their median, as the side-by-side table prints them. */
class RoundRatiosTest {

  @Test
  void pairsRoundsInOrderAndStopsAtTheShorterList() {
    List<Double> ratios = RoundRatios.of(List.of(300.0, 200.0, 90.0), List.of(200.0, 200.0), d -> d);
    assertThat(ratios).containsExactly(1.5, 1.0);
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertThat(RoundRatios.median(List.of(2.0, 1.0, 3.0))).isEqualTo(2.0);
    assertThat(RoundRatios.median(List.of(1.44, 1.01, 2.09, 2.34))).isCloseTo(1.765, within(1e-9));
    assertThat(RoundRatios.median(List.of())).isNaN();
  }

  @Test
  void describesEachRoundTheMedianAndHowManyReachTheTarget() {
    assertThat(RoundRatios.describe(List.of(1.40, 1.00, 2.10, 1.50)))
        .isEqualTo("Berth / kube-scheduler pods/s per round: 1.40×, 1.00×, 2.10×, 1.50×; median 1.45×, "
            + "2 of 4 rounds at 1.5× or more");
  }
}
