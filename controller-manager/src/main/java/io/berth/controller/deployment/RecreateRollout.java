package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One step of a Recreate rollout (upstream recreate.go): scale every old ReplicaSet to 0; wait until no old
 * pod is running or terminating; only then create (if needed) and scale up the new ReplicaSet, so old and new
 * pods never run side by side.
 *
 * <p>Stateless and thread-safe. After applying a step the caller writes
 * {@link DeploymentProgress#syncRolloutStatus}.
 */
public final class RecreateRollout {

  private RecreateRollout() {
  }

  /** What this sync does. */
  public enum Kind {
    /** Scale the listed old ReplicaSets to 0, then write the rollout status. */
    SCALE_DOWN_OLD,
    /** Old pods still run or terminate: write the rollout status only. */
    WAIT_FOR_OLD_PODS,
    /**
     * No new ReplicaSet yet: create it ({@link NewReplicaSets#newReplicaSet}, which for Recreate already
     * sizes it at replicas), apply {@link #scaleUpNewReplicaSet} to the result, delete {@code toDelete}.
     */
    CREATE_NEW_REPLICA_SET,
    /** Apply the scale-up of the new ReplicaSet in {@code scales} (may be empty) and delete {@code toDelete}. */
    SCALE_UP_NEW
  }

  /**
   * A Recreate step.
   *
   * @param kind     what this sync does
   * @param scales   the writes, in order
   * @param toDelete old ReplicaSets over the history limit, only once the Deployment's current status says
   *                 the rollout is complete (upstream checks d.Status, i.e. the previous sync's result)
   */
  public record Step(Kind kind, List<ReplicaSetScale> scales, List<ReplicaSet> toDelete) {
    public Step {
      scales = List.copyOf(scales);
      toDelete = List.copyOf(toDelete);
    }
  }

  /**
   * The next step.
   *
   * @param newRS         the new ReplicaSet if it exists (never created before old pods are gone)
   * @param oldRSs        every old ReplicaSet
   * @param podsByRsUid   the Deployment's pods grouped by the uid of the ReplicaSet controlling them
   */
  public static Step plan(Deployment d, Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs,
              Map<String, List<Pod>> podsByRsUid) {
    List<ReplicaSetScale> scaleDown = new ArrayList<>();
    for (ReplicaSet rs : ReplicaSetUtil.filterActive(oldRSs)) {
      scaleDown.add(ReplicaSetScale.to(rs, 0));
    }
    if (!scaleDown.isEmpty()) {
      return new Step(Kind.SCALE_DOWN_OLD, scaleDown, List.of());
    }
    if (oldPodsRunning(newRS, oldRSs, podsByRsUid)) {
      return new Step(Kind.WAIT_FOR_OLD_PODS, List.of(), List.of());
    }
    List<ReplicaSet> toDelete = DeploymentProgress.deploymentComplete(d, currentStatus(d))
        ? HistoryCleanup.replicaSetsToDelete(d, oldRSs) : List.of();
    if (newRS.isEmpty()) {
      return new Step(Kind.CREATE_NEW_REPLICA_SET, List.of(), toDelete);
    }
    return new Step(Kind.SCALE_UP_NEW, scaleUpNewReplicaSet(d, newRS.get()).stream().toList(), toDelete);
  }

  /** The new ReplicaSet straight to replicas (empty when it already has that size). */
  public static Optional<ReplicaSetScale> scaleUpNewReplicaSet(Deployment d, ReplicaSet newRS) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    return ReplicaSetUtil.specReplicas(newRS) == replicas
        ? Optional.empty() : Optional.of(ReplicaSetScale.to(newRS, replicas));
  }

  /**
   * Whether old pods may still run (upstream oldPodsRunning): an old ReplicaSet still reports pods in
   * {@code status.replicas}, or a pod controlled by a ReplicaSet other than the new one is in a non-terminal
   * phase (Pending, Running, Unknown or absent; a terminating pod counts until it is Succeeded/Failed or
   * gone).
   */
  public static boolean oldPodsRunning(Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs,
                     Map<String, List<Pod>> podsByRsUid) {
    if (ReplicaSetUtil.actualReplicaCount(oldRSs) > 0) {
      return true;
    }
    String newUid = newRS.map(ReplicaSetUtil::uid).orElse(null);
    for (Map.Entry<String, List<Pod>> e : podsByRsUid.entrySet()) {
      if (newUid != null && newUid.equals(e.getKey())) {
        continue;
      }
      for (Pod pod : e.getValue()) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (!"Failed".equals(phase) && !"Succeeded".equals(phase)) {
          return true;
        }
      }
    }
    return false;
  }

  private static DeploymentStatus currentStatus(Deployment d) {
    return d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
  }
}
