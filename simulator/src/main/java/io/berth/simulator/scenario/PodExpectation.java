package io.berth.simulator.scenario;

import java.util.Map;
import java.util.Optional;

/**
 * What a scenario expects at its end: exactly {@code count} pods in {@code namespace} with these labels (all pods
 * when empty) are in {@code phase}, and, when {@code scheduled} is given, bound to a node or not. Immutable.
 */
public record PodExpectation(String namespace, Map<String, String> labels, Optional<String> phase,
    Optional<Boolean> scheduled, int count) {

  public PodExpectation {
    labels = Map.copyOf(labels);
  }

  /** {@code 3 pods in demo with app=web Running}. */
  public String describe() {
    return count + " pod" + (count == 1 ? "" : "s") + " in " + namespace
        + (labels.isEmpty() ? "" : " with " + labels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
            .sorted().reduce((a, b) -> a + "," + b).orElse(""))
        + phase.map(p -> " " + p).orElse("")
        + scheduled.map(s -> s ? " on a node" : " not on a node").orElse("");
  }
}
