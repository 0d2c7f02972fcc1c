package io.berth.scheduler.queue;

import io.berth.framework.ClusterEvent;
import io.berth.framework.Code;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state behind {@link SchedulingQueue} and the rules that move pods between its parts
 * (upstream's {@code PriorityQueue} without the locking): activeQ, backoffQ, unschedulablePods,
 * the in-flight pods with their events, and the nominator. With SchedulerPopFromBackoffQ, pop
 * serves backoffQ's head when activeQ is empty, PreEnqueue runs when a pod enters backoffQ (a
 * gated pod never sits there) and not again when its backoff completes. Not thread-safe: every
 * method must be called with the owning {@code SchedulingQueue}'s lock held (the nominator alone
 * has its own leaf lock, so it can also be read without that lock).
 */
final class PodQueues {
  private static final Logger log = LoggerFactory.getLogger(PodQueues.class);

  private final Map<String, QueueProfile> profiles;
  private final QueueingHints hints;
  private final PodBackoff backoff;
  private final Duration podMaxInUnschedulablePodsDuration;
  private final InstantSource clock;
  private final QueueListener listener;
  /** Called whenever a pod enters activeQ, or backoffQ with popFromBackoffQ (wakes pop()). */
  private final Runnable activeQGrew;
  private final boolean popFromBackoffQ;
  final PodHeap activeQ;
  final BackoffQueue backoffQ;
  final UnschedulablePods unschedulablePods = new UnschedulablePods();
  final InFlightPods inFlight = new InFlightPods();
  final Nominator nominator = new Nominator();
  private long schedulingCycle;

  PodQueues(QueueSortPlugin sort, Map<String, QueueProfile> profiles, PodBackoff backoff,
      Duration podMaxInUnschedulablePodsDuration, InstantSource clock, QueueListener listener,
      Runnable activeQGrew, boolean popFromBackoffQ) {
    this.profiles = Map.copyOf(profiles);
    this.hints = new QueueingHints(this.profiles);
    this.backoff = backoff;
    this.podMaxInUnschedulablePodsDuration = podMaxInUnschedulablePodsDuration;
    this.clock = clock;
    this.listener = listener;
    this.activeQGrew = activeQGrew;
    this.popFromBackoffQ = popFromBackoffQ;
    this.activeQ = new PodHeap(sort::less);
    this.backoffQ = new BackoffQueue(backoff, sort, popFromBackoffQ);
  }

  long schedulingCycle() {
    return schedulingCycle;
  }

  PodBackoff backoff() {
    return backoff;
  }

  void add(PodInfo podInfo) {
    moveToActiveQ(new QueuedPodInfo(podInfo, clock.instant()), QueueListener.POD_ADD);
  }

  /**
   * Pops activeQ's head (or, with popFromBackoffQ and activeQ empty, podBackoffQ's head) and puts
   * it in flight; null when there is none.
   */
  QueuedPodInfo pop() {
    QueuedPodInfo pInfo;
    while ((pInfo = popHead()) != null) {
      if (inFlight.popped(pInfo.pod())) {
        pInfo.incrementAttempts();
        schedulingCycle++;
        pInfo.unschedulablePlugins().clear();
        pInfo.pendingPlugins().clear();
        return pInfo;
      }
      // Upstream drops such a duplicate: the in-flight copy comes back through its own attempt.
      log.error("Pod {} is already being scheduled; discarding the duplicate", pInfo.key());
    }
    return null;
  }

  /**
   * Takes the pod with this key out of activeQ or backoffQ (backoff or not) and puts it in flight
   * like {@link #pop()}, for a group scheduling cycle; null when it is in neither (or in flight).
   */
  QueuedPodInfo popSpecific(String key) {
    QueuedPodInfo pInfo = activeQ.get(key);
    if (pInfo == null) {
      pInfo = backoffQ.get(key);
    }
    if (pInfo == null || !inFlight.popped(pInfo.pod())) {
      return null;
    }
    if (activeQ.remove(key) == null) {
      backoffQ.remove(key);
    }
    pInfo.incrementAttempts();
    schedulingCycle++;
    pInfo.unschedulablePlugins().clear();
    pInfo.pendingPlugins().clear();
    return pInfo;
  }

  /** Whether {@link #pop()} would return a pod now (ignoring in-flight duplicates). */
  boolean hasPoppable() {
    return !activeQ.isEmpty() || backoffQ.hasPoppable();
  }

  private QueuedPodInfo popHead() {
    QueuedPodInfo pInfo = activeQ.pop();
    if (pInfo == null && (pInfo = backoffQ.popBackoff()) != null) {
      listener.podMoved(QueueName.ACTIVE, QueueListener.POP_FROM_BACKOFF_Q);
    }
    return pInfo;
  }

  void addUnschedulableIfNotPresent(QueuedPodInfo pInfo, long podSchedulingCycle) {
    String uid = InFlightPods.uid(pInfo.pod());
    try {
      if (inFlight.isDeleted(uid)) {
        log.debug("Pod {} was deleted while being scheduled; not requeuing it", pInfo.key());
        return;
      }
      String key = pInfo.key();
      if (unschedulablePods.contains(key)) {
        throw new IllegalStateException("Pod " + key + " is already present in unschedulablePods");
      }
      if (activeQ.contains(key)) {
        throw new IllegalStateException("Pod " + key + " is already present in the active queue");
      }
      if (backoffQ.contains(key)) {
        throw new IllegalStateException("Pod " + key + " is already present in the backoff queue");
      }
      pInfo.setTimestamp(clock.instant());
      QueueingStrategy strategy = strategyForInFlightPod(pInfo, uid);
      QueueName queue = requeue(pInfo, strategy, QueueListener.SCHEDULE_ATTEMPT_FAILURE);
      log.debug("Pod {} moved to {} after a failed attempt in cycle {} (hint {}, rejectors {} {})",
          key, queue, podSchedulingCycle, strategy, pInfo.unschedulablePlugins(),
          pInfo.pendingPlugins());
    } finally {
      inFlight.done(uid);
    }
  }

  void moveAll(ClusterEvent event, Object oldObj, Object newObj, Predicate<Pod> preCheck) {
    List<QueuedPodInfo> candidates = unschedulablePods.list();
    if (preCheck != null) {
      candidates.removeIf(pInfo -> !preCheck.test(pInfo.pod()));
    }
    movePodsToActiveOrBackoffQueue(candidates, event, oldObj, newObj);
  }

  void update(Pod oldPod, Pod newPod, PodInfo newInfo) {
    if (inFlight.recordIfInFlight(InFlightPods.uid(newPod),
        PodChanges.schedulingPropertiesChange(oldPod, newPod), oldPod, newPod)) {
      return;
    }
    String key = InFlightPods.key(oldPod == null ? newPod : oldPod);
    QueuedPodInfo pInfo = activeQ.get(key);
    if (pInfo != null) {
      pInfo.setPodInfo(newInfo);
      activeQ.fix(key);
      nominator.update(oldPod, newInfo);
      return;
    }
    pInfo = backoffQ.get(key);
    if (pInfo != null) {
      pInfo.setPodInfo(newInfo);
      backoffQ.fix(key);
      nominator.update(oldPod, newInfo);
      return;
    }
    pInfo = unschedulablePods.get(key);
    if (pInfo == null) {
      moveToActiveQ(new QueuedPodInfo(newInfo, clock.instant()), QueueListener.POD_ADD);
      return;
    }
    pInfo.setPodInfo(newInfo);
    nominator.update(oldPod, newInfo);
    if (!PodChanges.isPodUpdated(oldPod, newPod)) {
      unschedulablePods.addOrUpdate(pInfo);
    } else if (backoff.isBackingOff(pInfo, clock.instant())) {
      // Never true for a gated pod: gated pods go through moveToActiveQ and re-run PreEnqueue.
      moveToBackoffQ(pInfo, QueueListener.POD_UPDATE);
    } else {
      moveToActiveQ(pInfo, QueueListener.POD_UPDATE);
    }
  }

  void delete(Pod pod) {
    String key = InFlightPods.key(pod);
    nominator.delete(pod);
    if (activeQ.remove(key) == null && backoffQ.remove(key) == null) {
      unschedulablePods.remove(key);
    }
    inFlight.markDeleted(InFlightPods.uid(pod));
  }

  void activate(Collection<Pod> pods) {
    for (Pod pod : pods) {
      String key = InFlightPods.key(pod);
      QueuedPodInfo pInfo = unschedulablePods.get(key);
      if (pInfo == null) {
        // With popFromBackoffQ, as upstream, out of backoffQ first: if PreEnqueue now gates the
        // pod it goes to unschedulablePods, since a gated pod never sits in backoffQ.
        pInfo = popFromBackoffQ ? backoffQ.remove(key) : backoffQ.get(key);
      }
      if (pInfo != null) {
        moveToActiveQ(pInfo, QueueListener.FORCE_ACTIVATE);
      } else {
        // Not queued: if it is being scheduled, its attempt will see the (wildcard) event.
        inFlight.recordIfInFlight(InFlightPods.uid(pod), List.of(SchedulingQueue.FORCE_ACTIVATE),
            null, pod);
      }
    }
  }

  void flushBackoffQCompleted() {
    // With popFromBackoffQ PreEnqueue already ran when the pod entered backoffQ.
    backoffQ.popEachCompleted(clock.instant(),
        pInfo -> moveToActiveQ(pInfo, QueueListener.BACKOFF_COMPLETE, popFromBackoffQ));
  }

  void flushUnschedulablePodsLeftover() {
    Instant now = clock.instant();
    List<QueuedPodInfo> leftover = new ArrayList<>();
    for (QueuedPodInfo pInfo : unschedulablePods.list()) {
      if (Duration.between(pInfo.timestamp(), now)
          .compareTo(podMaxInUnschedulablePodsDuration) > 0) {
        leftover.add(pInfo);
      }
    }
    if (!leftover.isEmpty()) {
      movePodsToActiveOrBackoffQueue(leftover, ClusterEvent.UNSCHEDULABLE_TIMEOUT, null, null);
    }
  }

  void addNominatedPod(PodInfo podInfo, NominatingInfo nominatingInfo) {
    if (inFlight.isDeleted(InFlightPods.uid(podInfo.pod()))) {
      return;
    }
    nominator.add(podInfo, nominatingInfo);
  }

  /** The queued pod with this key in any queue, or null. */
  QueuedPodInfo find(String key) {
    QueuedPodInfo p = activeQ.get(key);
    if (p == null) {
      p = backoffQ.get(key);
    }
    return p != null ? p : unschedulablePods.get(key);
  }

  QueueName queueOf(String key) {
    if (activeQ.contains(key)) {
      return QueueName.ACTIVE;
    }
    if (backoffQ.contains(key)) {
      return QueueName.BACKOFF;
    }
    if (unschedulablePods.contains(key)) {
      return unschedulablePods.isStoredGated(key) ? QueueName.GATED : QueueName.UNSCHEDULABLE;
    }
    return null;
  }

  /**
   * Runs PreEnqueue, then puts the pod into activeQ and out of the other queues; a gated pod goes
   * to unschedulablePods instead, unless it already sits in activeQ or backoffQ.
   */
  private boolean moveToActiveQ(QueuedPodInfo pInfo, String event) {
    return moveToActiveQ(pInfo, event, false);
  }

  private boolean moveToActiveQ(QueuedPodInfo pInfo, String event, boolean skipPreEnqueue) {
    if (!skipPreEnqueue) {
      runPreEnqueuePlugins(pInfo);
    }
    String key = pInfo.key();
    if (pInfo.isGated()) {
      if (activeQ.contains(key) || backoffQ.contains(key)) {
        return false;
      }
      unschedulablePods.addOrUpdate(pInfo);
      listener.podMoved(QueueName.GATED, event);
      return false;
    }
    if (pInfo.initialAttemptTimestamp().isEmpty()) {
      // As upstream: counted from the first entry into activeQ, so time spent gated is excluded.
      pInfo.setInitialAttemptTimestamp(clock.instant());
    }
    activeQ.addOrUpdate(pInfo);
    unschedulablePods.remove(key);
    backoffQ.remove(key);
    listener.podMoved(QueueName.ACTIVE, event);
    if (QueueListener.POD_ADD.equals(event)) {
      nominator.add(pInfo.podInfo(), null);
    }
    activeQGrew.run();
    return true;
  }

  /** Sets or clears the pod's gating plugin; the gating plugin also counts as a rejector. */
  private void runPreEnqueuePlugins(QueuedPodInfo pInfo) {
    Pod pod = pInfo.pod();
    String profileName = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
    QueueProfile profile = profileName == null ? null : profiles.get(profileName);
    Status status = profile == null ? Status.SUCCESS : profile.runPreEnqueuePlugins(pod);
    if (status.isSuccess()) {
      pInfo.setGatingPlugin(null);
      return;
    }
    String plugin = status.plugin().isEmpty() ? "PreEnqueue" : status.plugin();
    pInfo.setGatingPlugin(plugin);
    pInfo.unschedulablePlugins().add(plugin);
    if (status.code() == Code.ERROR) {
      log.error("PreEnqueue plugin {} failed for pod {}: {}", plugin, pInfo.key(),
          status.message());
    } else {
      log.debug("Pod {} gated by PreEnqueue plugin {}: {}", pInfo.key(), plugin, status);
    }
  }

  /** Moves the pods whose hints accept the event out of unschedulablePods; records the event. */
  private void movePodsToActiveOrBackoffQueue(List<QueuedPodInfo> pods, ClusterEvent event,
      Object oldObj, Object newObj) {
    for (QueuedPodInfo pInfo : pods) {
      // Upstream's hotfix (kubernetes#124384): only the pod's own update can lift its scheduling
      // gates, so such pods skip the hint evaluation entirely.
      if (pInfo.isGated()
          && pInfo.unschedulablePlugins().contains(SchedulingQueue.SCHEDULING_GATES)) {
        continue;
      }
      QueueingStrategy strategy = hints.evaluate(pInfo, event, oldObj, newObj);
      if (strategy == QueueingStrategy.QUEUE_SKIP) {
        continue;
      }
      unschedulablePods.remove(pInfo.key());
      QueueName queue = requeue(pInfo, strategy, event.label());
      log.debug("Pod {} moved to {} on event {} (hint {})", pInfo.key(), queue, event.label(),
          strategy);
    }
    inFlight.recordIfAnyInFlight(event, oldObj, newObj);
  }

  /** Upstream's requeuePodViaQueueingHint; the pod must not be in any queue. */
  private QueueName requeue(QueuedPodInfo pInfo, QueueingStrategy strategy, String event) {
    if (strategy == QueueingStrategy.QUEUE_SKIP) {
      unschedulablePods.addOrUpdate(pInfo);
      listener.podMoved(QueueName.UNSCHEDULABLE, event);
      return QueueName.UNSCHEDULABLE;
    }
    if (strategy == QueueingStrategy.QUEUE_AFTER_BACKOFF
        && backoff.isBackingOff(pInfo, clock.instant())) {
      return moveToBackoffQ(pInfo, event) ? QueueName.BACKOFF : QueueName.GATED;
    }
    return moveToActiveQ(pInfo, event) ? QueueName.ACTIVE : QueueName.GATED;
  }

  /** Replays the events received while the pod was in flight against its rejectors' hints. */
  private QueueingStrategy strategyForInFlightPod(QueuedPodInfo pInfo, String uid) {
    List<InFlightPods.RecordedEvent> events = inFlight.eventsSincePopped(uid);
    if (events == null) {
      log.error("Pod {} came back but was not in flight; requeuing it after backoff",
          pInfo.key());
      return QueueingStrategy.QUEUE_AFTER_BACKOFF;
    }
    if (pInfo.unschedulablePlugins().isEmpty() && pInfo.pendingPlugins().isEmpty()) {
      return QueueingStrategy.QUEUE_AFTER_BACKOFF;
    }
    QueueingStrategy strategy = QueueingStrategy.QUEUE_SKIP;
    for (InFlightPods.RecordedEvent e : events) {
      QueueingStrategy s = hints.evaluate(pInfo, e.event(), e.oldObj(), e.newObj());
      if (s == QueueingStrategy.QUEUE_IMMEDIATELY) {
        return s;
      }
      if (s == QueueingStrategy.QUEUE_AFTER_BACKOFF) {
        strategy = s;
        if (pInfo.pendingPlugins().isEmpty()) {
          return s;
        }
      }
    }
    return strategy;
  }

  /**
   * Puts the pod into backoffQ and out of unschedulablePods. With popFromBackoffQ, PreEnqueue runs
   * first and a gated pod goes to unschedulablePods instead (false); pop() is woken, since it may
   * now serve the pod.
   */
  private boolean moveToBackoffQ(QueuedPodInfo pInfo, String event) {
    if (popFromBackoffQ) {
      runPreEnqueuePlugins(pInfo);
      if (pInfo.isGated()) {
        unschedulablePods.addOrUpdate(pInfo);
        listener.podMoved(QueueName.GATED, event);
        return false;
      }
    }
    unschedulablePods.remove(pInfo.key());
    backoffQ.add(pInfo);
    listener.podMoved(QueueName.BACKOFF, event);
    if (popFromBackoffQ) {
      activeQGrew.run();
    }
    return true;
  }
}
