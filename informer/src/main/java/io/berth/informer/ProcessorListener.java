package io.berth.informer;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays notifications to one {@link ResourceEventHandler} (client-go's
 * {@code processorListener}): {@link #add} appends to an unbounded buffer and never blocks on the
 * handler; a drain task on the informer's handler executor delivers the buffer in order. At most
 * one drain task runs at a time, so the handler is called sequentially; a slow handler holds one
 * executor thread and delays nobody else.
 *
 * <p>Also the handler's registration: {@link #hasSynced} combines the informer's sync state with a
 * count of initial-list notifications not yet delivered (client-go's {@code SingleFileTracker}).
 */
final class ProcessorListener<T> implements ResourceEventHandlerRegistration {

  private static final Logger log = LoggerFactory.getLogger(ProcessorListener.class);

  private final ResourceEventHandler<? super T> handler;
  private final BooleanSupplier upstreamHasSynced;
  private final String description;
  // initial-list adds queued but not yet delivered
  private final AtomicLong pendingInitial = new AtomicLong();

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock
  private final ArrayDeque<Notification<T>> buffer = new ArrayDeque<>();
  // guarded by lock; null until started
  private Executor executor;
  // guarded by lock; true while a drain task is scheduled or running
  private boolean draining;
  // guarded by lock
  private boolean stopped;

  // The resync bookkeeping below is guarded by the owning SharedProcessor's lock.
  final Duration requestedResyncPeriod;
  private long resyncPeriodNanos;
  private long nextResyncNanos;

  ProcessorListener(ResourceEventHandler<? super T> handler, Duration requestedResyncPeriod,
      Duration resyncPeriod, long nowNanos, BooleanSupplier upstreamHasSynced, String description) {
    this.handler = handler;
    this.requestedResyncPeriod = requestedResyncPeriod;
    this.resyncPeriodNanos = resyncPeriod.toNanos();
    this.upstreamHasSynced = upstreamHasSynced;
    this.description = description;
    determineNextResync(nowNanos);
  }

  /** Queues a notification; never blocks on the handler. */
  void add(Notification<T> notification) {
    if (notification instanceof Notification.Add<T> add && add.isInInitialList()) {
      pendingInitial.incrementAndGet();
    }
    Executor toSchedule = null;
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      buffer.addLast(notification);
      if (executor != null && !draining) {
        draining = true;
        toSchedule = executor;
      }
    } finally {
      lock.unlock();
    }
    if (toSchedule != null) {
      schedule(toSchedule);
    }
  }

  /** Starts delivery on {@code handlerExecutor}, beginning with anything already buffered. */
  void start(Executor handlerExecutor) {
    Executor toSchedule = null;
    lock.lock();
    try {
      if (stopped || executor != null) {
        return;
      }
      executor = handlerExecutor;
      if (!buffer.isEmpty()) {
        draining = true;
        toSchedule = executor;
      }
    } finally {
      lock.unlock();
    }
    if (toSchedule != null) {
      schedule(toSchedule);
    }
  }

  /** Stops delivery; undelivered notifications are dropped (a handler call in flight finishes). */
  void stop() {
    lock.lock();
    try {
      stopped = true;
      buffer.clear();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean hasSynced() {
    // Upstream first: once it holds, every initial add has been counted (they are queued before
    // the informer can report synced), so a zero count then means all were delivered.
    return upstreamHasSynced.getAsBoolean() && pendingInitial.get() == 0;
  }

  /** Notifications waiting for the handler; informational. */
  int pending() {
    lock.lock();
    try {
      return buffer.size();
    } finally {
      lock.unlock();
    }
  }

  // Requires the SharedProcessor's lock.
  boolean shouldResync(long nowNanos) {
    return resyncPeriodNanos != 0 && nowNanos - nextResyncNanos >= 0;
  }

  // Requires the SharedProcessor's lock (or confinement during construction).
  void determineNextResync(long nowNanos) {
    nextResyncNanos = nowNanos + resyncPeriodNanos;
  }

  // Requires the SharedProcessor's lock.
  void setResyncPeriod(Duration resyncPeriod) {
    resyncPeriodNanos = resyncPeriod.toNanos();
  }

  // Requires the SharedProcessor's lock.
  Duration resyncPeriod() {
    return Duration.ofNanos(resyncPeriodNanos);
  }

  private void schedule(Executor target) {
    try {
      target.execute(this::drain);
    } catch (RejectedExecutionException e) {
      // the informer is stopping
      lock.lock();
      try {
        draining = false;
      } finally {
        lock.unlock();
      }
    }
  }

  private void drain() {
    while (true) {
      Notification<T> next;
      lock.lock();
      try {
        next = buffer.pollFirst();
        if (next == null || stopped) {
          draining = false;
          return;
        }
      } finally {
        lock.unlock();
      }
      deliver(next);
    }
  }

  private void deliver(Notification<T> notification) {
    boolean initial = false;
    try {
      if (notification instanceof Notification.Add<T> add) {
        initial = add.isInInitialList();
        handler.onAdd(add.obj(), add.isInInitialList());
      } else if (notification instanceof Notification.Update<T> update) {
        handler.onUpdate(update.oldObj(), update.newObj());
      } else if (notification instanceof Notification.Delete<T> delete) {
        handler.onDelete(delete.obj(), delete.finalStateUnknown());
      }
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      // As upstream, a failing notification is skipped and delivery goes on.
      log.error("{}: event handler {} failed on {}", description, handler,
          notification.getClass().getSimpleName(), t);
    } finally {
      if (initial) {
        pendingInitial.decrementAndGet();
      }
    }
  }
}
