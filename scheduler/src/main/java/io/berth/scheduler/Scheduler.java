package io.berth.scheduler;

import io.berth.framework.AssumedPod;
import io.berth.framework.ClusterEvent;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.FeatureGates;
import io.berth.framework.Framework;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.framework.runtime.PluginResults;
import io.berth.scheduler.explain.AttemptRecorder;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling loop, as kube-scheduler's {@code scheduleOne}: pop a pod, refresh the snapshot,
 * run the scheduling cycle (PreFilter → Filter → PostFilter, PreScore → Score, assume, Reserve,
 * Permit) on the loop's thread, then hand the binding cycle (WaitOnPermit → PreBind → Bind →
 * PostBind) to the binding pool. With NominatedNodeNameForExpectation (v1.36 default) the binding
 * cycle first publishes the chosen node as {@code status.nominatedNodeName} when it will take a
 * while (the pod waits in Permit or a PreBind plugin has work, per PreBindPreFlight); a failed
 * binding cycle clears it. Any failure unreserves, forgets the assumed pod, records
 * {@code FailedScheduling} and {@code PodScheduled=False}, and requeues it with the plugins that
 * rejected it; with SchedulerAsyncAPICalls that status patch (and the binding cycle's nomination)
 * is queued in the API dispatcher instead of written on the calling thread, so a failing attempt
 * costs the scheduling thread no API round trip. A pod of a complete gang opens a
 * {@link GroupSchedulingCycle} instead, which places
 * the whole group through the same algorithm and ends in the same binding and failure paths.
 * The loop thread owns the snapshot and the algorithm; the queue and the cache are
 * thread-safe and shared with the informer handlers and binding threads.
 */
public final class Scheduler {
  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

  private final SchedulingQueue queue;
  private final SchedulerCache cache;
  private final Snapshot snapshot;
  private final Map<String, Framework> profiles;
  private final SchedulingAlgorithm algorithm;
  private final PodStatusUpdater statusUpdater;
  private final Function<Pod, Optional<Pod>> informerPod;
  private final SchedulerMetrics metrics;
  private final InstantSource clock;
  private final ExecutorService bindingPool;
  private final GroupSchedulingCycle groupCycle;
  private volatile boolean stopped;
  private volatile Thread loopThread;
  // set once before start(); NOOP records nothing
  private volatile AttemptRecorder recorder = AttemptRecorder.NOOP;

  /**
   * @param snapshot the snapshot every profile's Handle reads (updated here every cycle)
   * @param informerPod the pod as the informer cache has it now, if it exists
   */
  public Scheduler(SchedulingQueue queue, SchedulerCache cache, Snapshot snapshot,
      Map<String, Framework> profiles, SchedulingAlgorithm algorithm, PodStatusUpdater statusUpdater,
      Function<Pod, Optional<Pod>> informerPod, SchedulerMetrics metrics, InstantSource clock,
      ExecutorService bindingPool) {
    this.queue = queue;
    this.cache = cache;
    this.snapshot = snapshot;
    this.profiles = Map.copyOf(profiles);
    this.algorithm = algorithm;
    this.statusUpdater = statusUpdater;
    this.informerPod = informerPod;
    this.metrics = metrics;
    this.clock = clock;
    this.bindingPool = bindingPool;
    this.groupCycle = new GroupSchedulingCycle(this, queue, cache, snapshot, algorithm, metrics);
  }

  /** Records each attempt with {@code value} (for /debug/explain); call before {@link #start()}. */
  public void recordAttempts(AttemptRecorder value) {
    this.recorder = Objects.requireNonNull(value, "value");
  }

  /** Whether this scheduler has a profile for the pod's {@code spec.schedulerName}. */
  public boolean responsibleFor(Pod pod) {
    return profiles.containsKey(schedulerName(pod));
  }

  static String schedulerName(Pod pod) {
    String name = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
    return name == null || name.isEmpty() ? "default-scheduler" : name;
  }

  /** Starts the loop on its own thread. */
  public synchronized void start() {
    if (loopThread != null) {
      return;
    }
    Thread t = new Thread(this::run, "scheduler-loop");
    t.setDaemon(true);
    loopThread = t;
    t.start();
  }

  /** Runs the loop on the calling thread until {@link #stop()} or the queue closes. */
  public void run() {
    while (!stopped) {
      try {
        if (!scheduleOne()) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // never let one pod stop the loop
        LOG.error("scheduling loop iteration failed", e);
      }
    }
  }

  /** Stops the loop and waits up to {@code timeout} for binding cycles in flight. */
  public boolean stop(Duration timeout) throws InterruptedException {
    stopped = true;
    Thread t = loopThread;
    if (t != null) {
      t.interrupt();
      t.join(Math.max(1, timeout.toMillis()));
    }
    bindingPool.shutdown();
    return bindingPool.awaitTermination(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
  }

  /** Schedules the next pod; returns false when the queue was closed. */
  public boolean scheduleOne() throws InterruptedException {
    Optional<QueuedPodInfo> next = queue.pop();
    if (next.isEmpty()) {
      return false;
    }
    QueuedPodInfo pInfo = next.get();
    Pod pod = pInfo.pod();
    Framework fw = profiles.get(schedulerName(pod));
    if (fw == null) {
      LOG.error("no profile for scheduler name {} of pod {}", schedulerName(pod), pInfo.key());
      queue.done(pod.getMetadata().getUid());
      return true;
    }
    if (skipPodSchedule(pod)) {
      queue.done(pod.getMetadata().getUid());
      return true;
    }
    long start = System.nanoTime();
    if (groupCycle.tryRun(fw, pInfo, start)) {
      return true;
    }
    CycleState state = new CycleState();
    AttemptRecorder rec = recorder;
    if (rec.enabled()) {
      PluginResults.install(state);
    }
    cache.updateSnapshot(snapshot);
    // the plugins' and the signers' PodInfo.of then find what the queue derived, not parse again
    PodInfo.remember(pInfo.podInfo());
    CycleOutcome outcome = schedulingCycle(fw, state, pInfo);
    if (!outcome.status.isSuccess()) {
      handleFailure(fw, pInfo, outcome.status, outcome.nominatingInfo, start);
      if (rec.enabled()) {
        rec.record(fw, state, pod, pInfo.attempts(), outcome.status, messageOf(outcome.status),
            null, outcome.nominatingInfo, FitStatus.fitErrorOf(outcome.status).isPresent()
                ? List.copyOf(snapshot.list()) : List.of());
      }
      return true;
    }
    bindAsync(fw, state, pInfo, outcome.assumedPod, outcome.result.suggestedHost(), start);
    return true;
  }

  /**
   * Hands an assumed, reserved and permitted pod to the binding pool (WaitOnPermit, PreBind, Bind,
   * PostBind); the per-pod cycle and {@link GroupSchedulingCycle}'s commit both end here.
   */
  void bindAsync(Framework fw, CycleState state, QueuedPodInfo pInfo, Pod assumed, String host,
      long start) {
    Pod pod = pInfo.pod();
    int attempts = pInfo.attempts();
    AttemptRecorder rec = recorder;
    if (rec.enabled() && fw.willWaitOnPermit(assumed)) {
      rec.record(fw, state, pod, attempts, Status.of(Code.WAIT), "waiting in Permit", host, null,
          List.of());
    }
    bindingPool.execute(() -> {
      boolean nominated = false;
      Status s;
      if (fw.featureGates().enabled(FeatureGates.NOMINATED_NODE_NAME_FOR_EXPECTATION)) {
        s = fw.runPreBindPreFlights(state, assumed, host);
        if (s.code() == Code.ERROR || s.isRejected()) {
          // PreBindPreFlight supports Success, Skip and Error only (the runtime turns any other
          // code into an Error). A pod parked in Permit must not stay parked.
          fw.rejectWaitingPod(pod.getMetadata().getUid());
          handleBindingCycleError(fw, state, pInfo, assumed, host, s, start, false);
          return;
        }
        if (s.isSuccess() || fw.willWaitOnPermit(assumed)) {
          nominated = publishExpectation(pInfo, host);
        }
      }
      s = bindingCycle(fw, state, pInfo, assumed, host, start);
      if (!s.isSuccess()) {
        handleBindingCycleError(fw, state, pInfo, assumed, host, s, start, nominated);
      } else {
        queue.done(pod.getMetadata().getUid());
        rec.record(fw, state, pod, attempts, Status.SUCCESS, "", host, null, List.of());
      }
    });
  }

  /**
   * Writes {@code status.nominatedNodeName = host} so that other components see where the pod is
   * about to be bound; returns whether it was written. A failed write is logged and the binding
   * cycle goes on, as upstream.
   */
  private boolean publishExpectation(QueuedPodInfo pInfo, String host) {
    try {
      return statusUpdater.nominate(pInfo.pod(), host);
    } catch (RuntimeException e) {
      LOG.error("failed to set the nominated node name {} of pod {} in the binding cycle", host,
          pInfo.key(), e);
      return false;
    }
  }

  boolean skipPodSchedule(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null ? skipPodSchedule(pod, false)
        : skipPodSchedule(pod, cache.isAssumedPod(pod));
  }

  /** As {@link #skipPodSchedule(Pod)}, told whether the cache holds the pod as assumed. */
  boolean skipPodSchedule(Pod pod, boolean assumed) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      LOG.debug("skip schedule deleting pod {}/{}", pod.getMetadata().getNamespace(),
          pod.getMetadata().getName());
      return true;
    }
    // an update of a pod already assumed (its binding is in flight) must not schedule it again
    return assumed;
  }

  private record CycleOutcome(Status status, ScheduleResult result, Pod assumedPod,
      NominatingInfo nominatingInfo) {
    static CycleOutcome failed(Status status, NominatingInfo nominatingInfo) {
      return new CycleOutcome(status, null, null, nominatingInfo);
    }
  }

  private CycleOutcome schedulingCycle(Framework fw, CycleState state, QueuedPodInfo pInfo) {
    Pod pod = pInfo.pod();
    Optional<String> parseError = pInfo.podInfo().parseError();
    if (parseError.isPresent()) {
      return CycleOutcome.failed(Status.error("invalid pod " + pInfo.key() + ": "
          + parseError.get()), NominatingInfo.NOOP);
    }
    ScheduleResult result;
    try {
      result = algorithm.schedulePod(fw, state, pod, snapshot, queue.schedulingCycle());
    } catch (SchedulingAlgorithm.NoNodesAvailableException e) {
      return CycleOutcome.failed(Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, e.getMessage()),
          NominatingInfo.NOOP);
    } catch (FitError fitError) {
      NominatingInfo nominating = NominatingInfo.NOOP;
      if (fw.hasPostFilterPlugins()) {
        var post = fw.runPostFilterPlugins(state, pod, fitError.diagnosis().nodeToStatus());
        fitError.diagnosis().setPostFilterMsg(post.status().message());
        if (post.status().code() == Code.ERROR) {
          LOG.error("PostFilter failed for pod {}: {}", pInfo.key(), post.status());
        }
        nominating = post.nominatingInfo();
      }
      return CycleOutcome.failed(new FitStatus(fitError).status(), nominating);
    } catch (StatusException e) {
      return CycleOutcome.failed(e.status(), NominatingInfo.NOOP);
    } catch (RuntimeException e) {
      return CycleOutcome.failed(Status.asError(e), NominatingInfo.NOOP);
    }
    String host = result.suggestedHost();
    Pod assumed = AssumedPod.on(pod, host);
    try {
      cache.assumePod(assumed);
    } catch (RuntimeException e) {
      return CycleOutcome.failed(Status.asError(e), NominatingInfo.override(""));
    }
    queue.deleteNominatedPodIfExists(assumed);
    Status reserve = fw.runReservePluginsReserve(state, assumed, host);
    if (!reserve.isSuccess()) {
      fw.runReservePluginsUnreserve(state, assumed, host);
      forget(assumed);
      return CycleOutcome.failed(rejectionOnHost(pod, host, reserve), NominatingInfo.override(""));
    }
    Status permit = fw.runPermitPlugins(state, assumed, host);
    if (!permit.isSuccess() && !permit.isWait()) {
      fw.runReservePluginsUnreserve(state, assumed, host);
      forget(assumed);
      return CycleOutcome.failed(rejectionOnHost(pod, host, permit), NominatingInfo.override(""));
    }
    return new CycleOutcome(Status.SUCCESS, result, assumed, NominatingInfo.NOOP);
  }

  /** A rejection on the chosen host as a FitError over one node, so hints see its plugin. */
  static Status rejectionOnHost(Pod pod, String host, Status s) {
    if (!s.isRejected()) {
      return s;
    }
    Diagnosis d = new Diagnosis();
    d.nodeToStatus().set(host, s);
    d.addPluginStatus(s);
    return new FitStatus(new FitError(pod, 1, d), s.code()).status();
  }

  private Status bindingCycle(Framework fw, CycleState state, QueuedPodInfo pInfo, Pod assumed,
      String host, long start) {
    Status s;
    try {
      s = fw.waitOnPermit(assumed);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.error("interrupted while waiting on permit");
    }
    if (!s.isSuccess()) {
      return rejectionOnHost(pInfo.pod(), host, s);
    }
    s = fw.runPreBindPlugins(state, assumed, host);
    if (!s.isSuccess()) {
      return rejectionOnHost(pInfo.pod(), host, s);
    }
    s = fw.runBindPlugins(state, assumed, host);
    if (s.isSkip()) {
      s = Status.error("no Bind plugin bound pod " + pInfo.key());
    }
    if (!s.isSuccess()) {
      return rejectionOnHost(pInfo.pod(), host, s);
    }
    try {
      cache.finishBinding(assumed);
    } catch (RuntimeException e) {
      LOG.warn("finishBinding for {} failed: {}", pInfo.key(), e.getMessage());
    }
    fw.eventRecorder().event(assumed, "Normal", "Scheduled", "Binding",
        "Successfully assigned " + pInfo.key() + " to " + host);
    long nanos = System.nanoTime() - start;
    metrics.attempt(SchedulerMetrics.SCHEDULED, fw.profileName(), nanos);
    Instant first = pInfo.initialAttemptTimestamp().orElse(pInfo.timestamp());
    metrics.podScheduled(pInfo.attempts(), Duration.between(first, clock.instant()));
    LOG.debug("bound pod {} to node {} (attempts {})", pInfo.key(), host, pInfo.attempts());
    fw.runPostBindPlugins(state, assumed, host);
    return Status.SUCCESS;
  }

  /**
   * Unreserves, forgets and requeues the pod, clearing its nomination; {@code nominated} says the
   * binding cycle wrote {@code host} as the nominated node, which must be cleared even if the
   * informer has not seen that write yet.
   */
  private void handleBindingCycleError(Framework fw, CycleState state, QueuedPodInfo pInfo,
      Pod assumed, String host, Status status, long start, boolean nominated) {
    recorder.record(fw, state, pInfo.pod(), pInfo.attempts(), status, messageOf(status), host,
        null, List.of());
    fw.runReservePluginsUnreserve(state, assumed, host);
    if (forget(assumed)) {
      // the assumed pod's resources are free again: treat it as an assigned pod's deletion
      String uid = assumed.getMetadata().getUid();
      queue.moveAllToActiveOrBackoffQueue(ClusterEvent.ASSIGNED_POD_DELETE, assumed, null,
          status.isRejected() ? p -> !Objects.equals(uid, p.getMetadata().getUid()) : null);
    }
    handleFailure(fw, pInfo, status, NominatingInfo.override(""), start,
        nominated ? host : null);
  }

  boolean forget(Pod assumed) {
    try {
      cache.forgetPod(assumed);
      return true;
    } catch (RuntimeException e) {
      LOG.error("scheduler cache forgetPod failed for {}/{}", assumed.getMetadata().getNamespace(),
          assumed.getMetadata().getName(), e);
      return false;
    }
  }

  /** The message a failure reports: the FitError's text when there is one. */
  private static String messageOf(Status status) {
    return FitStatus.fitErrorOf(status).map(FitError::getMessage).orElse(status.message());
  }

  /** upstream's handleSchedulingFailure. */
  void handleFailure(Framework fw, QueuedPodInfo pInfo, Status status,
      NominatingInfo nominating, long start) {
    handleFailure(fw, pInfo, status, nominating, start, null);
  }

  /** {@code writtenNomination}: a node this attempt wrote as nominated itself, or null. */
  private void handleFailure(Framework fw, QueuedPodInfo pInfo, Status status,
      NominatingInfo nominating, long start, String writtenNomination) {
    Pod pod = pInfo.pod();
    String uid = pod.getMetadata().getUid();
    boolean rejected = status.isRejected();
    String reason = rejected ? PodStatusUpdater.REASON_UNSCHEDULABLE
        : PodStatusUpdater.REASON_SCHEDULER_ERROR;
    metrics.attempt(rejected ? SchedulerMetrics.UNSCHEDULABLE : SchedulerMetrics.ERROR,
        fw.profileName(), System.nanoTime() - start);
    String message = status.message();
    Optional<FitError> fitError = FitStatus.fitErrorOf(status);
    pInfo.unschedulablePlugins().clear();
    pInfo.pendingPlugins().clear();
    if (fitError.isPresent()) {
      pInfo.unschedulablePlugins().addAll(fitError.get().diagnosis().unschedulablePlugins());
      pInfo.pendingPlugins().addAll(fitError.get().diagnosis().pendingPlugins());
      message = fitError.get().getMessage();
      LOG.debug("unable to schedule pod {}; no fit; waiting: {}", pInfo.key(), message);
    } else if (status.code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
      LOG.debug("unable to schedule pod {}: {}", pInfo.key(), message);
    } else {
      LOG.warn("error scheduling pod {}; retrying: {}", pInfo.key(), message);
    }
    Optional<Pod> cached = informerPod.apply(pod);
    boolean requeued = false;
    if (cached.isEmpty()) {
      LOG.debug("pod {} no longer exists in the informer cache", pInfo.key());
    } else if (cached.get().getSpec() != null && cached.get().getSpec().getNodeName() != null
        && !cached.get().getSpec().getNodeName().isEmpty()) {
      LOG.info("pod {} has been assigned to node {}; not requeued", pInfo.key(),
          cached.get().getSpec().getNodeName());
    } else {
      pInfo.setPodInfo(PodInfo.of(cached.get()));
      try {
        queue.addUnschedulableIfNotPresent(pInfo, queue.schedulingCycle());
        requeued = true;
      } catch (RuntimeException e) {
        LOG.error("requeueing pod {} failed", pInfo.key(), e);
      }
    }
    if (!requeued) {
      queue.done(uid);
    }
    if (nominating != null && nominating.mode() == NominatingInfo.Mode.OVERRIDE) {
      queue.addNominatedPod(pInfo.podInfo(), nominating);
    }
    fw.eventRecorder().event(pod, "Warning", "FailedScheduling", "Scheduling", EventNotes.truncate(message));
    if (cached.isPresent()) {
      try {
        String nominated = nominating != null && nominating.mode() == NominatingInfo.Mode.OVERRIDE
            ? nominating.nominatedNodeName() : null;
        Pod current = writtenNomination == null ? cached.get()
            : PodStatusUpdater.withNominatedNodeNameIfUnset(cached.get(), writtenNomination);
        // synchronous, or (SchedulerAsyncAPICalls) queued: the dispatcher merges it with a patch
        // still pending for the pod and skips it if the pod already shows it
        statusUpdater.update(current, reason, message, nominated);
      } catch (RuntimeException e) {
        LOG.warn("updating the PodScheduled condition of {} failed: {}", pInfo.key(),
            e.getMessage());
      }
    }
  }
}
