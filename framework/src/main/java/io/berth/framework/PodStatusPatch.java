package io.berth.framework;

import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Optional;

/**
 * A change to a pod's status the scheduler writes: one condition merged by its type, and the
 * nominated node set or cleared. Either part may be absent (left as it is). Immutable.
 *
 * @param condition the condition to merge, replacing the one of the same type; empty leaves the
 *     conditions alone
 * @param nominatedNodeName the new {@code status.nominatedNodeName}, {@code ""} clearing it; empty
 *     leaves it alone
 */
public record PodStatusPatch(Optional<PodCondition> condition, Optional<String> nominatedNodeName) {
  public PodStatusPatch {
    if (condition.isEmpty() && nominatedNodeName.isEmpty()) {
      throw new IllegalArgumentException("a status patch changes a condition or the nomination");
    }
  }

  /** Merges {@code condition} only. */
  public static PodStatusPatch condition(PodCondition condition) {
    return new PodStatusPatch(Optional.of(condition), Optional.empty());
  }

  /** Sets {@code status.nominatedNodeName} only ({@code ""} clears it). */
  public static PodStatusPatch nominatedNodeName(String nodeName) {
    return new PodStatusPatch(Optional.empty(), Optional.of(nodeName == null ? "" : nodeName));
  }
}
