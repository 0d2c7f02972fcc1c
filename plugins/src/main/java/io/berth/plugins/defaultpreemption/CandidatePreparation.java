package io.berth.plugins.defaultpreemption;

import io.berth.framework.Handle;
import io.berth.framework.PodInfo;
import io.berth.framework.PodStatusPatch;
import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a chosen candidate, as upstream's {@code prepareCandidate} with asynchronous
 * preemption off (v1.32's default). For every victim, in parallel: a victim already being deleted
 * is left alone; a victim parked at Permit is rejected; any other gets the
 * {@code DisruptionTarget=True} condition (reason {@code PreemptionByScheduler}) through a
 * status patch and is then deleted with its own grace period, both through the handle's
 * {@link io.berth.framework.PodApi}. Each
 * preempted victim gets a {@code Preempted} event. A victim already gone counts as preempted
 * without an event. Finally the lower-priority pods nominated to the node lose their nomination
 * (a status patch clearing {@code status.nominatedNodeName}), so they look for room elsewhere at
 * once; failures there are logged, not returned. With SchedulerAsyncPreemption the same work runs
 * in the background ({@link #prepareAsync}). Thread-safe: the set of preempting pods is a
 * concurrent set, everything else is immutable; called from the scheduling thread, fans out on
 * the handle's parallelizer (synchronous) or its own daemon threads (asynchronous).
 */
final class CandidatePreparation {
  private static final Logger LOG = LoggerFactory.getLogger(CandidatePreparation.class);
  static final String DISRUPTION_TARGET = "DisruptionTarget";
  static final String REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler";
  static final String EVENT_REASON_PREEMPTED = "Preempted";
  static final String EVENT_ACTION_PREEMPTING = "Preempting";

  private final Handle handle;
  private final String pluginName;
  private final Clock clock;
  // UIDs of the preemptors whose asynchronous preparation is still running; concurrent set
  private final Set<String> preempting = ConcurrentHashMap.newKeySet();
  // runs asynchronous preparations and their victims' API calls; null with the gate off
  private final ExecutorService async;

  CandidatePreparation(Handle handle, Clock clock, boolean asynchronous) {
    this(handle, DefaultPreemption.NAME, clock, asynchronous);
  }

  /** {@code pluginName} rejects victims waiting at Permit. */
  CandidatePreparation(Handle handle, String pluginName, Clock clock, boolean asynchronous) {
    this.handle = handle;
    this.pluginName = pluginName;
    this.clock = clock;
    if (asynchronous) {
      AtomicInteger n = new AtomicInteger();
      this.async = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "preemption-async-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
    } else {
      this.async = null;
    }
  }

  /** Whether the asynchronous preparation for the pod with this UID is still running. */
  boolean isRunningPreemption(String podUid) {
    return preempting.contains(podUid);
  }

  /**
   * Upstream's {@code prepareCandidateAsync} (SchedulerAsyncPreemption): marks the preemptor as
   * preempting and returns at once; a background thread clears lower nominations, preempts all
   * victims but the last in parallel, unmarks the preemptor, then preempts the last victim, so
   * that the last victim's deletion event finds the preemptor no longer gated by PreEnqueue. On
   * any failure the preemptor is activated, so it cannot stay stuck among unschedulable pods.
   */
  void prepareAsync(Candidate candidate, Pod preemptor) {
    handle.preemptionMetrics().victims(candidate.victims().size());
    String uid = preemptor.getMetadata().getUid();
    preempting.add(uid);
    try {
      async.execute(() -> runAsync(candidate, preemptor, uid));
    } catch (RuntimeException e) {
      preempting.remove(uid);
      throw e;
    }
  }

  private void runAsync(Candidate candidate, Pod preemptor, String uid) {
    long start = System.nanoTime();
    boolean failed = false;
    try {
      LOG.debug("Start the preemption asynchronously: preemptor {}, node {}, {} victim(s)",
          key(preemptor), candidate.nodeName(), candidate.victims().size());
      failed = !clearLowerNominations(preemptor, candidate.nodeName());
      List<Pod> victims = candidate.victims();
      if (victims.isEmpty()) {
        return;
      }
      List<Future<?>> running = new ArrayList<>();
      for (Pod victim : victims.subList(0, victims.size() - 1)) {
        running.add(async.submit(() -> preempt(victim, preemptor, candidate.nodeName())));
      }
      for (Future<?> f : running) {
        try {
          f.get();
        } catch (ExecutionException e) {
          LOG.error("Error occurred during async preemption for pod {}", key(preemptor),
              e.getCause());
          failed = true;
        }
      }
      preempting.remove(uid);
      try {
        preempt(victims.get(victims.size() - 1), preemptor, candidate.nodeName());
      } catch (RuntimeException e) {
        LOG.error("Error occurred during async preemption for pod {}", key(preemptor), e);
        failed = true;
      }
      LOG.debug("Async preemption finished: preemptor {}, node {}, failed {}", key(preemptor),
          candidate.nodeName(), failed);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed = true;
    } catch (RuntimeException e) {
      LOG.error("Async preemption for pod {} failed", key(preemptor), e);
      failed = true;
    } finally {
      preempting.remove(uid);
      handle.preemptionMetrics().asyncPreparation(!failed, System.nanoTime() - start);
      if (failed) {
        // the API calls did not all go through: the pod may never see the events it waits for
        handle.activate(List.of(preemptor));
      }
    }
  }

  /** Success, or the first error met while preempting a victim. */
  Status prepare(Candidate candidate, Pod preemptor) {
    List<Pod> victims = candidate.victims();
    // the first failure, set by whichever victim's worker fails first
    AtomicReference<Status> failure = new AtomicReference<>();
    handle.parallelizer().until(victims.size(), i -> {
      try {
        preempt(victims.get(i), preemptor, candidate.nodeName());
      } catch (RuntimeException e) {
        LOG.error("Could not preempt pod {} for pod {}", key(victims.get(i)), key(preemptor), e);
        failure.compareAndSet(null, Status.asError(e));
      }
    }, () -> failure.get() != null);
    if (failure.get() != null) {
      return failure.get();
    }
    handle.preemptionMetrics().victims(victims.size());
    clearLowerNominations(preemptor, candidate.nodeName());
    return Status.SUCCESS;
  }

  private void preempt(Pod victim, Pod preemptor, String nodeName) {
    if (victim.getMetadata().getDeletionTimestamp() != null) {
      LOG.debug("Victim pod {} is already being deleted, no API call for it", key(victim));
      return;
    }
    Optional<WaitingPod> waiting = handle.getWaitingPod(victim.getMetadata().getUid());
    if (waiting.isPresent()) {
      waiting.get().reject(pluginName, "preempted");
      LOG.debug("Pod {} rejected waiting pod {} on node {}", key(preemptor), key(victim), nodeName);
    } else if (!addDisruptionCondition(victim, preemptor) || !delete(victim)) {
      LOG.debug("Victim pod {} is already deleted", key(victim));
      return;
    }
    handle.eventRecorder().event(victim, "Normal", EVENT_REASON_PREEMPTED,
        EVENT_ACTION_PREEMPTING, "Preempted by pod " + preemptor.getMetadata().getUid()
            + " on node " + nodeName);
  }

  /** Returns false when the victim is gone. */
  private boolean addDisruptionCondition(Pod victim, Pod preemptor) {
    String schedulerName = preemptor.getSpec() == null
        || preemptor.getSpec().getSchedulerName() == null ? ""
        : preemptor.getSpec().getSchedulerName();
    String message = schedulerName + ": preempting to accommodate a higher priority pod";
    Optional<PodCondition> existing = disruptionTarget(victim);
    boolean wasTrue = existing.isPresent() && "True".equals(existing.get().getStatus());
    if (wasTrue && REASON_PREEMPTION_BY_SCHEDULER.equals(existing.get().getReason())
        && Objects.equals(message, existing.get().getMessage())) {
      return true; // unchanged: no status write, as upstream's UpdatePodCondition
    }
    // the transition time moves only when the status does
    String transition = wasTrue && existing.get().getLastTransitionTime() != null
        ? existing.get().getLastTransitionTime()
        : clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    PodCondition condition = new PodConditionBuilder().withType(DISRUPTION_TARGET)
        .withStatus("True").withReason(REASON_PREEMPTION_BY_SCHEDULER).withMessage(message)
        .withLastTransitionTime(transition).build();
    return handle.podApi().patchStatus(victim, PodStatusPatch.condition(condition));
  }

  private static Optional<PodCondition> disruptionTarget(Pod victim) {
    if (victim.getStatus() == null || victim.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return victim.getStatus().getConditions().stream()
        .filter(c -> DISRUPTION_TARGET.equals(c.getType())).findFirst();
  }

  /** Deletes with the pod's own grace period; false when it was already gone. */
  private boolean delete(Pod victim) {
    return handle.podApi().delete(victim);
  }

  /**
   * Lower-priority pods nominated to this node may no longer fit there; clearing their nomination
   * moves them back to the active queue sooner than waiting for the victims to terminate.
   */
  private boolean clearLowerNominations(Pod preemptor, String nodeName) {
    boolean cleared = true;
    int priority = PrioritySort.podPriority(preemptor);
    for (PodInfo pi : handle.nominator().nominatedPodsForNode(nodeName)) {
      Pod p = pi.pod();
      if (PrioritySort.podPriority(p) >= priority || p.getStatus() == null
          || p.getStatus().getNominatedNodeName() == null
          || p.getStatus().getNominatedNodeName().isEmpty()) {
        continue;
      }
      try {
        handle.podApi().patchStatus(p, PodStatusPatch.nominatedNodeName(""));
      } catch (RuntimeException e) {
        LOG.error("Cannot clear 'NominatedNodeName' field of pod {}", key(p), e);
        cleared = false;
      }
    }
    return cleared;
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
