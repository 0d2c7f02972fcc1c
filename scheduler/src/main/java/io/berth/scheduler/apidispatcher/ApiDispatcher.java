package io.berth.scheduler.apidispatcher;

import io.berth.framework.ApiCacher.Outcome;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queues API calls and runs them on its own threads, as upstream's {@code APIDispatcher}
 * (feature gate {@code SchedulerAsyncAPICalls}): {@code parallelism} threads each take the oldest
 * pending object's call from the {@link CallQueue}, run it, record
 * {@code scheduler_async_api_call_execution_*}, finalize it in the queue (so the object's next
 * call may run) and only then complete it. Calls for one object run one at a time in the order
 * they were added, after the merging and skipping the queue does. Thread-safe; {@link #start()}
 * and {@link #close(Duration)} are called once each, by the scheduler's assembly.
 */
public final class ApiDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ApiDispatcher.class);
  static final String SUCCESS = "success";
  static final String ERROR = "error";

  private final CallQueue queue;
  private final int parallelism;
  private final ApiDispatcherMetrics metrics;
  private final LongSupplier nanoTime;
  // written by start(), read by close(): both on the assembly's thread
  private final List<Thread> workers = new ArrayList<>();

  /**
   * @param parallelism the threads that run calls (upstream: the configuration's
   *     {@code parallelism}); at least 1
   * @param relevances call type to relevance ({@link ApiCalls#RELEVANCES})
   * @param nanoTime the clock of the duration metric
   */
  public ApiDispatcher(int parallelism, Map<String, Integer> relevances,
      ApiDispatcherMetrics metrics, LongSupplier nanoTime) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("the API dispatcher's parallelism must be at least 1, got "
          + parallelism);
    }
    this.queue = new CallQueue(relevances);
    this.parallelism = parallelism;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    for (String type : new java.util.TreeSet<>(relevances.keySet())) {
      metrics.registerPendingCalls(type, () -> queue.pendingCount(type));
    }
  }

  /** With the built-in call types, the system clock. */
  public ApiDispatcher(int parallelism, ApiDispatcherMetrics metrics) {
    this(parallelism, ApiCalls.RELEVANCES, metrics, System::nanoTime);
  }

  /**
   * Queues {@code call}; the completion tells its outcome, and fails with the call's exception
   * when it ran and failed, or when the dispatcher is closed. Never blocks on the call.
   */
  public CompletionStage<Outcome> add(ApiCall call) {
    QueuedCall c = new QueuedCall(call);
    queue.add(c);
    return c.completion;
  }

  /**
   * Syncs the object's pending call, if any, with {@code pod} (a newer version from the informer),
   * dropping it when the pod already shows what it would write; returns the pod as it will be
   * once the call has run (upstream's {@code SyncObject}).
   */
  public Pod syncObject(Pod pod) {
    return queue.syncObject(pod, PodCalls.uidOf(pod));
  }

  /** Starts the threads. */
  public synchronized void start() {
    if (!workers.isEmpty()) {
      return;
    }
    for (int i = 0; i < parallelism; i++) {
      Thread t = new Thread(this::work, "scheduler-api-dispatcher-" + (i + 1));
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
  }

  private void work() {
    while (true) {
      Optional<QueuedCall> next;
      try {
        next = queue.pop();
      } catch (InterruptedException e) {
        return;
      }
      if (next.isEmpty()) {
        return;
      }
      run(next.get());
    }
  }

  private void run(QueuedCall c) {
    long start = nanoTime.getAsLong();
    RuntimeException failure = null;
    try {
      c.call.execute();
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      metrics.executed(c.call.type(), failure == null ? SUCCESS : ERROR,
          nanoTime.getAsLong() - start);
      queue.finalize(c);
    }
    if (failure == null) {
      c.complete(Outcome.EXECUTED);
    } else {
      LOG.debug("API call {} for {} failed: {}", c.call.type(), c.call.uid(), failure.toString());
      c.fail(failure);
    }
  }

  /**
   * Refuses new calls, lets the threads run what is queued for up to {@code timeout}, then fails
   * what is left and stops them. Returns whether everything queued ran.
   */
  public synchronized boolean close(Duration timeout) throws InterruptedException {
    queue.close();
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    for (Thread t : workers) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
    int abandoned = queue.abandonPending();
    boolean drained = abandoned == 0 && workers.stream().noneMatch(Thread::isAlive);
    for (Thread t : workers) {
      t.interrupt();
    }
    if (abandoned > 0) {
      LOG.warn("the API dispatcher stopped with {} calls not run", abandoned);
    }
    return drained;
  }

  /** Objects with a call queued or running (for tests). */
  int heldCalls() {
    return queue.size();
  }
}
