package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Deployment status conditions: the types and reasons upstream uses, and get/set/remove with upstream's
 * rules (deploymentutil.NewDeploymentCondition, GetDeploymentCondition, SetDeploymentCondition,
 * RemoveDeploymentCondition, ReplicaSetToDeploymentCondition).
 *
 * <p>Times are RFC 3339 strings with second precision, as metav1.Time serializes. Stateless and
 * thread-safe; setters return a new {@link DeploymentStatus} and leave their argument untouched.
 */
public final class DeploymentConditions {

  public static final String TYPE_PROGRESSING = "Progressing";
  public static final String TYPE_AVAILABLE = "Available";
  public static final String TYPE_REPLICA_FAILURE = "ReplicaFailure";

  public static final String STATUS_TRUE = "True";
  public static final String STATUS_FALSE = "False";
  public static final String STATUS_UNKNOWN = "Unknown";

  // Progressing reasons.
  /** A ReplicaSet of the Deployment was scaled as part of the rollout. */
  public static final String REASON_REPLICA_SET_UPDATED = "ReplicaSetUpdated";
  /** The new ReplicaSet could not be created (upstream FailedRSCreateReason). */
  public static final String REASON_FAILED_RS_CREATE = "ReplicaSetCreateError";
  public static final String REASON_NEW_REPLICA_SET_CREATED = "NewReplicaSetCreated";
  /** An existing ReplicaSet was found to match the template (adopted as the new one). */
  public static final String REASON_FOUND_NEW_REPLICA_SET = "FoundNewReplicaSet";
  /** The rollout completed: every desired replica is updated and available. */
  public static final String REASON_NEW_REPLICA_SET_AVAILABLE = "NewReplicaSetAvailable";
  public static final String REASON_PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";
  public static final String REASON_DEPLOYMENT_PAUSED = "DeploymentPaused";
  public static final String REASON_DEPLOYMENT_RESUMED = "DeploymentResumed";
  // Available reasons.
  public static final String REASON_MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable";
  public static final String REASON_MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable";

  private DeploymentConditions() {
  }

  /** A condition stamped with {@code now} as both last update and last transition time. */
  public static DeploymentCondition newCondition(String type, String status, String reason, String message,
                           Instant now) {
    String ts = formatTime(now);
    return new DeploymentConditionBuilder()
        .withType(type).withStatus(status).withReason(reason).withMessage(message)
        .withLastUpdateTime(ts).withLastTransitionTime(ts)
        .build();
  }

  public static Optional<DeploymentCondition> getCondition(DeploymentStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /**
   * The status with {@code condition} in place of any condition of its type, appended last (upstream
   * SetDeploymentCondition). Nothing changes when a condition with the same status and reason exists (so
   * its message and times stay). When only the reason changes, the old lastTransitionTime is kept: the
   * condition's status did not transition.
   */
  public static DeploymentStatus setCondition(DeploymentStatus status, DeploymentCondition condition) {
    DeploymentStatus base = status == null ? new DeploymentStatus() : status;
    Optional<DeploymentCondition> current = getCondition(base, condition.getType());
    if (current.isPresent() && Objects.equals(current.get().getStatus(), condition.getStatus())
        && Objects.equals(current.get().getReason(), condition.getReason())) {
      return new DeploymentStatusBuilder(base).build();
    }
    DeploymentCondition toSet = condition;
    if (current.isPresent() && Objects.equals(current.get().getStatus(), condition.getStatus())) {
      toSet = new DeploymentConditionBuilder(condition)
          .withLastTransitionTime(current.get().getLastTransitionTime()).build();
    }
    List<DeploymentCondition> conditions = filterOut(base.getConditions(), condition.getType());
    conditions.add(toSet);
    return new DeploymentStatusBuilder(base).withConditions(conditions).build();
  }

  /** The status without conditions of {@code type}. */
  public static DeploymentStatus removeCondition(DeploymentStatus status, String type) {
    DeploymentStatus base = status == null ? new DeploymentStatus() : status;
    return new DeploymentStatusBuilder(base).withConditions(filterOut(base.getConditions(), type)).build();
  }

  /** A ReplicaSet failure condition promoted to the Deployment; both times take its transition time. */
  public static DeploymentCondition fromReplicaSetCondition(ReplicaSetCondition c) {
    return new DeploymentConditionBuilder()
        .withType(c.getType()).withStatus(c.getStatus()).withReason(c.getReason())
        .withMessage(c.getMessage())
        .withLastTransitionTime(c.getLastTransitionTime()).withLastUpdateTime(c.getLastTransitionTime())
        .build();
  }

  private static List<DeploymentCondition> filterOut(List<DeploymentCondition> conditions, String type) {
    List<DeploymentCondition> out = new ArrayList<>();
    if (conditions != null) {
      for (DeploymentCondition c : conditions) {
        if (!type.equals(c.getType())) {
          out.add(c);
        }
      }
    }
    return out;
  }

  /** RFC 3339 at second precision, e.g. 2016-05-20T02:00:00Z (metav1.Time's wire form). */
  public static String formatTime(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** The instant of an RFC 3339 time; empty when absent or unparsable. */
  public static Optional<Instant> parseTime(String s) {
    if (s == null || s.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(s));
    } catch (DateTimeParseException e) {
      try {
        return Optional.of(java.time.OffsetDateTime.parse(s).toInstant());
      } catch (DateTimeParseException e2) {
        return Optional.empty();
      }
    }
  }
}
