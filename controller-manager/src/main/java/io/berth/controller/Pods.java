package io.berth.controller;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Pod predicates the workload controllers share, as upstream's {@code podutil} and {@code controller_utils.go}
 * define them: readiness, availability after {@code minReadySeconds}, activity (not Succeeded, not Failed, not
 * terminating), the {@code namespace/name} key, and the few timestamps the ranking reads. Stateless; never mutates
 * the pods it is given (they are the informer cache's).
 */
public final class Pods {

  public static final String PHASE_PENDING = "Pending";
  public static final String PHASE_RUNNING = "Running";
  public static final String PHASE_SUCCEEDED = "Succeeded";
  public static final String PHASE_FAILED = "Failed";
  public static final String PHASE_UNKNOWN = "Unknown";

  private Pods() {
  }

  /** {@code namespace/name}: the key expectations track deletions by ({@code controller.PodKey}). */
  public static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  /** The pod's {@code Ready} condition, if it has one. */
  public static Optional<PodCondition> readyCondition(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** Whether the pod's {@code Ready} condition is True ({@code podutil.IsPodReady}). */
  public static boolean isReady(Pod pod) {
    return readyCondition(pod).map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  /**
   * Whether the pod has been ready for at least {@code minReadySeconds} at {@code now}
   * ({@code podutil.IsPodAvailable}): ready, and either {@code minReadySeconds} is 0 or the Ready condition's
   * lastTransitionTime plus {@code minReadySeconds} is before {@code now}.
   */
  public static boolean isAvailable(Pod pod, int minReadySeconds, Instant now) {
    if (!isReady(pod)) {
      return false;
    }
    if (minReadySeconds == 0) {
      return true;
    }
    Optional<Instant> since = readyCondition(pod).flatMap(c -> parseTime(c.getLastTransitionTime()));
    return since.isPresent() && since.get().plus(Duration.ofSeconds(minReadySeconds)).isBefore(now);
  }

  /** Not Succeeded, not Failed and not being deleted ({@code controller.IsPodActive}). */
  public static boolean isActive(Pod pod) {
    String phase = phase(pod);
    return !PHASE_SUCCEEDED.equals(phase) && !PHASE_FAILED.equals(phase)
        && pod.getMetadata().getDeletionTimestamp() == null;
  }

  /** The active pods of {@code pods}, in order ({@code controller.FilterActivePods}). */
  public static List<Pod> filterActive(List<Pod> pods) {
    List<Pod> result = new ArrayList<>(pods.size());
    for (Pod p : pods) {
      if (isActive(p)) {
        result.add(p);
      }
    }
    return result;
  }

  /** The pod's phase, empty when it has no status yet. */
  public static String phase(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "" : pod.getStatus().getPhase();
  }

  /** The node the pod is bound to, empty when unassigned. */
  public static String nodeName(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
  }

  /** The highest restart count of the pod's containers ({@code maxContainerRestarts}). */
  public static int maxContainerRestarts(Pod pod) {
    int max = 0;
    if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
      for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
        if (cs.getRestartCount() != null) {
          max = Math.max(max, cs.getRestartCount());
        }
      }
    }
    return max;
  }

  /**
   * When the pod last became ready, if it is ready ({@code podReadyTime}); empty otherwise or when the time is
   * missing (the zero time upstream).
   */
  public static Optional<Instant> readyTime(Pod pod) {
    if (!isReady(pod)) {
      return Optional.empty();
    }
    return readyCondition(pod).flatMap(c -> parseTime(c.getLastTransitionTime()));
  }

  /** The pod's creationTimestamp; empty when missing. */
  public static Optional<Instant> creationTime(Pod pod) {
    return parseTime(pod.getMetadata().getCreationTimestamp());
  }

  /** An RFC 3339 API timestamp; empty when null, empty or malformed (Go's zero time). */
  public static Optional<Instant> parseTime(String timestamp) {
    if (timestamp == null || timestamp.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(timestamp));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
