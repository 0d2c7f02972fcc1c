package io.berth.controller.deployment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plan of one reconcileOldReplicaSets pass of a rolling update (see
 * {@link RollingUpdateMath#reconcileOldReplicaSets}): first the clean-up of unhealthy replicas, then the
 * availability-bounded scale-down. Apply {@link #steps()} in order; a ReplicaSet may appear twice, the second
 * step planned against the first's result (see {@link ReplicaSetScale#onto}).
 *
 * <p>Immutable value.
 *
 * @param maxScaledDown {@code allPods - minAvailable - newRSUnavailable}; nothing is planned when it is <= 0
 * @param cleanup       unhealthy-replica clean-up steps, oldest ReplicaSet first
 * @param scaleDown     availability-bounded steps, oldest ReplicaSet first
 * @param aborted       the clean-up met a ReplicaSet with more available than desired replicas; upstream stops
 *                      there and reports "not scaled" (steps already in {@code cleanup} were written)
 */
public record OldReplicaSetsScaleDown(int maxScaledDown, List<ReplicaSetScale> cleanup,
                    List<ReplicaSetScale> scaleDown, boolean aborted) {

  public OldReplicaSetsScaleDown {
    cleanup = List.copyOf(cleanup);
    scaleDown = List.copyOf(scaleDown);
  }

  static OldReplicaSetsScaleDown none(int maxScaledDown) {
    return new OldReplicaSetsScaleDown(maxScaledDown, List.of(), List.of(), false);
  }

  /** Clean-up steps followed by scale-down steps: the order of the writes. */
  public List<ReplicaSetScale> steps() {
    List<ReplicaSetScale> all = new ArrayList<>(cleanup);
    all.addAll(scaleDown);
    return all;
  }

  public int cleanupCount() {
    return cleanup.stream().mapToInt(s -> s.oldReplicas() - s.newReplicas()).sum();
  }

  public int scaleDownCount() {
    return scaleDown.stream().mapToInt(s -> s.oldReplicas() - s.newReplicas()).sum();
  }

  /**
   * Whether upstream would report "scaled down" (and so return to syncRolloutStatus right away): something
   * was removed and the clean-up did not abort.
   */
  public boolean scaledDown() {
    return !aborted && cleanupCount() + scaleDownCount() > 0;
  }

  /** The final size per ReplicaSet name after all steps, for ReplicaSets the plan touches. */
  public Map<String, Integer> finalSizes() {
    Map<String, Integer> sizes = new LinkedHashMap<>();
    for (ReplicaSetScale s : steps()) {
      sizes.put(s.name(), s.newReplicas());
    }
    return sizes;
  }
}
