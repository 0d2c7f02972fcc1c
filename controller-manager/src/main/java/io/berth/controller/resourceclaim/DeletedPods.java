package io.berth.controller.resourceclaim;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The UIDs of the most recent pods (with resource claims) the informer reported deleted, at most a fixed number,
 * oldest evicted first (upstream's {@code uidCache} of 500 entries). A claim's {@code reservedFor} entry for such a
 * UID can be dropped without asking the API server whether the pod still exists. Called by the pod informer's
 * delete handler and by the workers; thread-safe: {@code uids} is guarded by {@code this}.
 */
final class DeletedPods {

  /** Upstream's {@code maxUIDCacheEntries}. */
  static final int DEFAULT_CAPACITY = 500;

  private final int capacity;
  // guarded by this; insertion order is the eviction order
  private final LinkedHashMap<String, Boolean> uids;

  DeletedPods(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.uids = new LinkedHashMap<>(16, 0.75f, false) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
        return size() > DeletedPods.this.capacity;
      }
    };
  }

  synchronized void add(String uid) {
    if (uid != null) {
      uids.put(uid, Boolean.TRUE);
    }
  }

  synchronized boolean contains(String uid) {
    return uid != null && uids.containsKey(uid);
  }

  synchronized int size() {
    return uids.size();
  }
}
