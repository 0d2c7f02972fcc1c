package io.berth.controller.replicaset;

import io.berth.controller.ApiTimes;
import io.berth.controller.Pods;
import io.berth.controller.Selector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A ReplicaSet's status as upstream's {@code calculateStatus} computes it from the pods it owns, and the test
 * {@code updateReplicaSetStatus} applies before writing. Counts: {@code replicas} (active owned pods),
 * {@code fullyLabeledReplicas} (those carrying every template label), {@code readyReplicas},
 * {@code availableReplicas} (ready for {@code minReadySeconds} at the given time). The {@code ReplicaFailure}
 * condition is set (reason {@code FailedCreate} when short of pods, {@code FailedDelete} when over) when managing the
 * replicas failed and no such condition exists yet, and removed once a sync manages them without error. Zero counts
 * are left out as Go's {@code omitempty} leaves them out. Stateless; never mutates its arguments.
 */
final class ReplicaSetStatuses {

  static final String REPLICA_FAILURE = "ReplicaFailure";
  static final String FAILED_CREATE = "FailedCreate";
  static final String FAILED_DELETE = "FailedDelete";

  private ReplicaSetStatuses() {
  }

  /**
   * The status {@code rs} should have given its active owned {@code pods} and the outcome of managing its replicas
   * ({@code manageError}, empty on success or when it did not run) at wall time {@code now}. observedGeneration is
   * left as it was: it is set when the status is written.
   */
  static ReplicaSetStatus calculate(ReplicaSet rs, List<Pod> pods, Optional<String> manageError, Instant now) {
    ReplicaSetStatus current = rs.getStatus();
    ReplicaSetStatus next = current == null ? new ReplicaSetStatus() : new ReplicaSetStatusBuilder(current).build();
    Selector templateLabels = Selector.fromSet(rs.getSpec().getTemplate() == null
        || rs.getSpec().getTemplate().getMetadata() == null ? null
        : rs.getSpec().getTemplate().getMetadata().getLabels());
    int minReadySeconds = orZero(rs.getSpec().getMinReadySeconds());
    int fullyLabeled = 0;
    int ready = 0;
    int available = 0;
    for (Pod pod : pods) {
      if (templateLabels.matches(pod.getMetadata().getLabels())) {
        fullyLabeled++;
      }
      if (Pods.isReady(pod)) {
        ready++;
        if (Pods.isAvailable(pod, minReadySeconds, now)) {
          available++;
        }
      }
    }
    Optional<ReplicaSetCondition> failure = condition(current, REPLICA_FAILURE);
    if (manageError.isPresent() && failure.isEmpty()) {
      int diff = pods.size() - orZero(rs.getSpec().getReplicas());
      String reason = diff < 0 ? FAILED_CREATE : diff > 0 ? FAILED_DELETE : "";
      setCondition(next, new ReplicaSetConditionBuilder()
          .withType(REPLICA_FAILURE)
          .withStatus("True")
          .withLastTransitionTime(ApiTimes.format(now))
          .withReason(reason)
          .withMessage(manageError.get())
          .build());
    } else if (manageError.isEmpty() && failure.isPresent()) {
      removeCondition(next, REPLICA_FAILURE);
    }
    next.setReplicas(pods.size());
    next.setFullyLabeledReplicas(omitZero(fullyLabeled));
    next.setReadyReplicas(omitZero(ready));
    next.setAvailableReplicas(omitZero(available));
    return next;
  }

  /**
   * Whether writing {@code next} would change nothing: same counts and conditions, and the current generation
   * already observed (the early return of {@code updateReplicaSetStatus}).
   */
  static boolean unchanged(ReplicaSet rs, ReplicaSetStatus next) {
    ReplicaSetStatus cur = rs.getStatus() == null ? new ReplicaSetStatus() : rs.getStatus();
    return orZero(cur.getReplicas()) == orZero(next.getReplicas())
        && orZero(cur.getFullyLabeledReplicas()) == orZero(next.getFullyLabeledReplicas())
        && orZero(cur.getReadyReplicas()) == orZero(next.getReadyReplicas())
        && orZero(cur.getAvailableReplicas()) == orZero(next.getAvailableReplicas())
        && orZero(rs.getMetadata().getGeneration()) == orZero(cur.getObservedGeneration())
        && conditions(cur).equals(conditions(next));
  }

  /** The condition of {@code type}, if the status has one. */
  static Optional<ReplicaSetCondition> condition(ReplicaSetStatus status, String type) {
    for (ReplicaSetCondition c : conditions(status)) {
      if (type.equals(c.getType())) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** Adds or replaces the condition of its type, unless one with the same status and reason is there already. */
  static void setCondition(ReplicaSetStatus status, ReplicaSetCondition condition) {
    Optional<ReplicaSetCondition> existing = condition(status, condition.getType());
    if (existing.isPresent() && Objects.equals(existing.get().getStatus(), condition.getStatus())
        && Objects.equals(existing.get().getReason(), condition.getReason())) {
      return;
    }
    List<ReplicaSetCondition> next = without(conditions(status), condition.getType());
    next.add(condition);
    status.setConditions(next);
  }

  /** Removes the condition of {@code type}. */
  static void removeCondition(ReplicaSetStatus status, String type) {
    status.setConditions(without(conditions(status), type));
  }

  private static List<ReplicaSetCondition> without(List<ReplicaSetCondition> conditions, String type) {
    List<ReplicaSetCondition> result = new ArrayList<>();
    for (ReplicaSetCondition c : conditions) {
      if (!type.equals(c.getType())) {
        result.add(c);
      }
    }
    return result;
  }

  private static List<ReplicaSetCondition> conditions(ReplicaSetStatus status) {
    return status == null || status.getConditions() == null ? List.of() : status.getConditions();
  }

  static int orZero(Integer i) {
    return i == null ? 0 : i;
  }

  static long orZero(Long l) {
    return l == null ? 0 : l;
  }

  private static Integer omitZero(int i) {
    return i == 0 ? null : i;
  }
}
