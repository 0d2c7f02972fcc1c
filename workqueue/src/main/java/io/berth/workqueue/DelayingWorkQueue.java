package io.berth.workqueue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue behind every {@link WorkQueue} and {@link DelayingQueue} of this package: client-go's
 * {@code Type} (queue.go) and {@code delayingType} (delaying_queue.go) under one lock.
 *
 * <p>Why one lock and no waiting thread: client-go hands delayed items to a goroutine through a
 * channel, and client-java copies that with a bounded buffer of 1,000 that silently drops adds
 * when full. Here a delayed item goes straight into {@link WaitingHeap} under the queue's lock, so
 * nothing is ever dropped, and due items are moved into the FIFO lazily by whoever looks: a worker
 * in {@link #get} or a caller of {@link #len}. Idle workers therefore time their wait on the
 * earliest ready time. Only one of them, the <em>leader</em> (as in {@link
 * java.util.concurrent.DelayQueue}), waits with a deadline; the others wait untimed, and a leader
 * that leaves hands the role on by signalling one of them. Adding an item that becomes the new
 * earliest deadline resets the leader and signals, so the new deadline is watched. The clock is
 * injected, so with a {@link FakeClock} {@link #len} sees due items as soon as time is advanced.
 *
 * <p>State of an item (the union of client-go's {@code dirty} and {@code processing} sets): absent
 * (neither), {@code QUEUED} (dirty, in the FIFO, not processing), {@code PROCESSING} (handed out,
 * not dirty), {@code PROCESSING_DIRTY} (handed out and added again: goes back into the FIFO on
 * {@link #done}). Every element of {@code queue} is {@code QUEUED} and appears once.
 *
 * <p>Thread-safe; every mutable field is guarded by {@code lock} unless its comment says otherwise.
 */
final class DelayingWorkQueue<T> implements DelayingQueue<T> {

  private static final Logger LOG = LoggerFactory.getLogger(DelayingWorkQueue.class);

  /** Delays are capped at about 73 years so that {@code now + delay} cannot overflow. */
  private static final long MAX_DELAY_NANOS = Long.MAX_VALUE >> 2;

  private enum State {
    QUEUED,
    PROCESSING,
    PROCESSING_DIRTY
  }

  private final String name;
  private final Clock clock;
  /** Immutable after construction. */
  private final QueueMetrics metrics;
  /** Whether metrics need timestamps; immutable after construction. */
  private final boolean timed;

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when the FIFO gains an item, the earliest deadline moves, or on shut down. */
  private final Condition notEmpty = lock.newCondition();
  /** Signalled when nothing is being processed any more during a shut down, or drain is off. */
  private final Condition idle = lock.newCondition();

  /** Guarded by {@code lock}: the order in which items are handed out; all {@code QUEUED}. */
  private final ArrayDeque<T> queue = new ArrayDeque<>();
  /** Guarded by {@code lock}: every item that is dirty or being processed, with its state. */
  private final HashMap<T, State> states = new HashMap<>();
  /** Guarded by {@code lock}: items delayed by {@link #addAfter}, not yet due or not yet moved. */
  private final WaitingHeap<T> waiting = new WaitingHeap<>();
  /** Guarded by {@code lock}: how many items are {@code PROCESSING} or {@code PROCESSING_DIRTY}. */
  private int processing;
  /** Guarded by {@code lock}: how many items are {@code PROCESSING_DIRTY}. */
  private int dirtyWhileProcessing;
  /** Guarded by {@code lock}: the one getter timing its wait on the earliest ready time. */
  private Thread leader;
  /** Written under {@code lock}; volatile so that {@link #shuttingDown()} needs no lock. */
  private volatile boolean shuttingDown;
  /** Guarded by {@code lock}: whether a {@link #shutDownWithDrain()} is waiting for workers. */
  private boolean drain;
  /** Guarded by {@code lock}; used only when {@code timed}: when each dirty item was added. */
  private final Map<T, Long> addTimes = new HashMap<>();
  /** Guarded by {@code lock}; used only when {@code timed}: when each item was handed out. */
  private final Map<T, Long> processingStarts = new HashMap<>();
  /** Immutable after construction; held here because metrics registries may hold it weakly. */
  private final QueueGauges gauges = new Gauges();

  /**
   * A queue called {@code name} (empty for no metrics) timed by {@code clock}.
   *
   * @param metricsProvider asked once for this queue's metrics if {@code name} is not empty
   */
  DelayingWorkQueue(String name, Clock clock, MetricsProvider metricsProvider) {
    this.name = Objects.requireNonNull(name, "name");
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(metricsProvider, "metricsProvider");
    this.metrics = name.isEmpty() ? QueueMetrics.NOOP : metricsProvider.newQueueMetrics(name, gauges);
    this.timed = metrics != QueueMetrics.NOOP;
  }

  @Override
  public void add(T item) {
    Objects.requireNonNull(item, "item");
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      if (insert(item, timed ? clock.nanoTime() : 0L)) {
        notEmpty.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void addAfter(T item, Duration delay) {
    Objects.requireNonNull(item, "item");
    long delayNanos = cappedNanos(Objects.requireNonNull(delay, "delay"));
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      metrics.retried();
      long now = clock.nanoTime();
      if (delayNanos <= 0) {
        if (insert(item, now)) {
          notEmpty.signal();
        }
      } else if (waiting.offer(item, now + delayNanos)) {
        // The earliest deadline moved: whoever was timing the old one must not be the only
        // one watching. Let the signalled thread become leader with the new deadline.
        leader = null;
        notEmpty.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int len() {
    lock.lock();
    try {
      signal(promoteDue());
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    T item;
    lock.lockInterruptibly();
    try {
      item = take();
    } finally {
      if (leader == null && !waiting.isEmpty()) {
        notEmpty.signal(); // hand the leader role on
      }
      lock.unlock();
    }
    return Optional.ofNullable(item); // built outside the lock
  }

  @Override
  public void done(T item) {
    lock.lock();
    try {
      State state = states.remove(item); // one look-up in the common case (PROCESSING)
      if (state == State.PROCESSING_DIRTY) {
        states.put(item, State.QUEUED);
        dirtyWhileProcessing--;
        queue.addLast(item);
        notEmpty.signal();
      } else if (state != State.PROCESSING) {
        if (state != null) {
          states.put(item, state); // QUEUED: not handed out, put it back untouched
        }
        if (LOG.isDebugEnabled()) {
          LOG.debug("queue {}: done({}) ignored, the item is not being processed", name, item);
        }
        return;
      }
      processing--;
      if (timed) {
        Long start = processingStarts.remove(item);
        if (start != null) {
          metrics.worked(clock.nanoTime() - start);
        }
      }
      if (processing == 0 && shuttingDown) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void shutDown() {
    lock.lock();
    try {
      drain = false;
      beginShutDown();
      idle.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    lock.lock();
    try {
      drain = true;
      beginShutDown();
      while (drain && processing > 0) {
        idle.await();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean shuttingDown() {
    return shuttingDown;
  }

  @Override
  public String toString() {
    return "WorkQueue[" + name + "]";
  }

  // ---- everything below runs with lock held ----

  /** Waits for an item and marks it in work; null once shut down and empty. */
  private T take() throws InterruptedException {
    while (true) {
      if (!waiting.isEmpty()) {
        // This thread takes one of the newly queued items; wake others for the rest.
        signal(promoteDue() - 1);
      }
      T item = queue.pollFirst();
      if (item != null) {
        states.put(item, State.PROCESSING);
        processing++;
        if (timed) {
          recordGet(item);
        }
        return item;
      }
      if (shuttingDown) {
        return null;
      }
      awaitWork();
    }
  }

  /**
   * Marks {@code item} dirty, added at {@code addedAt}; returns whether it went into the FIFO (so
   * a waiting worker should be signalled).
   */
  private boolean insert(T item, long addedAt) {
    State state = states.putIfAbsent(item, State.QUEUED);
    if (state == null) {
      queue.addLast(item);
      recordAdd(item, addedAt);
      return true;
    }
    if (state == State.PROCESSING) {
      states.put(item, State.PROCESSING_DIRTY);
      dirtyWhileProcessing++;
      recordAdd(item, addedAt);
    }
    return false; // already dirty: collapsed
  }

  /** Moves every due waiting item into the queue; returns how many entered the FIFO. */
  private int promoteDue() {
    if (waiting.isEmpty()) {
      return 0;
    }
    long now = clock.nanoTime();
    int queued = 0;
    while (!waiting.isEmpty()) {
      long readyAt = waiting.peekReadyAt();
      if (readyAt - now > 0) {
        break;
      }
      // The item has been ready since readyAt: count its queueing time from then.
      if (insert(waiting.poll(), readyAt)) {
        queued++;
      }
    }
    return queued;
  }

  /** Waits for work: timed on the earliest ready time if no one else is, else untimed. */
  private void awaitWork() throws InterruptedException {
    if (waiting.isEmpty() || leader != null) {
      notEmpty.await();
      return;
    }
    Thread me = Thread.currentThread();
    leader = me;
    try {
      clock.awaitUntil(lock, notEmpty, waiting.peekReadyAt());
    } finally {
      if (leader == me) {
        leader = null;
      }
    }
  }

  private void signal(int waiters) {
    for (int i = 0; i < waiters; i++) {
      notEmpty.signal();
    }
  }

  private void beginShutDown() {
    shuttingDown = true;
    waiting.clear(); // like client-go, delayed items are dropped at shut down
    leader = null;
    notEmpty.signalAll();
  }

  private void recordAdd(T item, long addedAt) {
    metrics.added();
    if (timed) {
      addTimes.putIfAbsent(item, addedAt);
    }
  }

  private void recordGet(T item) {
    long now = clock.nanoTime();
    processingStarts.put(item, now);
    Long added = addTimes.remove(item);
    if (added != null) {
      metrics.queued(now - added);
    }
  }

  private static long cappedNanos(Duration delay) {
    if (delay.isNegative() || delay.isZero()) {
      return 0;
    }
    if (delay.getSeconds() >= MAX_DELAY_NANOS / 1_000_000_000L) {
      return MAX_DELAY_NANOS;
    }
    return delay.toNanos();
  }

  /** The gauge values, read under the queue's lock by a metrics registry. */
  private final class Gauges implements QueueGauges {

    @Override
    public int depth() {
      lock.lock();
      try {
        signal(promoteDue());
        return queue.size() + dirtyWhileProcessing;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public double unfinishedWorkSeconds() {
      lock.lock();
      try {
        long now = clock.nanoTime();
        double total = 0;
        for (long start : processingStarts.values()) {
          total += (now - start) / 1e9;
        }
        return total;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public double longestRunningProcessorSeconds() {
      lock.lock();
      try {
        long now = clock.nanoTime();
        long oldest = 0;
        for (long start : processingStarts.values()) {
          oldest = Math.max(oldest, now - start);
        }
        return oldest / 1e9;
      } finally {
        lock.unlock();
      }
    }
  }
}
