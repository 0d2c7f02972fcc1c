package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The status a Deployment should report, computed from its ReplicaSets (upstream sync.go calculateStatus and
 * syncDeploymentStatus).
 *
 * <p>Stateless and thread-safe; never mutates its arguments.
 */
public final class DeploymentStatusCalculator {

  static final String MESSAGE_MINIMUM_AVAILABLE = "Deployment has minimum availability.";
  static final String MESSAGE_MINIMUM_UNAVAILABLE = "Deployment does not have minimum availability.";

  private DeploymentStatusCalculator() {
  }

  /**
   * The status from the ReplicaSets' own status: replicas, ready and available summed over all ReplicaSets,
   * updatedReplicas from the new one's {@code status.replicas}; unavailableReplicas is the sum of
   * {@code spec.replicas} minus available, floored at 0 (more pods than desired are available while scaling
   * down); observedGeneration is the Deployment's generation; collisionCount and the existing conditions are
   * carried over. The Available condition is True ({@value DeploymentConditions#REASON_MINIMUM_REPLICAS_AVAILABLE})
   * when at least {@code replicas - maxUnavailable} pods are available, False
   * ({@value DeploymentConditions#REASON_MINIMUM_REPLICAS_UNAVAILABLE}) otherwise.
   *
   * @param allRSs every ReplicaSet of the Deployment (the new one included when it exists)
   * @param now    stamp for a condition that changes
   */
  public static DeploymentStatus calculateStatus(List<ReplicaSet> allRSs, Optional<ReplicaSet> newRS,
                           Deployment d, Instant now) {
    int available = ReplicaSetUtil.availableReplicaCount(allRSs);
    int total = ReplicaSetUtil.replicaCount(allRSs);
    int unavailable = Math.max(0, total - available);
    DeploymentStatus old = d.getStatus();
    List<DeploymentCondition> conditions = old == null || old.getConditions() == null
        ? new ArrayList<>() : new ArrayList<>(old.getConditions());

    DeploymentStatus status = new DeploymentStatusBuilder()
        .withObservedGeneration(ReplicaSetUtil.generation(d))
        .withReplicas(ReplicaSetUtil.actualReplicaCount(allRSs))
        .withUpdatedReplicas(newRS.map(ReplicaSetUtil::statusReplicas).orElse(0))
        .withReadyReplicas(ReplicaSetUtil.readyReplicaCount(allRSs))
        .withAvailableReplicas(available)
        .withUnavailableReplicas(unavailable)
        .withCollisionCount(old == null ? null : old.getCollisionCount())
        .withConditions(conditions)
        .build();

    int minAvailable = ReplicaSetUtil.deploymentReplicas(d) - RollingUpdateMath.maxUnavailable(d);
    DeploymentCondition availability = available >= minAvailable
        ? DeploymentConditions.newCondition(DeploymentConditions.TYPE_AVAILABLE,
        DeploymentConditions.STATUS_TRUE, DeploymentConditions.REASON_MINIMUM_REPLICAS_AVAILABLE,
        MESSAGE_MINIMUM_AVAILABLE, now)
        : DeploymentConditions.newCondition(DeploymentConditions.TYPE_AVAILABLE,
        DeploymentConditions.STATUS_FALSE, DeploymentConditions.REASON_MINIMUM_REPLICAS_UNAVAILABLE,
        MESSAGE_MINIMUM_UNAVAILABLE, now);
    return DeploymentConditions.setCondition(status, availability);
  }

  /**
   * The status to write for a status-only or scaling sync (upstream syncDeploymentStatus): empty when it
   * equals the current one.
   */
  public static Optional<DeploymentStatus> syncDeploymentStatus(List<ReplicaSet> allRSs,
                                  Optional<ReplicaSet> newRS, Deployment d,
                                  Instant now) {
    DeploymentStatus next = calculateStatus(allRSs, newRS, d, now);
    return statusEquals(d.getStatus(), next) ? Optional.empty() : Optional.of(next);
  }

  /**
   * Equality as Go sees two DeploymentStatus structs: absent counters and an absent observedGeneration are
   * 0, absent and empty condition lists are equal; collisionCount is a pointer upstream, so absent differs
   * from 0.
   */
  public static boolean statusEquals(DeploymentStatus a, DeploymentStatus b) {
    DeploymentStatus x = a == null ? new DeploymentStatus() : a;
    DeploymentStatus y = b == null ? new DeploymentStatus() : b;
    return counter(x.getObservedGeneration()) == counter(y.getObservedGeneration())
        && counter(x.getReplicas()) == counter(y.getReplicas())
        && counter(x.getUpdatedReplicas()) == counter(y.getUpdatedReplicas())
        && counter(x.getReadyReplicas()) == counter(y.getReadyReplicas())
        && counter(x.getAvailableReplicas()) == counter(y.getAvailableReplicas())
        && counter(x.getUnavailableReplicas()) == counter(y.getUnavailableReplicas())
        && counter(x.getTerminatingReplicas()) == counter(y.getTerminatingReplicas())
        && Objects.equals(x.getCollisionCount(), y.getCollisionCount())
        && conditions(x).equals(conditions(y));
  }

  private static long counter(Number n) {
    return n == null ? 0 : n.longValue();
  }

  private static List<DeploymentCondition> conditions(DeploymentStatus s) {
    return s.getConditions() == null ? List.of() : s.getConditions();
  }
}
