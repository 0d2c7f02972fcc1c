package io.berth.plugins.interpodaffinity;

import io.berth.framework.StateData;
import java.util.Map;

/**
 * What PreScore computes for Score: the topology scores (topology key → value → summed weight).
 * Immutable after construction, hence {@link #copy()} returns itself.
 */
final class PreScoreState implements StateData {
  static final String KEY = "PreScore" + InterPodAffinity.NAME;

  // immutable after construction
  private final Map<String, Map<String, Long>> topologyScore;

  PreScoreState(Map<String, Map<String, Long>> topologyScore) {
    this.topologyScore = topologyScore;
  }

  /** The sum of the scores of every domain the node belongs to. */
  long score(Map<String, String> nodeLabels) {
    long score = 0;
    for (Map.Entry<String, Map<String, Long>> e : topologyScore.entrySet()) {
      String value = nodeLabels.get(e.getKey());
      if (value != null) {
        score += e.getValue().getOrDefault(value, 0L);
      }
    }
    return score;
  }

  boolean isEmpty() {
    return topologyScore.isEmpty();
  }

  @Override
  public PreScoreState copy() {
    return this;
  }
}
