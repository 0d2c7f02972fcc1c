package io.berth.framework;

import java.util.List;
import java.util.Optional;

/**
 * What a preemption PostFilter plugin found in one cycle, left in the {@link CycleState} under
 * {@link #KEY} for the scheduler's explanations ({@code /debug/explain}): the candidate nodes with
 * their victim counts and the chosen node with its victims. Optional for plugins; writing it costs
 * nothing when nobody reads it. Immutable.
 *
 * @param candidates the candidate nodes found by the dry run
 * @param chosen the node the preemptor is nominated to, if one was chosen
 * @param victims the chosen node's victims as {@code namespace/name}
 */
public record PreemptionReport(List<Candidate> candidates, Optional<String> chosen,
    List<String> victims) implements StateData {
  /** The CycleState key. */
  public static final String KEY = "berth.io/preemption-report";

  public PreemptionReport {
    candidates = List.copyOf(candidates);
    victims = List.copyOf(victims);
  }

  /**
   * One candidate node.
   *
   * @param node the node
   * @param victims how many pods would be evicted there
   * @param pdbViolations how many of those would violate a PodDisruptionBudget
   */
  public record Candidate(String node, int victims, int pdbViolations) {
  }

  @Override
  public StateData copy() {
    return this;
  }
}
