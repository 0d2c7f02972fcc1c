package io.berth.controller;

import io.berth.workqueue.RateLimiters;
import io.berth.workqueue.RateLimitingQueue;
import io.berth.workqueue.WorkQueues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standard controller loop (upstream's {@code worker}/{@code processNextWorkItem}): a rate-limited queue of
 * {@code namespace/name} keys, named after the controller and publishing the workqueue metrics; N worker threads
 * that take a key, call {@link SyncHandler#sync} (timed and counted by the daemon's {@link ControllerMetrics}:
 * {@code berth_controller_syncs_total{controller,result}}, {@code berth_controller_sync_duration_seconds}),
 * {@code forget} it on success and {@code addRateLimited} it on failure (client-go's default controller rate
 * limiter: per-key exponential backoff from 5 ms to 1000 s, overall 10 qps with a burst of 100), and always mark it
 * done. The queue guarantees a key is never synced by two workers at once.
 *
 * <p>Lifecycle: {@link #start} once; {@link #shutDown} stops the queue taking new keys, lets the workers finish
 * what is queued and in flight, and waits for them up to a timeout (zero: not at all). It never interrupts a sync.
 * Thread-safe; the worker list is guarded by {@code this}.
 */
public final class QueueWorkers {

  private static final Logger LOG = LoggerFactory.getLogger(QueueWorkers.class);

  /** Reconciles one key; throwing requeues the key with backoff. */
  @FunctionalInterface
  public interface SyncHandler {
    void sync(String key) throws Exception;
  }

  private final String controllerName;
  private final RateLimitingQueue<String> queue;
  private final SyncHandler handler;
  private final ControllerMetrics metrics;
  // guarded by this
  private final List<Thread> workers = new ArrayList<>();
  // guarded by this
  private boolean started;

  /** Workers for {@code controllerName} over a new {@link #newControllerQueue} of that name. */
  public QueueWorkers(String controllerName, SyncHandler handler, ControllerContext context) {
    this(controllerName, newControllerQueue(controllerName, context), handler, context.syncMetrics());
  }

  /** Workers over a given queue (from {@link #newControllerQueue}, or with another rate limiter in tests). */
  public QueueWorkers(String controllerName, RateLimitingQueue<String> queue, SyncHandler handler,
      ControllerMetrics metrics) {
    this.controllerName = Objects.requireNonNull(controllerName, "controllerName");
    this.queue = Objects.requireNonNull(queue, "queue");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /**
   * A controller's queue: named {@code name} (its workqueue metrics in the context's registry), with client-go's
   * default controller rate limiter, timed by the context's clock. For controllers whose sync handler needs the
   * queue (to {@code addAfter}).
   */
  public static RateLimitingQueue<String> newControllerQueue(String name, ControllerContext context) {
    return WorkQueues.newRateLimitingQueue(name, RateLimiters.<String>defaultControllerRateLimiter(context.clock()),
        context.clock(), context.queueMetrics());
  }

  /** The queue: event handlers add keys to it ({@code add}, {@code addAfter}). */
  public RateLimitingQueue<String> queue() {
    return queue;
  }

  /**
   * Starts {@code count} worker threads named {@code <controller>-worker-N}.
   *
   * @throws IllegalStateException if already started
   */
  public synchronized void start(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("need at least one worker, got " + count);
    }
    if (started) {
      throw new IllegalStateException(controllerName + " workers already started");
    }
    started = true;
    for (int i = 0; i < count; i++) {
      Thread t = new Thread(this::work, controllerName + "-worker-" + i);
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
  }

  /**
   * Shuts the queue down and waits up to {@code timeout} for the workers to finish the queued and in-flight keys.
   * Returns whether all finished in time (true at once if the workers never started). Workers still busy keep going
   * and exit when the queue is empty.
   */
  public boolean shutDown(Duration timeout) throws InterruptedException {
    queue.shutDown();
    List<Thread> toJoin;
    synchronized (this) {
      toJoin = new ArrayList<>(workers);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = true;
    for (Thread t : toJoin) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
      all &= !t.isAlive();
    }
    return all;
  }

  private void work() {
    try {
      while (processNextWorkItem()) {
        // keep going until the queue shuts down
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Takes and syncs one key; false once the queue has shut down and is empty. */
  boolean processNextWorkItem() throws InterruptedException {
    Optional<String> next = queue.get();
    if (next.isEmpty()) {
      return false;
    }
    String key = next.get();
    try {
      metrics.timeSync(controllerName, () -> handler.sync(key));
      queue.forget(key);
    } catch (InterruptedException e) {
      queue.addRateLimited(key);
      throw e;
    } catch (Exception e) {
      if (KubeApiErrors.isConflict(e)) {
        // Optimistic concurrency: a write raced a newer version the informer had not delivered yet. Expected in
        // normal operation; the retry reads the newer version.
        LOG.debug("{}: sync \"{}\" hit a conflict, retrying: {}", controllerName, key, KubeApiErrors.message(e));
      } else {
        LOG.warn("{}: sync \"{}\" failed with {}", controllerName, key, KubeApiErrors.message(e));
      }
      LOG.debug("{}: sync \"{}\" failure", controllerName, key, e);
      queue.addRateLimited(key);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Error e) {
      LOG.error("{}: sync \"{}\" failed", controllerName, key, e);
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
    return true;
  }
}
