package io.berth.plugins.dynamicresources.structured;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds {@link Pools} from the ResourceSlice lister's current listing, reusing what the
 * previous listing had: when every slice is the version seen last time (same object, or same uid
 * and resourceVersion) the previous {@link Pools} is answered as is; otherwise the pools are
 * rebuilt, keeping the {@link SliceDevices} (device views and their memoized selector outcomes)
 * of each slice whose version is unchanged and dropping those of updated and deleted slices. So a
 * scheduling cycle costs one pass over the listing instead of a rebuild of the index, and a
 * selector is evaluated once per device and expression while the slice stays the same.
 *
 * <p>Taking the lister's listing on each call (rather than informer events) keeps the answer
 * exactly as current as the lister, whatever order the informer's handlers run in. One per
 * plugin instance; called from PreFilter. Thread-safe: guarded by {@code this}.
 */
public final class PoolsCache {
  // slice name -> its devices, for the slice versions of the last listing
  private Map<String, SliceDevices> bySlice = Map.of();
  // the objects of the last listing, by identity: the common unchanged case costs no string
  // hashing or comparison
  private Set<ResourceSlice> lastObjects = Set.of();
  private Pools last;

  /** The pools of {@code slices} (the lister's complete listing). */
  public synchronized Pools pools(List<ResourceSlice> slices) {
    if (last != null && unchanged(slices)) {
      return last;
    }
    Map<String, SliceDevices> next = new HashMap<>(slices.size() * 2);
    for (ResourceSlice s : slices) {
      String name = s.getMetadata().getName();
      SliceDevices known = bySlice.get(name);
      next.put(name, known != null && known.sameVersion(s) ? known : new SliceDevices(s));
    }
    bySlice = next;
    Set<ResourceSlice> objects = Collections.newSetFromMap(new IdentityHashMap<>());
    objects.addAll(slices);
    lastObjects = objects;
    last = new Pools(slices, s -> next.get(s.getMetadata().getName()));
    return last;
  }

  // the listing names the same slice versions as the last one (names are unique in a listing)
  private boolean unchanged(List<ResourceSlice> slices) {
    if (slices.size() != bySlice.size()) {
      return false;
    }
    if (lastObjects.size() == slices.size() && lastObjects.containsAll(slices)) {
      return true;
    }
    for (ResourceSlice s : slices) {
      SliceDevices known = bySlice.get(s.getMetadata().getName());
      if (known == null || !known.sameVersion(s)) {
        return false;
      }
    }
    return true;
  }
}
