package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The objects a controller itself last wrote, read in place of an informer copy known to be older (client-go's
 * {@code MutationCache} idea): after a write answered with resourceVersion B for a request that carried A, an informer
 * copy still at A is the object before this controller's own write, and a sync that read it would send A again and
 * be refused with a conflict (then GET and retry). {@link #newest} hands back the written object instead.
 *
 * <p>Unlike client-go's, it never orders resourceVersions (they are opaque): a cached copy is replaced only when its
 * resourceVersion is exactly one this controller's writes superseded, from the first write the informer has not shown
 * yet to the last. Any other resourceVersion (the informer caught up, or someone else wrote since) is the informer's
 * word, and the entry is dropped. An object deleted and re-created under the same key (another UID) drops it too. At
 * most {@link #MAX_SUPERSEDED} superseded versions are kept per key; past that the entry is dropped and a stale copy
 * costs a conflict, as without the cache.
 *
 * <p>Thread-safe: a {@link ConcurrentHashMap} of immutable entries. Callers write and read a key from one sync at a
 * time (the work queue never runs two syncs of one key at once).
 *
 * @param <T> the kind of object
 */
public final class MutationCache<T extends HasMetadata> {

  /** The bound on superseded versions per key (an informer this far behind is re-listing anyway). */
  static final int MAX_SUPERSEDED = 16;

  /** What this controller wrote last under a key, and the versions of it the writes superseded. */
  private record Written<T>(String uid, Set<String> superseded, T object) {
  }

  private final ConcurrentMap<String, Written<T>> entries = new ConcurrentHashMap<>();

  /**
   * Records a successful write under {@code key}: the request carried {@code sentResourceVersion}, the server answered
   * {@code written}. A write that kept the resourceVersion (a no-op) or lacks one drops the entry instead.
   */
  public void wrote(String key, String sentResourceVersion, T written) {
    if (written == null || written.getMetadata() == null || sentResourceVersion == null
        || sentResourceVersion.equals(written.getMetadata().getResourceVersion())) {
      // nothing superseded (a no-op write keeps its resourceVersion), or nothing to compare: the informer's word
      entries.remove(key);
      return;
    }
    String uid = written.getMetadata().getUid();
    entries.compute(key, (k, previous) -> {
      Set<String> superseded = new HashSet<>();
      if (previous != null && Objects.equals(previous.uid(), uid)
          && Objects.equals(previous.object().getMetadata().getResourceVersion(), sentResourceVersion)) {
        superseded.addAll(previous.superseded()); // the informer may still be at the first of them
      }
      superseded.add(sentResourceVersion);
      return superseded.size() > MAX_SUPERSEDED ? null : new Written<>(uid, Set.copyOf(superseded), written);
    });
  }

  /**
   * The newer of {@code cached} (the informer's copy under {@code key}) and this controller's last write: the
   * written object if {@code cached} is a version that write superseded, otherwise {@code cached} (and the entry is
   * dropped: the informer has caught up or moved past it).
   */
  public T newest(String key, T cached) {
    Written<T> w = entries.get(key);
    if (w == null) {
      return cached;
    }
    if (Objects.equals(w.uid(), cached.getMetadata().getUid())
        && w.superseded().contains(cached.getMetadata().getResourceVersion())) {
      return w.object();
    }
    entries.remove(key, w);
    return cached;
  }

  /** Drops what is known of {@code key} (the object is gone). */
  public void forget(String key) {
    entries.remove(key);
  }

  /** How many keys have an entry (for tests). */
  int size() {
    return entries.size();
  }
}
