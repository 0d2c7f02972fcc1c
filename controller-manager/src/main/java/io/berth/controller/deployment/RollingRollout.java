package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One step of a RollingUpdate rollout once the new ReplicaSet exists (upstream rolling.go rolloutRolling):
 * scale the new ReplicaSet if it can move; otherwise scale old ReplicaSets down; otherwise, if the
 * Deployment's status says the rollout is complete, trim the revision history.
 *
 * <p>Stateless and thread-safe. The caller creates the new ReplicaSet first when
 * {@link ReplicaSetClassifier#findNewReplicaSet} finds none ({@link NewReplicaSets#newReplicaSet}) and passes
 * the created object here within the same sync, as upstream does; after applying a step it writes
 * {@link DeploymentProgress#syncRolloutStatus}.
 */
public final class RollingRollout {

  private RollingRollout() {
  }

  /** What this sync does. */
  public enum Kind {
    /** Scale the new ReplicaSet (up within maxSurge, or down to replicas). */
    SCALE_NEW,
    /** Scale old ReplicaSets down: unhealthy-replica clean-up, then availability-bounded scale-down. */
    SCALE_DOWN_OLD,
    /** Nothing to scale; delete {@code toDelete} (possibly none). */
    STEADY
  }

  /**
   * A rolling step.
   *
   * @param kind     what this sync does
   * @param scales   the writes, in order (for STEADY: clean-up steps of an aborted old scale-down, which
   *                 upstream had already written before aborting; usually none)
   * @param toDelete old ReplicaSets over the history limit (STEADY only, and only when the current status
   *                 says the rollout is complete)
   */
  public record Step(Kind kind, List<ReplicaSetScale> scales, List<ReplicaSet> toDelete) {
    public Step {
      scales = List.copyOf(scales);
      toDelete = List.copyOf(toDelete);
    }
  }

  /**
   * @param newRS  the new ReplicaSet (existing or just created)
   * @param oldRSs every old ReplicaSet
   */
  public static Step plan(Deployment d, ReplicaSet newRS, List<ReplicaSet> oldRSs) {
    List<ReplicaSet> allRSs = new ArrayList<>(oldRSs);
    allRSs.add(newRS);
    Optional<ReplicaSetScale> newScale = RollingUpdateMath.reconcileNewReplicaSet(allRSs, newRS, d);
    if (newScale.isPresent()) {
      return new Step(Kind.SCALE_NEW, List.of(newScale.get()), List.of());
    }
    OldReplicaSetsScaleDown down = RollingUpdateMath.reconcileOldReplicaSets(allRSs,
        ReplicaSetUtil.filterActive(oldRSs), newRS, d);
    if (down.scaledDown()) {
      return new Step(Kind.SCALE_DOWN_OLD, down.steps(), List.of());
    }
    DeploymentStatus status = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
    List<ReplicaSet> toDelete = DeploymentProgress.deploymentComplete(d, status)
        ? HistoryCleanup.replicaSetsToDelete(d, oldRSs) : List.of();
    return new Step(Kind.STEADY, down.aborted() ? down.cleanup() : List.of(), toDelete);
  }
}
