package io.berth.embedded.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import java.util.function.Supplier;
import tools.jackson.databind.node.ObjectNode;

/**
 * The embedded API server's storage: every object of every type, one global strictly increasing resourceVersion,
 * and a bounded per-type event history for watches. Objects are kept per type in a skip list ordered by key
 * ({@code namespace/name}), so get, create, update and delete cost O(log n) whatever the store holds and a list costs
 * its result size (a namespace is a contiguous key range).
 *
 * Point reads ({@link #get}) go through a hash index by key beside the ordered map, so they cost one hash lookup
 * instead of a walk down the skip list comparing keys that share long prefixes ({@code namespace/name-N}).
 *
 * <p>Locking: every mutation, and every read that must be consistent with the event stream (lists, watch
 * registration), holds {@code lock}; mutations take the write side. Point reads ({@link #get}) read the concurrent
 * maps without the lock and always see a whole version of one object. Listeners run under the write lock, so they
 * see changes in resourceVersion order.
 */
public final class ObjectStore {

  /** A consistent view of part of the store. */
  public record Snapshot(long resourceVersion, List<StoredObject> items) {
  }

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  // guarded by lock (writes); the maps are concurrent so that get() may read without it
  private final Map<ResourceType, Shelf> objects = new ConcurrentHashMap<>();
  // guarded by lock
  private final Map<ResourceType, EventHistory> histories = new ConcurrentHashMap<>();
  // written under the write lock, read anywhere
  private volatile long resourceVersion;
  private final int historyCapacity;
  private final List<StoreListener> listeners = new CopyOnWriteArrayList<>();

  /**
   * The objects of one type, twice: ordered by key (lists, namespace ranges) and hashed by key (point reads). Both
   * maps always hold the same versions once a write step ends: written only under the store's write lock, read
   * anywhere (each map is concurrent, so a lock-free reader sees a whole version, the old or the new one).
   */
  private static final class Shelf {
    final ConcurrentSkipListMap<String, StoredObject> ordered = new ConcurrentSkipListMap<>();
    final ConcurrentHashMap<String, StoredObject> byKey = new ConcurrentHashMap<>();
    // the resourceVersion of the last write to this type; written after both maps
    volatile long lastWrite;

    StoredObject put(StoredObject next) {
      byKey.put(next.key(), next);
      StoredObject previous = ordered.put(next.key(), next);
      lastWrite = next.resourceVersion();
      return previous;
    }

    StoredObject remove(String key, long rv) {
      byKey.remove(key);
      StoredObject previous = ordered.remove(key);
      if (previous != null) {
        // only a removal that happened hands out rv; a miss must not claim a version a later write gets
        lastWrite = rv;
      }
      return previous;
    }
  }

  public ObjectStore(int historyCapacity) {
    this.historyCapacity = historyCapacity;
  }

  /** Registers a listener for every later change. */
  public void addListener(StoreListener listener) {
    listeners.add(listener);
  }

  public void removeListener(StoreListener listener) {
    listeners.remove(listener);
  }

  /** The newest resourceVersion handed out. */
  public long resourceVersion() {
    return resourceVersion;
  }

  public Optional<StoredObject> get(ResourceType type, String namespace, String name) {
    Shelf shelf = objects.get(type);
    return shelf == null ? Optional.empty()
        : Optional.ofNullable(shelf.byKey.get(StoredObject.keyOf(namespace, name)));
  }

  /** The objects of {@code type} in {@code namespace} (null or empty: all namespaces) that pass {@code filter}. */
  public Snapshot list(ResourceType type, String namespace, Predicate<StoredObject> filter) {
    lock.readLock().lock();
    try {
      List<StoredObject> out = new ArrayList<>();
      for (StoredObject o : range(type, namespace)) {
        if (filter.test(o)) {
          out.add(o);
        }
      }
      return new Snapshot(resourceVersion, out);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The objects of {@code type} now, read without the lock: weakly consistent (a write racing the read may or may
   * not be seen), for lookups that tolerate it as kube-apiserver's admission listers do. Each element is a whole
   * version.
   */
  public List<StoredObject> peek(ResourceType type) {
    Shelf shelf = objects.get(type);
    return shelf == null ? List.of() : List.copyOf(shelf.ordered.values());
  }

  /**
   * The resourceVersion of the last write (put or remove) to an object of {@code type}, 0 when there was none: a
   * cache of something derived from all objects of a type is still valid while this has not changed. Read without
   * the lock; it moves after the write is visible to {@link #get} and {@link #peek}.
   */
  public long lastWrite(ResourceType type) {
    Shelf shelf = objects.get(type);
    return shelf == null ? 0 : shelf.lastWrite;
  }

  /** How many objects of {@code type} the store holds. */
  public int count(ResourceType type) {
    Shelf shelf = objects.get(type);
    return shelf == null ? 0 : shelf.ordered.size();
  }

  private Collection<StoredObject> range(ResourceType type, String namespace) {
    Shelf shelf = objects.get(type);
    if (shelf == null) {
      return List.of();
    }
    ConcurrentSkipListMap<String, StoredObject> map = shelf.ordered;
    if (namespace == null || namespace.isEmpty() || !type.namespaced()) {
      return map.values();
    }
    // '/' + 1 == '0': every key of the namespace sorts in [ns + "/", ns + "0").
    return map.subMap(namespace + "/", true, namespace + "0", false).values();
  }

  /**
   * Runs {@code action} with the write lock held, so that reads and writes inside it are one atomic step. Reentrant.
   */
  public <R> R write(Supplier<R> action) {
    lock.writeLock().lock();
    try {
      return action.get();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Runs {@code action} with the read lock held: no write happens meanwhile. */
  public <R> R read(Supplier<R> action) {
    lock.readLock().lock();
    try {
      return action.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Stores {@code tree} as the next version of its object (created when absent), stamping a new resourceVersion
   * into its metadata, and emits ADDED or MODIFIED. The caller must hold the write lock (see {@link #write}) and
   * gives up ownership of {@code tree}. Serializes under the lock: writers that can, build an {@link ObjectDraft}
   * before taking it and call {@link #put(ObjectDraft)}.
   */
  public StoredObject put(ResourceType type, ObjectNode tree) {
    requireWriteLock();
    return put(new ObjectDraft(type, tree));
  }

  /**
   * Stores a version serialized before the lock was taken; otherwise as {@link #put(ResourceType, ObjectNode)}. The
   * caller must hold the write lock.
   */
  StoredObject put(ObjectDraft draft) {
    requireWriteLock();
    long rv = resourceVersion + 1;
    StoredObject next = draft.stamp(rv);
    StoredObject previous = objects.computeIfAbsent(draft.type(), t -> new Shelf()).put(next);
    resourceVersion = rv;
    emit(new WatchEvent(previous == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, next, previous));
    return next;
  }

  /**
   * Removes an object for good and emits DELETED carrying its last state stamped with the deletion's
   * resourceVersion. The caller must hold the write lock.
   */
  public Optional<StoredObject> remove(ResourceType type, String namespace, String name) {
    requireWriteLock();
    Shelf shelf = objects.get(type);
    long rv = resourceVersion + 1;
    StoredObject previous = shelf == null ? null : shelf.remove(StoredObject.keyOf(namespace, name), rv);
    if (previous == null) {
      return Optional.empty();
    }
    StoredObject tombstone = previous.restamped(rv);
    resourceVersion = rv;
    emit(new WatchEvent(WatchEvent.Type.DELETED, tombstone, previous));
    return Optional.of(tombstone);
  }

  private void emit(WatchEvent event) {
    histories.computeIfAbsent(event.object().type(), t -> new EventHistory(historyCapacity)).append(event);
    for (StoreListener listener : listeners) {
      listener.onEvent(event);
    }
  }

  /**
   * The events of {@code type} after {@code rv}, oldest first, or empty when the history no longer reaches back to
   * {@code rv} (the caller answers 410 Gone). The caller must hold the lock.
   */
  Optional<List<WatchEvent>> eventsAfter(ResourceType type, long rv) {
    EventHistory history = histories.get(type);
    if (history == null) {
      return Optional.of(List.of());
    }
    if (rv < history.oldestServable()) {
      return Optional.empty();
    }
    return Optional.of(history.after(rv));
  }

  /** Drops history up to the current resourceVersion, so that watches from any older version get 410. */
  public void compactHistory() {
    write(() -> {
      histories.values().forEach(h -> h.compactThrough(resourceVersion));
      return null;
    });
  }

  private void requireWriteLock() {
    if (!lock.isWriteLockedByCurrentThread()) {
      throw new IllegalStateException("store writes must run inside ObjectStore.write");
    }
  }
}
