package io.berth.scheduler.explain;

import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.NodeInfo;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodRequests;
import io.berth.framework.PreemptionReport;
import io.berth.framework.Resource;
import io.berth.framework.Status;
import io.berth.framework.runtime.PluginResults;
import io.berth.scheduler.explain.Attempt.Outcome;
import io.berth.scheduler.explain.Attempt.PluginVerdict;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the scheduler's attempts into {@link Attempt}s off the hot path. The scheduling (or
 * binding) thread calls {@link #record} with references it no longer changes (the attempt's
 * {@link PluginResults}, the Filter statuses, the snapshot's NodeInfos, which the cache never
 * mutates once in a snapshot); one recorder thread builds the immutable attempt, computes what
 * rejected nodes lack, stores it in the {@link ExplainStore} and hands it to the listeners (the
 * result annotations). The hand-over queue is bounded ({@link #QUEUE_CAPACITY}): when the
 * recorder falls behind, attempts are dropped and counted rather than slowing scheduling. The
 * recorder thread does not wait on the queue (which would wake it for every attempt, a context
 * switch per pod on a busy scheduler): it drains whatever is queued, then sleeps
 * {@link #DRAIN_INTERVAL}, so an attempt is readable at most about that long after it ended.
 *
 * <p>Thread-safe: {@link #record} may be called from any thread (the queue is a concurrent,
 * bounded one); listeners run on the recorder thread only. {@link #NOOP} records nothing and lets
 * the scheduler skip installing {@link PluginResults} altogether.
 */
public final class AttemptRecorder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AttemptRecorder.class);
  /** Attempts waiting for the recorder thread beyond this many are dropped. */
  public static final int QUEUE_CAPACITY = 4096;
  /** How long the recorder thread sleeps when it found nothing to record. */
  public static final java.time.Duration DRAIN_INTERVAL = java.time.Duration.ofMillis(50);

  /** Records nothing. */
  public static final AttemptRecorder NOOP = new AttemptRecorder();

  private final ExplainStore store;
  private final InstantSource clock;
  // null for NOOP; offered by any thread, drained by the recorder thread only
  private final ArrayBlockingQueue<Runnable> queue;
  private final Thread thread;
  private final List<Consumer<Attempt>> listeners;
  private final AtomicLong dropped = new AtomicLong();
  // counts tasks taken off the queue and finished, for flush()
  private final AtomicLong submitted = new AtomicLong();
  private final AtomicLong finished = new AtomicLong();
  private volatile boolean closed;

  private AttemptRecorder() {
    this.store = new ExplainStore(0, 1);
    this.clock = InstantSource.system();
    this.queue = null;
    this.thread = null;
    this.listeners = List.of();
  }

  /**
   * @param store where attempts go; a disabled store ({@link ExplainStore#enabled()} false)
   *     records only for the listeners
   * @param clock the attempts' time
   * @param listeners called with each attempt on the recorder thread
   */
  public AttemptRecorder(ExplainStore store, InstantSource clock, List<Consumer<Attempt>> listeners) {
    this.store = store;
    this.clock = clock;
    this.listeners = List.copyOf(listeners);
    this.queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    this.thread = new Thread(this::drainLoop, "explain-recorder");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
    thread.start();
  }

  private void drainLoop() {
    List<Runnable> batch = new ArrayList<>();
    while (!closed) {
      batch.clear();
      queue.drainTo(batch);
      if (batch.isEmpty()) {
        try {
          Thread.sleep(DRAIN_INTERVAL.toMillis());
        } catch (InterruptedException e) {
          return;
        }
        continue;
      }
      for (Runnable task : batch) {
        try {
          task.run();
        } finally {
          finished.incrementAndGet();
        }
      }
    }
  }

  /** Whether attempts are recorded at all (so the scheduler installs {@link PluginResults}). */
  public boolean enabled() {
    return queue != null;
  }

  public ExplainStore store() {
    return store;
  }

  /** Attempts dropped because the recorder fell behind. */
  public long dropped() {
    return dropped.get();
  }

  /**
   * Records one attempt. Cheap on the calling thread: it captures references and queues the work.
   *
   * @param fw the profile that ran it
   * @param state the attempt's cycle state (holding {@link PluginResults})
   * @param pod the pod as popped
   * @param attempt the pod's attempt number
   * @param status how it ended: Success (bound), Wait (parked in Permit), or the failure
   * @param message the message the scheduler reports (FitError text on unschedulable)
   * @param selectedNode the node it was assumed on, or null
   * @param nominating PostFilter's nomination, or null
   * @param nodes the snapshot's nodes when Filter found none feasible (for what they lack), else
   *     an empty list
   */
  public void record(Framework fw, CycleState state, Pod pod, int attempt, Status status,
      String message, String selectedNode, NominatingInfo nominating, List<NodeInfo> nodes) {
    if (queue == null || closed) {
      return;
    }
    PluginResults results = PluginResults.of(state);
    if (results == null) {
      return;
    }
    Instant time = clock.instant();
    List<String> filterPlugins = fw.listPlugins().getOrDefault("Filter", List.of());
    Set<String> skipped = state.skipFilterPlugins();
    Optional<PreemptionReport> preemption = state.read(PreemptionReport.KEY,
        PreemptionReport.class);
    Runnable task = () -> {
      try {
        Attempt a = build(fw.profileName(), pod, attempt, status, message, selectedNode,
            nominating, results, filterPlugins, skipped, preemption, nodes, time);
        store.record(a);
        for (Consumer<Attempt> l : listeners) {
          l.accept(a);
        }
      } catch (RuntimeException e) {
        LOG.warn("recording the scheduling attempt of pod {}/{} failed",
            pod.getMetadata().getNamespace(), pod.getMetadata().getName(), e);
      }
    };
    if (queue.offer(task)) {
      submitted.incrementAndGet();
    } else {
      dropped.incrementAndGet();
    }
  }

  /** Waits until every attempt queued so far is recorded (tests, shutdown). */
  public void flush() throws InterruptedException {
    if (queue == null) {
      return;
    }
    long target = submitted.get();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (finished.get() < target && System.nanoTime() < deadline && thread.isAlive()) {
      Thread.sleep(5);
    }
  }

  /** Stops the recorder thread; attempts still queued are dropped. */
  @Override
  public void close() {
    if (queue != null) {
      closed = true;
      thread.interrupt();
    }
  }

  /**
   * Builds an attempt at once on the calling thread (the simulation's use); arguments as
   * {@link #record}.
   */
  public static Attempt toAttempt(Framework fw, CycleState state, Pod pod, int attempt,
      Status status, String message, String selectedNode, NominatingInfo nominating,
      List<NodeInfo> nodes, Instant time) {
    PluginResults results = PluginResults.of(state);
    if (results == null) {
      throw new IllegalArgumentException("the cycle state has no PluginResults installed");
    }
    return build(fw.profileName(), pod, attempt, status, message, selectedNode, nominating,
        results, fw.listPlugins().getOrDefault("Filter", List.of()), state.skipFilterPlugins(),
        state.read(PreemptionReport.KEY, PreemptionReport.class), nodes, time);
  }

  static Attempt build(String profile, Pod pod, int attemptNumber, Status status, String message,
      String selectedNode, NominatingInfo nominating, PluginResults results,
      List<String> filterPlugins, Set<String> skipped, Optional<PreemptionReport> preemption,
      List<NodeInfo> nodes, Instant time) {
    Outcome outcome = status.isSuccess() ? Outcome.SCHEDULED
        : status.isWait() ? Outcome.WAITING_ON_PERMIT
        : status.isRejected() ? Outcome.UNSCHEDULABLE : Outcome.ERROR;
    List<String> ranFilters = filterPlugins.stream().filter(p -> !skipped.contains(p)).toList();
    Optional<PluginResults.Scores> scored = results.scores();
    FilterTable filter = results.filtered()
        .map(f -> filterTable(pod, f, ranFilters, nodes, scored.orElse(null)))
        .orElse(FilterTable.EMPTY);
    ScoreTable scores = scored.map(AttemptRecorder::scoreTable).orElse(ScoreTable.EMPTY);
    Optional<String> nominated = nominating != null
        && nominating.mode() == NominatingInfo.Mode.OVERRIDE
        && !nominating.nominatedNodeName().isEmpty()
        ? Optional.of(nominating.nominatedNodeName()) : Optional.empty();
    Optional<Attempt.Preemption> pre = preemption.map(r -> new Attempt.Preemption(
        r.candidates().stream().map(c -> new Attempt.Candidate(c.node(), c.victims(),
            c.pdbViolations())).toList(), r.chosen(), r.victims()));
    return new Attempt(pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
        pod.getMetadata().getUid(), profile, time, attemptNumber, outcome,
        outcome == Outcome.SCHEDULED ? "" : message, verdicts(results, "PreFilter"), filter,
        verdicts(results, "PreScore"), scores, Optional.ofNullable(selectedNode), nominated,
        verdicts(results, "PostFilter"), pre, verdicts(results, "Reserve"),
        verdicts(results, "Permit"), verdicts(results, "PreBind"), verdicts(results, "Bind"));
  }

  private static List<PluginVerdict> verdicts(PluginResults results, String point) {
    List<PluginVerdict> out = new ArrayList<>();
    for (PluginResults.Entry e : results.entries(point)) {
      out.add(new PluginVerdict(e.plugin(), e.status().code().displayName(), e.status().message(),
          e.nodeNames().map(s -> List.copyOf(new TreeSet<>(s)))));
    }
    return out;
  }

  private static FilterTable filterTable(Pod pod, PluginResults.Filtered f, List<String> plugins,
      List<NodeInfo> nodes, PluginResults.Scores scored) {
    List<String> feasible = feasibleNames(f.feasible(), scored);
    Map<String, NodeInfo> byName = null;
    Resource request = null;
    List<NodeVerdict> rejected = new ArrayList<>(f.rejected().size());
    // plugins share one status per reason across nodes: join its reasons once
    Map<Status, String> reasons = new java.util.IdentityHashMap<>();
    for (Map.Entry<String, Status> e : f.rejected().statuses().entrySet()) {
      Status s = e.getValue();
      String reason = reasons.computeIfAbsent(s, st -> String.join(", ", st.reasons()));
      Optional<String> lacks = Optional.empty();
      double share = 0;
      if (s.reasons().stream().anyMatch(r -> r.startsWith("Insufficient ")
          || r.equals("Too many pods")) && !nodes.isEmpty()) {
        if (byName == null) {
          byName = new HashMap<>();
          for (NodeInfo n : nodes) {
            byName.put(n.nodeName(), n);
          }
          request = requestOf(pod);
        }
        NodeInfo node = byName.get(e.getKey());
        if (node != null && request != null) {
          Shortfalls.Shortfall sf = Shortfalls.of(request, node, s.reasons());
          if (!sf.text().isEmpty()) {
            lacks = Optional.of(sf.text());
            share = sf.share();
          }
        }
      }
      rejected.add(new NodeVerdict(e.getKey(), false, s.plugin(), s.code().displayName(),
          reason, lacks, share));
    }
    rejected.sort(Comparator.comparing(NodeVerdict::node));
    Status absent = f.rejected().absentNodesStatus();
    Optional<NodeVerdict> others = absent.reasons().isEmpty() ? Optional.empty()
        : Optional.of(new NodeVerdict("*", false, absent.plugin(), absent.code().displayName(),
            String.join(", ", absent.reasons()), Optional.empty(), 0));
    return new FilterTable(plugins, f.totalNodes(), feasible, rejected, others);
  }

  private static Resource requestOf(Pod pod) {
    try {
      return PodRequests.of(pod);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The feasible nodes' names: the Score phase's names when it scored exactly these nodes (the
   * common case: comparing references does not touch the nodes), else read from the nodes.
   */
  static List<String> feasibleNames(List<NodeInfo> feasible, PluginResults.Scores scored) {
    if (scored != null && scored.nodes().size() == feasible.size()) {
      boolean same = true;
      for (int i = 0; i < feasible.size() && same; i++) {
        same = scored.nodes().get(i) == feasible.get(i);
      }
      if (same) {
        return Arrays.asList(scored.nodeNames());
      }
    }
    String[] names = new String[feasible.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = feasible.get(i).nodeName();
    }
    return Arrays.asList(names);
  }

  private static ScoreTable scoreTable(PluginResults.Scores s) {
    return new ScoreTable(s.plugins(), s.weights(), Arrays.asList(s.nodeNames()), s.raw(),
        s.normalized());
  }
}
