package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Rollout progress and the progress deadline: when a rollout is complete, progressing, or stuck past
 * {@code spec.progressDeadlineSeconds}, the Progressing condition that reports it, and when to look again
 * (upstream progress.go syncRolloutStatus / requeueStuckDeployment, sync.go checkPausedConditions, and
 * deploymentutil.DeploymentComplete / DeploymentProgressing / DeploymentTimedOut / HasProgressDeadline).
 *
 * <p>"Now" is always passed in, so tests move time instead of sleeping. Stateless and thread-safe; never
 * mutates its arguments.
 */
public final class DeploymentProgress {

  private DeploymentProgress() {
  }

  /** A deadline is set and is not the "never" value {@link Integer#MAX_VALUE}. */
  public static boolean hasProgressDeadline(Deployment d) {
    Integer deadline = d.getSpec() == null ? null : d.getSpec().getProgressDeadlineSeconds();
    return deadline != null && deadline != Integer.MAX_VALUE;
  }

  /**
   * Complete: every desired replica is updated, there are no other replicas, all are available, and the
   * status reflects the latest spec (observedGeneration >= generation).
   */
  public static boolean deploymentComplete(Deployment d, DeploymentStatus newStatus) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    return count(newStatus.getUpdatedReplicas()) == replicas
        && count(newStatus.getReplicas()) == replicas
        && count(newStatus.getAvailableReplicas()) == replicas
        && observedGeneration(newStatus) >= ReplicaSetUtil.generation(d);
  }

  /**
   * Progressing: compared with the Deployment's current status, more updated replicas, fewer old replicas
   * ({@code replicas - updatedReplicas}), or more ready or available replicas.
   */
  public static boolean deploymentProgressing(Deployment d, DeploymentStatus newStatus) {
    DeploymentStatus old = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
    int oldOld = count(old.getReplicas()) - count(old.getUpdatedReplicas());
    int newOld = count(newStatus.getReplicas()) - count(newStatus.getUpdatedReplicas());
    return count(newStatus.getUpdatedReplicas()) > count(old.getUpdatedReplicas())
        || newOld < oldOld
        || count(newStatus.getReadyReplicas()) > count(old.getReadyReplicas())
        || count(newStatus.getAvailableReplicas()) > count(old.getAvailableReplicas());
  }

  /**
   * Timed out: the Progressing condition of {@code newStatus} already says so, or its lastUpdateTime plus
   * the deadline is strictly before {@code now}. Never without a deadline or a Progressing condition, and
   * never while that condition reports a completed rollout (a new rollout whose condition has not caught up
   * yet must not be failed on the old completion time).
   */
  public static boolean deploymentTimedOut(Deployment d, DeploymentStatus newStatus, Instant now) {
    if (!hasProgressDeadline(d)) {
      return false;
    }
    Optional<DeploymentCondition> condition =
        DeploymentConditions.getCondition(newStatus, DeploymentConditions.TYPE_PROGRESSING);
    if (condition.isEmpty()) {
      return false;
    }
    String reason = condition.get().getReason();
    if (DeploymentConditions.REASON_NEW_REPLICA_SET_AVAILABLE.equals(reason)) {
      return false;
    }
    if (DeploymentConditions.REASON_PROGRESS_DEADLINE_EXCEEDED.equals(reason)) {
      return true;
    }
    Instant from = lastUpdate(condition.get());
    return from.plusSeconds(d.getSpec().getProgressDeadlineSeconds()).isBefore(now);
  }

  /**
   * The status after recording a pause or resume in the Progressing condition (Unknown with
   * {@value DeploymentConditions#REASON_DEPLOYMENT_PAUSED} or
   * {@value DeploymentConditions#REASON_DEPLOYMENT_RESUMED}), so a resumed Deployment does not time out for
   * the time it spent paused; empty when nothing changes. A ProgressDeadlineExceeded condition is never
   * overwritten, and nothing is recorded without a deadline.
   */
  public static Optional<DeploymentStatus> checkPausedConditions(Deployment d, Instant now) {
    if (!hasProgressDeadline(d)) {
      return Optional.empty();
    }
    Optional<DeploymentCondition> cond =
        DeploymentConditions.getCondition(d.getStatus(), DeploymentConditions.TYPE_PROGRESSING);
    if (cond.isPresent()
        && DeploymentConditions.REASON_PROGRESS_DEADLINE_EXCEEDED.equals(cond.get().getReason())) {
      return Optional.empty();
    }
    boolean pausedCondExists = cond.isPresent()
        && DeploymentConditions.REASON_DEPLOYMENT_PAUSED.equals(cond.get().getReason());
    boolean paused = Boolean.TRUE.equals(d.getSpec().getPaused());
    if (paused && !pausedCondExists) {
      return Optional.of(DeploymentConditions.setCondition(d.getStatus(), DeploymentConditions.newCondition(
          DeploymentConditions.TYPE_PROGRESSING, DeploymentConditions.STATUS_UNKNOWN,
          DeploymentConditions.REASON_DEPLOYMENT_PAUSED, "Deployment is paused", now)));
    }
    if (!paused && pausedCondExists) {
      return Optional.of(DeploymentConditions.setCondition(d.getStatus(), DeploymentConditions.newCondition(
          DeploymentConditions.TYPE_PROGRESSING, DeploymentConditions.STATUS_UNKNOWN,
          DeploymentConditions.REASON_DEPLOYMENT_RESUMED, "Deployment is resumed", now)));
    }
    return Optional.empty();
  }

  /**
   * The status at the end of a rollout step (upstream syncRolloutStatus).
   *
   * <p>Starts from {@link DeploymentStatusCalculator#calculateStatus}. Without a deadline the Progressing
   * condition is dropped. With one, unless the rollout had already completed (all replicas updated and the
   * current condition says NewReplicaSetAvailable), the first that holds of: complete → True
   * NewReplicaSetAvailable; progressing → True ReplicaSetUpdated, always re-stamped (lastUpdateTime = now,
   * lastTransitionTime kept if it was already True) since every bit of progress pushes the deadline back;
   * timed out → False ProgressDeadlineExceeded. Then the first ReplicaFailure condition of the new
   * ReplicaSet (or else of any ReplicaSet) is copied, or ReplicaFailure is removed.
   *
   * <p>When nothing changed, {@link #requeueStuckDeployment} says when to look again.
   *
   * @param allRSs every ReplicaSet of the Deployment (the new one included when it exists)
   */
  public static RolloutStatus syncRolloutStatus(List<ReplicaSet> allRSs, Optional<ReplicaSet> newRS,
                          Deployment d, Instant now) {
    DeploymentStatus newStatus = DeploymentStatusCalculator.calculateStatus(allRSs, newRS, d, now);
    if (!hasProgressDeadline(d)) {
      newStatus = DeploymentConditions.removeCondition(newStatus, DeploymentConditions.TYPE_PROGRESSING);
    }
    Optional<DeploymentCondition> currentCond =
        DeploymentConditions.getCondition(d.getStatus(), DeploymentConditions.TYPE_PROGRESSING);
    boolean isCompleteDeployment = count(newStatus.getReplicas()) == count(newStatus.getUpdatedReplicas())
        && currentCond.isPresent()
        && DeploymentConditions.REASON_NEW_REPLICA_SET_AVAILABLE.equals(currentCond.get().getReason());

    if (hasProgressDeadline(d) && !isCompleteDeployment) {
      String subject = newRS.map(rs -> "ReplicaSet \"" + ReplicaSetUtil.name(rs) + "\"")
          .orElse("Deployment \"" + ReplicaSetUtil.name(d) + "\"");
      if (deploymentComplete(d, newStatus)) {
        newStatus = DeploymentConditions.setCondition(newStatus, DeploymentConditions.newCondition(
            DeploymentConditions.TYPE_PROGRESSING, DeploymentConditions.STATUS_TRUE,
            DeploymentConditions.REASON_NEW_REPLICA_SET_AVAILABLE,
            subject + " has successfully progressed.", now));
      } else if (deploymentProgressing(d, newStatus)) {
        DeploymentCondition condition = DeploymentConditions.newCondition(
            DeploymentConditions.TYPE_PROGRESSING, DeploymentConditions.STATUS_TRUE,
            DeploymentConditions.REASON_REPLICA_SET_UPDATED, subject + " is progressing.", now);
        if (currentCond.isPresent()) {
          if (DeploymentConditions.STATUS_TRUE.equals(currentCond.get().getStatus())) {
            condition.setLastTransitionTime(currentCond.get().getLastTransitionTime());
          }
          newStatus = DeploymentConditions.removeCondition(newStatus,
              DeploymentConditions.TYPE_PROGRESSING);
        }
        newStatus = DeploymentConditions.setCondition(newStatus, condition);
      } else if (deploymentTimedOut(d, newStatus, now)) {
        newStatus = DeploymentConditions.setCondition(newStatus, DeploymentConditions.newCondition(
            DeploymentConditions.TYPE_PROGRESSING, DeploymentConditions.STATUS_FALSE,
            DeploymentConditions.REASON_PROGRESS_DEADLINE_EXCEEDED,
            subject + " has timed out progressing.", now));
      }
    }

    List<DeploymentCondition> failures = replicaFailures(allRSs, newRS);
    newStatus = failures.isEmpty()
        ? DeploymentConditions.removeCondition(newStatus, DeploymentConditions.TYPE_REPLICA_FAILURE)
        : DeploymentConditions.setCondition(newStatus, failures.get(0));

    if (DeploymentStatusCalculator.statusEquals(d.getStatus(), newStatus)) {
      return new RolloutStatus(newStatus, false, requeueStuckDeployment(d, newStatus, now));
    }
    return new RolloutStatus(newStatus, true, ProgressRecheck.NONE);
  }

  /**
   * When to check the deadline again (upstream requeueStuckDeployment). Nothing to watch without a deadline
   * or a current Progressing condition, or once complete or timed out. Otherwise the deadline falls at the
   * condition's lastUpdateTime + progressDeadlineSeconds: with under a second left, requeue now
   * (rate-limited); else after the time left plus one second. E.g. last update 00:00:00, now 00:03:00,
   * deadline 600 s: 7 min left, requeue after 7 min 1 s.
   */
  public static ProgressRecheck requeueStuckDeployment(Deployment d, DeploymentStatus newStatus, Instant now) {
    Optional<DeploymentCondition> currentCond =
        DeploymentConditions.getCondition(d.getStatus(), DeploymentConditions.TYPE_PROGRESSING);
    if (!hasProgressDeadline(d) || currentCond.isEmpty()) {
      return ProgressRecheck.NONE;
    }
    if (deploymentComplete(d, newStatus)
        || DeploymentConditions.REASON_PROGRESS_DEADLINE_EXCEEDED.equals(currentCond.get().getReason())) {
      return ProgressRecheck.NONE;
    }
    Instant deadline = lastUpdate(currentCond.get()).plusSeconds(d.getSpec().getProgressDeadlineSeconds());
    Duration after = Duration.between(now, deadline);
    if (after.compareTo(Duration.ofSeconds(1)) < 0) {
      return ProgressRecheck.NOW_RATE_LIMITED;
    }
    return ProgressRecheck.after(after.plusSeconds(1));
  }

  private static List<DeploymentCondition> replicaFailures(List<ReplicaSet> allRSs, Optional<ReplicaSet> newRS) {
    List<DeploymentCondition> out = new ArrayList<>();
    newRS.ifPresent(rs -> collectFailures(rs, out));
    if (!out.isEmpty()) {
      return out;
    }
    for (ReplicaSet rs : allRSs) {
      if (rs != null) {
        collectFailures(rs, out);
      }
    }
    return out;
  }

  private static void collectFailures(ReplicaSet rs, List<DeploymentCondition> out) {
    if (rs.getStatus() == null || rs.getStatus().getConditions() == null) {
      return;
    }
    for (ReplicaSetCondition c : rs.getStatus().getConditions()) {
      if (DeploymentConditions.TYPE_REPLICA_FAILURE.equals(c.getType())) {
        out.add(DeploymentConditions.fromReplicaSetCondition(c));
      }
    }
  }

  /** The condition's lastUpdateTime; absent or unparsable reads as the epoch (long past, like Go's zero). */
  private static Instant lastUpdate(DeploymentCondition c) {
    return DeploymentConditions.parseTime(c.getLastUpdateTime()).orElse(Instant.EPOCH);
  }

  private static int count(Integer n) {
    return n == null ? 0 : n;
  }

  private static long observedGeneration(DeploymentStatus s) {
    return s.getObservedGeneration() == null ? 0 : s.getObservedGeneration();
  }
}
