package io.berth.scheduler.explain;

import io.berth.scheduler.explain.Attempt.Outcome;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Hand-built attempts for the store and renderer tests. */
final class Attempts {
  private Attempts() {}

  /** An unschedulable attempt listing {@code rejectedNodes} nodes rejected by NodeResourcesFit. */
  static Attempt unschedulable(String name, int attempt, int rejectedNodes) {
    List<NodeVerdict> rejected = new ArrayList<>();
    for (int i = 0; i < rejectedNodes; i++) {
      rejected.add(new NodeVerdict("node-" + i, false, "NodeResourcesFit", "Unschedulable",
          "Insufficient cpu", Optional.of("needs " + (i + 1) + "00m cpu more"), (i + 1) / 10.0));
    }
    FilterTable filter = new FilterTable(List.of("TaintToleration", "NodeResourcesFit"),
        rejectedNodes, List.of(), rejected, Optional.empty());
    return new Attempt("ns", name, "uid-" + name, "default-scheduler",
        Instant.parse("2026-12-01T12:00:00Z").plusSeconds(attempt), attempt, Outcome.UNSCHEDULABLE,
        "0/" + rejectedNodes + " nodes are available", List.of(), filter, List.of(),
        ScoreTable.EMPTY, Optional.empty(), Optional.empty(), List.of(), Optional.empty(),
        List.of(), List.of(), List.of(), List.of());
  }
}
