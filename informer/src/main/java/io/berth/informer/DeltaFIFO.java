package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer-consumer queue of per-key delta lists (client-go's {@code DeltaFIFO}). The
 * {@link Reflector} produces ({@link #add}, {@link #update}, {@link #delete}, {@link #replace},
 * {@link #resync}); one consumer {@link #pop}s a key's whole {@link Deltas} and processes it under
 * the queue's lock, so the process function can keep the "known objects" store in step with the
 * queue.
 *
 * <p>Semantics, as upstream:
 *
 * <ul>
 *   <li>Each key is queued at most once, in the order it was first queued; later changes append to
 *       its delta list.
 *   <li>Two consecutive deletions collapse into one, keeping the one with more information (a
 *       known final state wins over a tombstone).
 *   <li>Deleting a key that is neither queued nor known is ignored (it was presumably removed by a
 *       relist already).
 *   <li>{@link #replace} queues a {@link DeltaType#REPLACED} delta for every listed object, then a
 *       {@link DeltaType#DELETED} tombstone ({@link Delta#finalStateUnknown()}) for every key that
 *       is queued or known but absent from the list, carrying its last known state.
 *   <li>{@link #resync} queues a {@link DeltaType#SYNC} delta for every known key not already
 *       queued.
 *   <li>{@link #hasSynced} turns true once the items of the first {@link #replace} have all been
 *       popped (or immediately if add, update or delete came first).
 * </ul>
 *
 * <p>The optional transform runs once per object received from the server (add, update, delete,
 * replace), before the object is queued; it is not applied to tombstones or resyncs, whose
 * objects come from the known-objects store and were transformed already.
 *
 * <p>Thread-safe: all state is guarded by one lock. The process function runs under that lock and
 * must be quick; it must not call back into this queue.
 */
public final class DeltaFIFO<T extends HasMetadata> implements ReflectorStore<T> {

  private static final Logger log = LoggerFactory.getLogger(DeltaFIFO.class);

  /** Processes one popped key; called under the queue's lock. */
  @FunctionalInterface
  public interface PopProcessor<T> {
    /**
     * @param deltas the key's deltas, oldest first
     * @param isInInitialList whether these deltas belong to the first list (the queue had not
     *     synced when they were popped)
     */
    void process(Deltas<T> deltas, boolean isInInitialList);
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmptyOrClosed = lock.newCondition();
  private final Condition synced = lock.newCondition();
  // guarded by lock. Invariant: a key is in `queue` iff it is in `items`; every list is non-empty.
  private final Map<String, List<Delta<T>>> items = new HashMap<>();
  // guarded by lock; FIFO order of keys, no duplicates
  private final ArrayDeque<String> queue = new ArrayDeque<>();
  // guarded by lock; true once replace, add, update or delete has been called
  private boolean populated;
  // guarded by lock; items of the first replace not popped yet
  private int initialPopulationCount;
  // guarded by lock
  private boolean closed;

  // immutable after construction; may be null
  private final Store<T> knownObjects;
  // immutable after construction; may be null
  private final UnaryOperator<T> transform;

  /** A queue with no known-objects store and no transform. */
  public DeltaFIFO() {
    this(null, null);
  }

  /**
   * @param knownObjects the consumer's store (the informer's indexer), consulted by delete,
   *     replace and resync; null if deletions missed across a relist may go unnoticed
   * @param transform applied to every object from the server before it is queued; null for none
   */
  public DeltaFIFO(Store<T> knownObjects, UnaryOperator<T> transform) {
    this.knownObjects = knownObjects;
    this.transform = transform;
  }

  @Override
  public void add(T obj) {
    lock.lock();
    try {
      populated = true;
      queueActionLocked(Cache.metaNamespaceKey(obj), Delta.of(DeltaType.ADDED, transformed(obj)));
      signalIfSyncedLocked();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void update(T obj) {
    lock.lock();
    try {
      populated = true;
      queueActionLocked(Cache.metaNamespaceKey(obj), Delta.of(DeltaType.UPDATED, transformed(obj)));
      signalIfSyncedLocked();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void delete(T obj) {
    String key = Cache.metaNamespaceKey(obj);
    lock.lock();
    try {
      populated = true;
      boolean queued = items.containsKey(key);
      boolean known = knownObjects != null && knownObjects.getByKey(key).isPresent();
      if (!queued && !known) {
        // Presumably deleted by a relist already; don't report the same deletion twice.
        signalIfSyncedLocked();
        return;
      }
      queueActionLocked(key, Delta.of(DeltaType.DELETED, transformed(obj)));
      signalIfSyncedLocked();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void replace(List<T> list, String resourceVersion) {
    lock.lock();
    try {
      Set<String> keys = new HashSet<>(list.size() * 4 / 3 + 1);
      for (T obj : list) {
        String key = Cache.metaNamespaceKey(obj);
        keys.add(key);
        queueActionLocked(key, Delta.of(DeltaType.REPLACED, transformed(obj)));
      }

      // Deletion detection against keys in the queue: a watch delete missed while disconnected.
      int queuedDeletions = 0;
      List<String> queuedKeys = new ArrayList<>(items.keySet());
      for (String key : queuedKeys) {
        if (keys.contains(key)) {
          continue;
        }
        List<Delta<T>> deltas = items.get(key);
        T lastKnown = deltas.get(deltas.size() - 1).object();
        queuedDeletions++;
        queueActionLocked(key, Delta.tombstone(lastKnown));
      }

      // Deletion detection against known objects not in the queue.
      if (knownObjects != null) {
        for (String key : knownObjects.listKeys()) {
          if (keys.contains(key) || items.containsKey(key)) {
            continue;
          }
          Optional<T> lastKnown = knownObjects.getByKey(key);
          if (lastKnown.isEmpty()) {
            // The store changed under us (someone wrote to an informer's store); nothing to carry.
            log.warn("key {} vanished from the known objects during replace; no tombstone queued", key);
            continue;
          }
          queuedDeletions++;
          queueActionLocked(key, Delta.tombstone(lastKnown.get()));
        }
      }

      if (!populated) {
        populated = true;
        initialPopulationCount = keys.size() + queuedDeletions;
      }
      signalIfSyncedLocked();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void resync() {
    lock.lock();
    try {
      if (knownObjects == null) {
        return;
      }
      for (String key : knownObjects.listKeys()) {
        // An object already queued would be resynced with its previous state; skip it.
        if (items.containsKey(key)) {
          continue;
        }
        Optional<T> obj = knownObjects.getByKey(key);
        if (obj.isPresent()) {
          queueActionLocked(key, Delta.of(DeltaType.SYNC, obj.get()));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until a key is queued, removes it and hands its deltas to {@code process} under the
   * queue's lock. Items queued before {@link #close} are still handed out; once the queue is
   * closed and empty this returns empty.
   *
   * <p>If {@code process} throws, the key's deltas are dropped and the exception propagates.
   */
  public Optional<Deltas<T>> pop(PopProcessor<T> process) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (queue.isEmpty()) {
        if (closed) {
          return Optional.empty();
        }
        notEmptyOrClosed.await();
      }
      boolean isInInitialList = !hasSyncedLocked();
      String key = queue.poll();
      if (initialPopulationCount > 0) {
        initialPopulationCount--;
      }
      Deltas<T> deltas = new Deltas<>(key, items.remove(key));
      try {
        process.process(deltas, isInInitialList);
      } finally {
        signalIfSyncedLocked();
      }
      return Optional.of(deltas);
    } finally {
      lock.unlock();
    }
  }

  /** Whether the first replace has been fully popped (or add/update/delete came first). */
  public boolean hasSynced() {
    lock.lock();
    try {
      return hasSyncedLocked();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits up to {@code timeout} for {@link #hasSynced}; returns whether it became true. Returns
   * false early if the queue is closed before syncing.
   */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    long remaining = timeout.toNanos();
    lock.lockInterruptibly();
    try {
      while (!hasSyncedLocked()) {
        if (closed || remaining <= 0) {
          return false;
        }
        remaining = synced.awaitNanos(remaining);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Closes the queue: {@link #pop} returns empty once the remaining keys are drained. */
  public void close() {
    lock.lock();
    try {
      closed = true;
      notEmptyOrClosed.signalAll();
      synced.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Queued keys in pop order; a fresh list. */
  public List<String> listKeys() {
    lock.lock();
    try {
      return new ArrayList<>(queue);
    } finally {
      lock.unlock();
    }
  }

  /** The newest object of every queued key, in pop order; a fresh list. */
  public List<T> list() {
    lock.lock();
    try {
      List<T> result = new ArrayList<>(queue.size());
      for (String key : queue) {
        List<Delta<T>> deltas = items.get(key);
        result.add(deltas.get(deltas.size() - 1).object());
      }
      return result;
    } finally {
      lock.unlock();
    }
  }

  /** The deltas queued for {@code key}, if any (a copy). */
  public Optional<Deltas<T>> getByKey(String key) {
    lock.lock();
    try {
      List<Delta<T>> deltas = items.get(key);
      return deltas == null ? Optional.empty() : Optional.of(new Deltas<>(key, deltas));
    } finally {
      lock.unlock();
    }
  }

  /** Number of queued keys; informational only, never gate a pop on it. */
  public int size() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  // Requires lock.
  private boolean hasSyncedLocked() {
    return populated && initialPopulationCount == 0;
  }

  // Requires lock.
  private void signalIfSyncedLocked() {
    if (hasSyncedLocked()) {
      synced.signalAll();
    }
  }

  private T transformed(T obj) {
    return transform == null ? obj : transform.apply(obj);
  }

  /*
   * Appends `delta` to the key's list, collapsing a deletion that follows a deletion: of the two,
   * keep the older unless it is a tombstone (then the newer, which knows the final state, wins).
   * Requires lock.
   */
  private void queueActionLocked(String key, Delta<T> delta) {
    List<Delta<T>> deltas = items.get(key);
    if (deltas == null) {
      deltas = new ArrayList<>(2);
      deltas.add(delta);
      items.put(key, deltas);
      queue.add(key);
      notEmptyOrClosed.signal();
      return;
    }
    Delta<T> last = deltas.get(deltas.size() - 1);
    if (last.type() == DeltaType.DELETED && delta.type() == DeltaType.DELETED) {
      if (last.finalStateUnknown()) {
        deltas.set(deltas.size() - 1, delta);
      }
      return;
    }
    deltas.add(delta);
  }
}
