package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * Score: ranks a feasible node. Called on many threads at once (one node each): must be
 * thread-safe. Scores must end up within [{@link #MIN_NODE_SCORE}, {@link #MAX_NODE_SCORE}] after
 * the plugin's {@link ScoreExtensions#normalizeScore}; the runtime multiplies them by the plugin's
 * weight. A failure is reported by throwing {@link StatusException}, which fails the cycle.
 */
public interface ScorePlugin extends Plugin {
  long MIN_NODE_SCORE = 0;
  long MAX_NODE_SCORE = 100;

  long score(CycleState state, Pod pod, NodeInfo nodeInfo);

  default Optional<ScoreExtensions> scoreExtensions() {
    return Optional.empty();
  }

  /** NormalizeScore: rewrites all nodes' scores after the Score pass. */
  interface ScoreExtensions {
    Status normalizeScore(CycleState state, Pod pod, List<NodeScore> scores);
  }
}
