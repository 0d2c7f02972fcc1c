package io.berth.plugins.defaultpreemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Status;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The no-candidate message and the error aggregate, worded as upstream's FitError and errors. */
class FitErrorMessageTest {
  @Test
  void countsReasonsAndSortsTheCountedStringsAsUpstream() {
    Map<String, Status> statuses = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      statuses.put("b" + i, Status.unschedulable("B reason"));
    }
    statuses.put("a0", Status.unschedulable("A reason", "Insufficient cpu"));
    statuses.put("a1", Status.unschedulable("A reason"));
    // "10 B reason" sorts before "2 A reason" as strings, as Go's sort.Strings does
    assertThat(FitErrorMessage.of(15, statuses, Status.unresolvable("Not helpful")))
        .isEqualTo("0/15 nodes are available: 1 Insufficient cpu, 10 B reason, 2 A reason,"
            + " 3 Not helpful.");
  }

  @Test
  void statusesWithoutReasonsLeaveOnlyTheHeader() {
    assertThat(FitErrorMessage.of(1, Map.of("n", Status.unschedulable()),
        Status.unresolvable("Not helpful"))).isEqualTo("0/1 nodes are available:");
  }

  @Test
  void aggregateIsOneMessageOrABracketedDistinctList() {
    assertThat(FitErrorMessage.aggregate(List.of(Status.error("x")))).isEqualTo("x");
    assertThat(FitErrorMessage.aggregate(List.of(Status.error("x"), Status.error("x"))))
        .isEqualTo("x");
    assertThat(FitErrorMessage.aggregate(List.of(Status.error("x"), Status.error("y"),
        Status.error("x")))).isEqualTo("[x, y]");
  }
}
