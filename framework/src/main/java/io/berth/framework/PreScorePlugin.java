package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * PreScore: runs once per cycle over the feasible nodes before Score. Skip skips this plugin's
 * Score for the cycle; anything else but Success fails the cycle with an error. Runs on the
 * scheduling thread.
 */
public interface PreScorePlugin extends Plugin {
  Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes);
}
