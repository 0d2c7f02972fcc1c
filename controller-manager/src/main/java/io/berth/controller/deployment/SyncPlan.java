package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which path one sync of a Deployment takes, in upstream syncDeployment's order, and the plan of the
 * "sync" path shared by paused Deployments and scaling events.
 *
 * <p>Stateless and thread-safe. The caller still writes the paused/resumed condition
 * ({@link DeploymentProgress#checkPausedConditions}) before following any branch but the first two.
 */
public final class SyncPlan {

  private SyncPlan() {
  }

  /** The branch of one sync, in the order upstream tests them. */
  public enum Branch {
    /**
     * Empty selector: record a Warning {@value DeploymentValidation#SELECTING_ALL_REASON} event, raise
     * observedGeneration to generation if lower, and stop.
     */
    SELECTING_ALL,
    /** Being deleted: recompute and write the status only (syncStatusOnly); no scaling. */
    STATUS_ONLY,
    /** Paused: scale for a changed replicas count, clean up history, write status ({@link #sync}). */
    PAUSED_SYNC,
    /**
     * A deprecated rollback request ({@value Revisions#DEPRECATED_ROLLBACK_TO_ANNOTATION}) is present.
     * Berth does not implement the deprecated extensions/v1beta1 rollbackTo API; see {@link #rollbackTo}.
     */
    ROLLBACK,
    /** replicas changed mid-rollout: proportional scaling ({@link #sync}), no template rollout. */
    SCALING_SYNC,
    /** Recreate rollout step ({@link RecreateRollout}). */
    RECREATE,
    /** RollingUpdate rollout step ({@link RollingRollout}). */
    ROLLING_UPDATE,
    /** Neither Recreate nor RollingUpdate: upstream fails the sync with "unexpected deployment strategy type". */
    UNSUPPORTED_STRATEGY
  }

  /**
   * The branch for a Deployment and the ReplicaSets it owns (after adoption/orphaning).
   *
   * @param rsList the ReplicaSets the Deployment controls
   */
  public static Branch decide(Deployment d, List<ReplicaSet> rsList) {
    if (DeploymentValidation.selectsEverything(d)) {
      return Branch.SELECTING_ALL;
    }
    if (ReplicaSetUtil.isBeingDeleted(d)) {
      return Branch.STATUS_ONLY;
    }
    if (Boolean.TRUE.equals(d.getSpec().getPaused())) {
      return Branch.PAUSED_SYNC;
    }
    if (rollbackTo(d).isPresent()) {
      return Branch.ROLLBACK;
    }
    Optional<ReplicaSet> newRS = ReplicaSetClassifier.findNewReplicaSet(d, rsList);
    List<ReplicaSet> allRSs = new ArrayList<>(ReplicaSetClassifier.findOldReplicaSets(d, rsList).all());
    newRS.ifPresent(allRSs::add);
    if (ProportionalScaling.isScalingEvent(d, allRSs)) {
      return Branch.SCALING_SYNC;
    }
    if (RollingUpdateMath.isRecreate(d)) {
      return Branch.RECREATE;
    }
    if (RollingUpdateMath.isRollingUpdate(d)) {
      return Branch.ROLLING_UPDATE;
    }
    return Branch.UNSUPPORTED_STRATEGY;
  }

  /**
   * The raw value of a deprecated rollback request, when present. Upstream would roll the template back to
   * that revision (0 = the previous one) and then remove the annotation; Berth leaves it to the controller
   * to report the request as unsupported.
   */
  public static Optional<String> rollbackTo(Deployment d) {
    Map<String, String> annotations = d.getMetadata() == null ? null : d.getMetadata().getAnnotations();
    return Optional.ofNullable(annotations == null ? null
        : annotations.get(Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION));
  }

  /**
   * The writes of the sync path (upstream sync()).
   *
   * @param scales   proportional scaling steps ({@link ProportionalScaling#scale}), to apply in order
   * @param toDelete old ReplicaSets to delete for the history limit (only when paused and no rollback is
   *                 requested, as upstream)
   */
  public record ScalingSync(List<ReplicaSetScale> scales, List<ReplicaSet> toDelete) {
    public ScalingSync {
      scales = List.copyOf(scales);
      toDelete = List.copyOf(toDelete);
    }
  }

  /**
   * The sync path for a paused Deployment or a scaling event; afterwards the caller writes
   * {@link DeploymentStatusCalculator#syncDeploymentStatus} over the updated ReplicaSets.
   */
  public static ScalingSync sync(Deployment d, Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs) {
    List<ReplicaSetScale> scales = ProportionalScaling.scale(d, newRS, oldRSs);
    boolean paused = Boolean.TRUE.equals(d.getSpec().getPaused());
    List<ReplicaSet> toDelete = paused && rollbackTo(d).isEmpty()
        ? HistoryCleanup.replicaSetsToDelete(d, oldRSs) : List.of();
    return new ScalingSync(scales, toDelete);
  }
}
