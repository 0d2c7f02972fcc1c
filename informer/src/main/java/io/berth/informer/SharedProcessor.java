package io.berth.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An informer's set of {@link ProcessorListener}s (client-go's {@code sharedProcessor}):
 * distributes each notification to every listener, except that resync notifications go only to
 * listeners currently due for a resync (recomputed by {@link #shouldResync} on each resync tick).
 *
 * <p>Unlike upstream, a listener starts out not due: an update that did not change the
 * resourceVersion (a relist re-confirming an object, the CRUD mock replaying objects on a new
 * watch) reaches only handlers that asked for a resync period, when their period has elapsed.
 *
 * <p>Thread-safe: the listener map, the started flag and every listener's resync bookkeeping are
 * guarded by {@code lock}; distribution only appends to listener buffers under it.
 */
final class SharedProcessor<T> {

  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock; listener -> due for resync now; insertion-ordered
  private final Map<ProcessorListener<T>, Boolean> listeners = new LinkedHashMap<>();
  // guarded by lock; null until started
  private Executor executor;

  SharedProcessor(Clock clock) {
    this.clock = clock;
  }

  void addListener(ProcessorListener<T> listener) {
    lock.lock();
    try {
      listeners.put(listener, false);
      if (executor != null) {
        listener.start(executor);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Removes and stops the listener; returns whether it was registered here. */
  boolean removeListener(ResourceEventHandlerRegistration registration) {
    lock.lock();
    try {
      if (!(registration instanceof ProcessorListener<?>)) {
        return false;
      }
      @SuppressWarnings("unchecked")
      ProcessorListener<T> listener = (ProcessorListener<T>) registration;
      if (listeners.remove(listener) == null) {
        return false;
      }
      listener.stop();
      return true;
    } finally {
      lock.unlock();
    }
  }

  void start(Executor handlerExecutor) {
    lock.lock();
    try {
      executor = handlerExecutor;
      for (ProcessorListener<T> listener : listeners.keySet()) {
        listener.start(handlerExecutor);
      }
    } finally {
      lock.unlock();
    }
  }

  void stop() {
    lock.lock();
    try {
      for (ProcessorListener<T> listener : listeners.keySet()) {
        listener.stop();
      }
      listeners.clear();
    } finally {
      lock.unlock();
    }
  }

  /** Hands {@code notification} to every listener, or with {@code sync} only to those due. */
  void distribute(Notification<T> notification, boolean sync) {
    lock.lock();
    try {
      for (Map.Entry<ProcessorListener<T>, Boolean> entry : listeners.entrySet()) {
        if (!sync || entry.getValue()) {
          entry.getKey().add(notification);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Marks which listeners are due for a resync now and schedules their next one; returns whether
   * any is due (then the reflector resyncs the queue).
   */
  boolean shouldResync() {
    lock.lock();
    try {
      long now = clock.nanoTime();
      boolean needed = false;
      for (Map.Entry<ProcessorListener<T>, Boolean> entry : listeners.entrySet()) {
        ProcessorListener<T> listener = entry.getKey();
        boolean due = listener.shouldResync(now);
        entry.setValue(due);
        if (due) {
          needed = true;
          listener.determineNextResync(now);
        }
      }
      return needed;
    } finally {
      lock.unlock();
    }
  }

  /** Re-derives every listener's effective period from a new informer check period. */
  void resyncCheckPeriodChanged(Duration checkPeriod) {
    lock.lock();
    try {
      for (ProcessorListener<T> listener : listeners.keySet()) {
        listener.setResyncPeriod(DefaultSharedIndexInformer.determineResyncPeriod(
            listener.requestedResyncPeriod, checkPeriod));
      }
    } finally {
      lock.unlock();
    }
  }

  List<ProcessorListener<T>> listeners() {
    lock.lock();
    try {
      return new ArrayList<>(listeners.keySet());
    } finally {
      lock.unlock();
    }
  }
}
