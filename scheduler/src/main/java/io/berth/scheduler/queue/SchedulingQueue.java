package io.berth.scheduler.queue;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.EventResource;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.PodNominator;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-scheduler's scheduling queue (1.36, SchedulerQueueingHints on): the pods waiting to be
 * scheduled, in three parts. activeQ, a heap in QueueSort order, is what {@link #pop()} serves;
 * backoffQ, heaps by backoff expiry, holds pods that may be retried once their backoff ends (with
 * SchedulerPopFromBackoffQ, the default, {@code pop()} serves its head when activeQ is empty);
 * unschedulablePods holds pods whose last attempt was rejected (until an event their rejecting
 * plugins' queueing hints accept, or the unschedulable timeout) and pods gated by PreEnqueue.
 * It also tracks the pods being scheduled ("in flight") with the events received meanwhile, and
 * implements the {@link PodNominator}.
 *
 * <p>Thread-safe. Callers: informer event handlers (add, update, delete, moveAll, assignedPod*),
 * the scheduling loop (pop, addUnschedulableIfNotPresent, done, addNominatedPod), plugins
 * (activate, nominatedPodsForNode) and its own flush thread ({@link #start()}). Every pod
 * {@code pop()} returns must end its attempt with {@code addUnschedulableIfNotPresent} or
 * {@code done(uid)} (a second {@code done} is harmless); until then the returned
 * {@link QueuedPodInfo} belongs to the caller, afterwards to the queue. Pods passed in are shared
 * with the informer cache and never mutated. QueueSort, PreEnqueue and queueing hints run under
 * the queue's lock.
 */
public final class SchedulingQueue implements PodNominator, AutoCloseable {
  public static final Duration DEFAULT_POD_INITIAL_BACKOFF = Duration.ofSeconds(1);
  public static final Duration DEFAULT_POD_MAX_BACKOFF = Duration.ofSeconds(10);
  public static final Duration DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION =
      Duration.ofMinutes(5);
  /** The PreEnqueue plugin for {@code spec.schedulingGates}; only the pod's own update ungates. */
  static final String SCHEDULING_GATES = "SchedulingGates";
  static final ClusterEvent ASSIGNED_POD_ADD =
      new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD);
  static final ClusterEvent FORCE_ACTIVATE =
      new ClusterEvent(EventResource.WILDCARD, ActionType.ALL, QueueListener.FORCE_ACTIVATE);

  private static final Logger log = LoggerFactory.getLogger(SchedulingQueue.class);

  // Immutable: the clock and the SchedulerPopFromBackoffQ gate.
  private final InstantSource clock;
  private final boolean popFromBackoffQ;
  // Locking: `queues` and the fields below are guarded by `lock` (activeQNotEmpty is its
  // condition); the nominator inside `queues` has its own leaf lock, taken under `lock` or alone.
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition activeQNotEmpty = lock.newCondition();
  private final PodQueues queues;
  private boolean closed;
  private ScheduledExecutorService flusher;

  private SchedulingQueue(Builder b) {
    this.clock = b.clock;
    this.popFromBackoffQ = b.popFromBackoffQ;
    this.queues = new PodQueues(b.sort, b.profiles,
        new PodBackoff(b.podInitialBackoff, b.podMaxBackoff, b.popFromBackoffQ),
        b.podMaxInUnschedulablePodsDuration, b.clock, b.listener, activeQNotEmpty::signalAll,
        b.popFromBackoffQ);
  }

  /** A builder with upstream's defaults (1 s, 10 s, 5 min, the system clock). */
  public static Builder builder(QueueSortPlugin sort, Map<String, QueueProfile> profiles) {
    return new Builder(sort, profiles);
  }

  /**
   * Adds a new unassigned pod: a pod gated by PreEnqueue waits in unschedulablePods, others go to
   * activeQ; {@code status.nominatedNodeName} nominates it.
   */
  public void add(Pod pod) {
    PodInfo podInfo = PodInfo.of(pod);
    withLock(() -> queues.add(podInfo));
  }

  /**
   * Blocks until activeQ has a pod and returns the first one, or empty once the queue is closed
   * and activeQ is empty. With SchedulerPopFromBackoffQ an empty activeQ serves backoffQ's head
   * (backoff not yet over; never a pod backing off after an error) instead of blocking. Counts the
   * attempt; the pod is in flight until {@link #done(String)} or
   * {@link #addUnschedulableIfNotPresent}.
   */
  public Optional<QueuedPodInfo> pop() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        QueuedPodInfo pInfo = queues.pop();
        if (pInfo != null) {
          return Optional.of(pInfo);
        }
        if (closed) {
          return Optional.empty();
        }
        activeQNotEmpty.await();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Pops the pod with this namespace and name out of activeQ or backoffQ, as upstream's
   * {@code PopSpecificPod}, for a group scheduling cycle: it counts as an attempt and is in flight
   * until {@link #done(String)} or {@link #addUnschedulableIfNotPresent}, like a pod from
   * {@link #pop()}. Empty when the pod is in neither queue (gated, unschedulable or in flight).
   */
  public Optional<QueuedPodInfo> popSpecificPod(String namespace, String name) {
    lock.lock();
    try {
      return Optional.ofNullable(queues.popSpecific(namespace + "/" + name));
    } finally {
      lock.unlock();
    }
  }

  /**
   * As {@link #popSpecificPod} for each of {@code pods} in order, in one hold of the queue's lock
   * (a group scheduling cycle takes its members together): the pods popped, in the order given,
   * each in flight and counted as an attempt; pods in neither activeQ nor backoffQ are left out.
   */
  public List<QueuedPodInfo> popSpecificPods(Collection<Pod> pods) {
    List<QueuedPodInfo> out = new ArrayList<>(pods.size());
    lock.lock();
    try {
      for (Pod p : pods) {
        QueuedPodInfo pInfo = queues.popSpecific(InFlightPods.key(p));
        if (pInfo != null) {
          out.add(pInfo);
        }
      }
    } finally {
      lock.unlock();
    }
    return out;
  }

  /**
   * Whether {@link #pop()} would return a pod now instead of blocking: activeQ has one, or (with
   * SchedulerPopFromBackoffQ) backoffQ has one it may serve. For a caller that is the only one
   * popping (berth-replay drives the loop itself); informational for anyone else.
   */
  public boolean hasPoppable() {
    lock.lock();
    try {
      return queues.hasPoppable();
    } finally {
      lock.unlock();
    }
  }

  /** The number of pods popped so far. */
  public long schedulingCycle() {
    lock.lock();
    try {
      return queues.schedulingCycle();
    } finally {
      lock.unlock();
    }
  }

  /** Ends the scheduling attempt of the pod with this UID; unknown UIDs are ignored. */
  public void done(String podUid) {
    withLock(() -> queues.inFlight.done(podUid));
  }

  /**
   * Puts a pod back after a failed attempt and ends the attempt. The events received while it was
   * in flight are replayed against its rejectors' hints: if one says QUEUE it goes to backoffQ
   * (activeQ once its backoff is over, or right away for a Pending rejector), otherwise to
   * unschedulablePods; a pod without rejectors (an error) goes after backoff. Its timestamp
   * becomes now. A pod deleted while in flight is dropped.
   *
   * @throws IllegalStateException if the pod is already in one of the queues (the attempt still
   *     ends)
   */
  public void addUnschedulableIfNotPresent(QueuedPodInfo pInfo, long podSchedulingCycle) {
    withLock(() -> queues.addUnschedulableIfNotPresent(pInfo, podSchedulingCycle));
  }

  /**
   * Moves every unschedulable pod (passing {@code preCheck}, when not null) whose rejectors'
   * hints accept the event to backoffQ or activeQ, and records the event for in-flight pods.
   * Wildcard events (UnschedulableTimeout, flushes) move every pod.
   */
  public void moveAllToActiveOrBackoffQueue(ClusterEvent event, Object oldObj, Object newObj,
      Predicate<Pod> preCheck) {
    withLock(() -> queues.moveAll(event, oldObj, newObj, preCheck));
  }

  /** An assigned pod appeared (AssignedPodAdd). */
  public void assignedPodAdded(Pod pod) {
    moveAllToActiveOrBackoffQueue(ASSIGNED_POD_ADD, null, pod, null);
  }

  /** An assigned pod changed; {@code event} says how. */
  public void assignedPodUpdated(Pod oldPod, Pod newPod, ClusterEvent event) {
    moveAllToActiveOrBackoffQueue(event, oldPod, newPod, null);
  }

  /**
   * An unassigned pod changed. In flight: the change is recorded for its attempt. In activeQ or
   * backoffQ: replaced in place. In unschedulablePods: a change of status, resourceVersion,
   * managedFields or finalizers only replaces it; any other change re-runs PreEnqueue for a gated
   * pod and otherwise moves it to backoffQ (still backing off) or activeQ. Unknown: added.
   */
  public void update(Pod oldPod, Pod newPod) {
    PodInfo newInfo = PodInfo.of(newPod);
    withLock(() -> queues.update(oldPod, newPod, newInfo));
  }

  /** Removes the pod from every queue and the nominator; a running attempt will not requeue it. */
  public void delete(Pod pod) {
    withLock(() -> queues.delete(pod));
  }

  /**
   * Moves the given pods from unschedulablePods or backoffQ to activeQ (PreEnqueue still applies).
   * For a pod in flight, a ForceActivate event is recorded so that its attempt requeues it.
   */
  public void activate(Collection<Pod> pods) {
    withLock(() -> queues.activate(pods));
  }

  /** Moves the pods whose backoff has expired from backoffQ to activeQ. */
  public void flushBackoffQCompleted() {
    withLock(queues::flushBackoffQCompleted);
  }

  /** Retries pods kept in unschedulablePods longer than the maximum, as UnschedulableTimeout. */
  public void flushUnschedulablePodsLeftover() {
    withLock(queues::flushUnschedulablePodsLeftover);
  }

  /**
   * Starts the daemon thread flushing backoffQ every second (with SchedulerPopFromBackoffQ at
   * whole seconds of the queue's clock, so that each flush moves whole ordering windows) and
   * leftovers every 30 seconds.
   */
  public void start() {
    lock.lock();
    try {
      if (flusher != null || closed) {
        return;
      }
      ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "scheduling-queue-flush");
        t.setDaemon(true);
        return t;
      });
      if (popFromBackoffQ) {
        long toNextWindow = 1_000_000_000L - clock.instant().getNano();
        exec.scheduleAtFixedRate(guarded(this::flushBackoffQCompleted), toNextWindow,
            PodBackoff.ORDERING_WINDOW.toNanos(), TimeUnit.NANOSECONDS);
      } else {
        exec.scheduleWithFixedDelay(guarded(this::flushBackoffQCompleted), 0, 1,
            TimeUnit.SECONDS);
      }
      exec.scheduleWithFixedDelay(guarded(this::flushUnschedulablePodsLeftover), 0, 30,
          TimeUnit.SECONDS);
      flusher = exec;
    } finally {
      lock.unlock();
    }
  }

  /** Stops the flush thread and wakes blocked {@link #pop()} calls. Idempotent. */
  @Override
  public void close() {
    ScheduledExecutorService exec;
    lock.lock();
    try {
      closed = true;
      exec = flusher;
      flusher = null;
      activeQNotEmpty.signalAll();
    } finally {
      lock.unlock();
    }
    if (exec != null) {
      exec.shutdownNow();
    }
  }

  /**
   * Nominates the pod to a node: OVERRIDE with an empty name clears the nomination, NOOP uses the
   * pod's {@code status.nominatedNodeName}. Ignored for a pod deleted while being scheduled.
   */
  public void addNominatedPod(PodInfo podInfo, NominatingInfo nominatingInfo) {
    withLock(() -> queues.addNominatedPod(podInfo, nominatingInfo));
  }

  public void deleteNominatedPodIfExists(Pod pod) {
    queues.nominator.delete(pod);
  }

  /**
   * As {@link #deleteNominatedPodIfExists} for each of {@code pods}, in one hold of the
   * nominator's lock (a group scheduling cycle's commit). Never takes the queue's lock.
   */
  public void deleteNominatedPodsIfExist(Collection<Pod> pods) {
    queues.nominator.deleteAll(pods);
  }

  /** The pods nominated to the node, with the PodInfo the queue holds now. Never takes `lock`. */
  @Override
  public List<PodInfo> nominatedPodsForNode(String nodeName) {
    return queues.nominator.forNode(nodeName);
  }

  /** The node the pod with this UID is nominated to. */
  public Optional<String> nominatedNodeName(String podUid) {
    return queues.nominator.nodeOf(podUid);
  }

  public int activeSize() {
    return locked(queues.activeQ::size);
  }

  public int backoffSize() {
    return locked(queues.backoffQ::size);
  }

  /** Pods in unschedulablePods that are not gated. */
  public int unschedulableSize() {
    return locked(queues.unschedulablePods::unschedulableCount);
  }

  /** Pods kept out of activeQ by a PreEnqueue plugin. */
  public int gatedSize() {
    return locked(queues.unschedulablePods::gatedCount);
  }

  public int inFlightSize() {
    return locked(queues.inFlight::size);
  }

  /** Events retained for in-flight pods (upstream's scheduler_inflight_events). */
  public int inFlightEventCount() {
    return locked(queues.inFlight::eventCount);
  }

  /** Copies of every pod in activeQ, backoffQ and unschedulablePods (not in-flight ones). */
  public List<QueuedPodInfo> pendingPods() {
    lock.lock();
    try {
      List<QueuedPodInfo> out = new ArrayList<>();
      queues.activeQ.list().forEach(p -> out.add(copyOf(p)));
      queues.backoffQ.list().forEach(p -> out.add(copyOf(p)));
      queues.unschedulablePods.list().forEach(p -> out.add(copyOf(p)));
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** The pods being scheduled now. */
  public List<Pod> inFlightPods() {
    lock.lock();
    try {
      return queues.inFlight.pods();
    } finally {
      lock.unlock();
    }
  }

  /** A copy of the queued pod with this namespace and name, in any queue (not in flight). */
  public Optional<QueuedPodInfo> getPod(String namespace, String name) {
    lock.lock();
    try {
      QueuedPodInfo p = queues.find(namespace + "/" + name);
      return p == null ? Optional.empty() : Optional.of(copyOf(p));
    } finally {
      lock.unlock();
    }
  }

  /** Which queue holds the pod with this namespace and name; empty if none (or in flight). */
  public Optional<QueueName> queueOf(String namespace, String name) {
    lock.lock();
    try {
      return Optional.ofNullable(queues.queueOf(namespace + "/" + name));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Which queue holds each of {@code pods}, as {@link #queueOf} for each of them in one hold of
   * the queue's lock: by {@code namespace/name}; a pod in no queue (in flight, or unknown) is
   * absent.
   */
  public Map<String, QueueName> queuesOf(Collection<Pod> pods) {
    Map<String, QueueName> out = new HashMap<>(pods.size() * 2);
    lock.lock();
    try {
      for (Pod p : pods) {
        String key = InFlightPods.key(p);
        QueueName where = queues.queueOf(key);
        if (where != null) {
          out.put(key, where);
        }
      }
    } finally {
      lock.unlock();
    }
    return out;
  }

  /** Upstream's debug summary: "activeQ:n; backoffQ:n; unschedulablePods:n". */
  public String pendingPodsSummary() {
    lock.lock();
    try {
      return "activeQ:" + queues.activeQ.size() + "; backoffQ:" + queues.backoffQ.size()
          + "; unschedulablePods:" + queues.unschedulablePods.size();
    } finally {
      lock.unlock();
    }
  }

  /** When the pod's backoff ends: its timestamp plus the backoff for its attempts. */
  public Instant backoffExpiry(QueuedPodInfo pInfo) {
    return queues.backoff().expiry(pInfo);
  }

  private void withLock(Runnable action) {
    lock.lock();
    try {
      action.run();
    } finally {
      lock.unlock();
    }
  }

  private int locked(IntSupplier read) {
    lock.lock();
    try {
      return read.getAsInt();
    } finally {
      lock.unlock();
    }
  }

  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        log.error("Scheduling queue flush failed", e);
      }
    };
  }

  private static QueuedPodInfo copyOf(QueuedPodInfo p) {
    QueuedPodInfo c = new QueuedPodInfo(p.podInfo(), p.timestamp());
    for (int i = 0; i < p.attempts(); i++) {
      c.incrementAttempts();
    }
    p.initialAttemptTimestamp().ifPresent(c::setInitialAttemptTimestamp);
    c.unschedulablePlugins().addAll(p.unschedulablePlugins());
    c.pendingPlugins().addAll(p.pendingPlugins());
    c.setGatingPlugin(p.gatingPlugin().orElse(null));
    return c;
  }

  /**
   * Builds a {@link SchedulingQueue}. Not thread-safe; use from one thread, once.
   */
  public static final class Builder {
    private final QueueSortPlugin sort;
    private final Map<String, QueueProfile> profiles;
    private Duration podInitialBackoff = DEFAULT_POD_INITIAL_BACKOFF;
    private Duration podMaxBackoff = DEFAULT_POD_MAX_BACKOFF;
    private Duration podMaxInUnschedulablePodsDuration =
        DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION;
    private InstantSource clock = InstantSource.system();
    private QueueListener listener = QueueListener.NOOP;
    private boolean popFromBackoffQ = true;

    private Builder(QueueSortPlugin sort, Map<String, QueueProfile> profiles) {
      this.sort = Objects.requireNonNull(sort, "sort");
      this.profiles = Objects.requireNonNull(profiles, "profiles");
    }

    public Builder podInitialBackoff(Duration d) {
      this.podInitialBackoff = Objects.requireNonNull(d);
      return this;
    }

    public Builder podMaxBackoff(Duration d) {
      this.podMaxBackoff = Objects.requireNonNull(d);
      return this;
    }

    public Builder podMaxInUnschedulablePodsDuration(Duration d) {
      this.podMaxInUnschedulablePodsDuration = Objects.requireNonNull(d);
      return this;
    }

    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    /**
     * The SchedulerPopFromBackoffQ feature gate (KEP-5142); on by default, as v1.36. Off: the
     * v1.32 queue (pop waits for activeQ, one backoff heap, PreEnqueue when backoff completes).
     */
    public Builder popFromBackoffQ(boolean enabled) {
      this.popFromBackoffQ = enabled;
      return this;
    }

    /** Told about every move into a queue (for scheduler_queue_incoming_pods_total). */
    public Builder listener(QueueListener listener) {
      this.listener = Objects.requireNonNull(listener);
      return this;
    }

    public SchedulingQueue build() {
      return new SchedulingQueue(this);
    }
  }
}
