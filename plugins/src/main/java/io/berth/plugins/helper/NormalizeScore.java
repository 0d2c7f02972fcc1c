package io.berth.plugins.helper;

import io.berth.framework.NodeScore;
import io.berth.framework.Status;
import java.util.List;

/**
 * The normalization most score plugins share, as kube-scheduler's
 * {@code helper.DefaultNormalizeScore}: scales raw scores from {@code [0, max(scores)]} to
 * {@code [0, maxPriority]}, optionally reversed so that the lowest raw score ranks best.
 * Stateless and thread-safe; called from a plugin's NormalizeScore on the scheduling thread, which
 * owns the score list it rewrites in place.
 */
public final class NormalizeScore {
  private NormalizeScore() {}

  /**
   * Rewrites {@code scores} in place. Raw scores are assumed non-negative. When every raw score is
   * 0 the list is left alone, except that a reversed normalization gives every node
   * {@code maxPriority} (no node is worse than another). Integer division truncates, as upstream.
   *
   * @return always {@link Status#SUCCESS}, so a plugin can return the call directly
   */
  public static Status defaultNormalizeScore(long maxPriority, boolean reverse,
      List<NodeScore> scores) {
    long maxCount = 0;
    for (NodeScore s : scores) {
      maxCount = Math.max(maxCount, s.score());
    }
    if (maxCount == 0) {
      if (reverse) {
        for (NodeScore s : scores) {
          s.setScore(maxPriority);
        }
      }
      return Status.SUCCESS;
    }
    for (NodeScore s : scores) {
      long scaled = maxPriority * s.score() / maxCount;
      s.setScore(reverse ? maxPriority - scaled : scaled);
    }
    return Status.SUCCESS;
  }
}
