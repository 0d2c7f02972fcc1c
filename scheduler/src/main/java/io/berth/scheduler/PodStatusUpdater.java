package io.berth.scheduler;

import io.berth.framework.ApiCacher;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Writes a failed pod's {@code PodScheduled=False} condition and {@code status.nominatedNodeName}
 * in one status patch through the {@link PodApi}, skipping the write when nothing changed
 * (upstream's {@code updatePod}); also the nomination alone, for the expected placement of a pod
 * in its binding cycle. With an {@link ApiCacher} ({@code SchedulerAsyncAPICalls}) the patch is
 * queued in the API dispatcher instead, which decides whether it is needed (the informer's copy
 * may lag behind calls still queued) and sends it off the caller's thread; the methods then
 * return at once. Thread-safe: stateless apart from the shared PodApi and ApiCacher.
 */
public final class PodStatusUpdater {
  public static final String POD_SCHEDULED = "PodScheduled";
  public static final String REASON_UNSCHEDULABLE = "Unschedulable";
  public static final String REASON_SCHEDULER_ERROR = "SchedulerError";

  private final PodApi api;
  private final Optional<ApiCacher> cacher;

  /** Synchronous writes through {@code api}. */
  public PodStatusUpdater(PodApi api) {
    this(api, Optional.empty());
  }

  /** Writes queued in {@code cacher} when present, else synchronous through {@code api}. */
  public PodStatusUpdater(PodApi api, Optional<ApiCacher> cacher) {
    this.api = api;
    this.cacher = cacher;
  }

  /**
   * Sets the condition and, when {@code nominatedNodeName} is non-null, the nomination ("" clears
   * it). Returns whether a write was made (queued, with a cacher). A pod that is gone is not an
   * error.
   */
  public boolean update(Pod pod, String reason, String message, String nominatedNodeName) {
    PodCondition current = findCondition(pod);
    if (cacher.isPresent()) {
      return queued(cacher.get().patchPodStatus(pod,
          Optional.of(condition(current, reason, message)), nominatedNodeName == null
              ? NominatingInfo.NOOP : NominatingInfo.override(nominatedNodeName)));
    }
    String currentNominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    boolean conditionSame = current != null && "False".equals(current.getStatus())
        && Objects.equals(reason, current.getReason()) && Objects.equals(message, current.getMessage());
    boolean nominationSame = nominatedNodeName == null
        || Objects.equals(emptyToNull(nominatedNodeName), emptyToNull(currentNominated));
    if (conditionSame && nominationSame) {
      return false;
    }
    return api.patchStatus(pod, new PodStatusPatch(Optional.of(condition(current, reason, message)),
        Optional.ofNullable(nominatedNodeName)));
  }

  /** {@code PodScheduled=False}, keeping the transition time of a condition already False. */
  private static PodCondition condition(PodCondition current, String reason, String message) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return new PodConditionBuilder().withType(POD_SCHEDULED).withStatus("False")
        .withReason(reason).withMessage(message)
        .withLastTransitionTime(current != null && "False".equals(current.getStatus())
            ? current.getLastTransitionTime() : now)
        .build();
  }

  /** Whether a queued call may still write: not skipped at once, not failed at once. */
  private static boolean queued(CompletionStage<ApiCacher.Outcome> call) {
    var f = call.toCompletableFuture();
    return !f.isDone() || (!f.isCompletedExceptionally()
        && f.getNow(ApiCacher.Outcome.SKIPPED) == ApiCacher.Outcome.EXECUTED);
  }

  /**
   * Sets {@code status.nominatedNodeName} to {@code nodeName} alone (upstream's {@code updatePod}
   * with a nomination and no condition), skipping the write when the pod already has it. Returns
   * whether a write was made.
   */
  public boolean nominate(Pod pod, String nodeName) {
    if (cacher.isPresent()) {
      return queued(cacher.get().patchPodStatus(pod, Optional.empty(),
          NominatingInfo.override(nodeName == null ? "" : nodeName)));
    }
    String current = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (Objects.equals(emptyToNull(nodeName), emptyToNull(current))) {
      return false;
    }
    return api.patchStatus(pod, PodStatusPatch.nominatedNodeName(nodeName));
  }

  /**
   * The pod as known to carry {@code nodeName} as its nomination when its (possibly stale) copy
   * shows none: the scheduler wrote it and the informer may not have seen the write yet.
   */
  static Pod withNominatedNodeNameIfUnset(Pod pod, String nodeName) {
    if (pod.getStatus() != null && emptyToNull(pod.getStatus().getNominatedNodeName()) != null) {
      return pod;
    }
    return new PodBuilder(pod).editOrNewStatus().withNominatedNodeName(nodeName).endStatus()
        .build();
  }

  private static PodCondition findCondition(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if (POD_SCHEDULED.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
