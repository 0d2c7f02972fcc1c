package io.berth.plugins.dynamicresources;

import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigInteger;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The devices in use, as upstream's allocated-devices listing over its claim assume cache: the
 * allocations ({@code status.allocation} results, those with {@code adminAccess} left out) of the
 * claims the ResourceClaim lister holds, where a claim this scheduler wrote and the informer has
 * not delivered yet counts as written (kept until an informer event at the same or a newer
 * resourceVersion), plus the allocations in flight (assumed in Reserve, dropped in Unreserve or
 * once PreBind has written them). {@link #claim} answers the newest of the informer's and the
 * written object, so a pod sharing a claim sees the allocation PreBind just wrote.
 *
 * <p>The listing is computed from the lister on each call, not from informer events: the queue
 * may move a pod on a claim event before this cache's own handler has seen it, while the lister
 * is already up to date; each claim object's devices are decoded once (memoized by object
 * identity, as informer objects are replaced, never changed), so a listing costs a pass over
 * the claims and a union of their device sets. Thread-safe: all three maps are guarded by
 * {@code this}.
 */
final class AllocatedDevices {
  // claim uid -> the claim as Reserve assumed it (allocation in flight)
  private final Map<String, ResourceClaim> pending = new HashMap<>();
  // claim uid -> the claim as PreBind wrote it, until the informer catches up
  private final Map<String, ResourceClaim> assumed = new HashMap<>();
  // allocated claim object (by identity: informer objects are replaced, never changed) -> its
  // devices; entries of objects no longer listed are dropped when they outnumber the listed ones
  private final Map<ResourceClaim, Decoded> decoded = new IdentityHashMap<>();
  // numbers the snapshots; a Decoded seen in the current one carries its number
  private long listing;
  // devices in the last snapshot: the next one's initial capacity
  private int lastSize;

  // guarded by the enclosing instance
  private static final class Decoded {
    final DeviceId[] devices;
    long seen;

    Decoded(ResourceClaim claim) {
      this.devices = claim.getStatus() == null ? new DeviceId[0]
          : AllocatedDevices.devices(claim.getStatus().getAllocation()).toArray(DeviceId[]::new);
    }
  }

  /** An informer add or update: a written claim the informer has caught up with is dropped. */
  synchronized void upsert(ResourceClaim claim) {
    String uid = claim.getMetadata().getUid();
    ResourceClaim mine = assumed.get(uid);
    if (mine != null && !olderThan(claim, mine)) {
      assumed.remove(uid);
    }
  }

  /** An informer delete. */
  synchronized void delete(ResourceClaim claim) {
    assumed.remove(claim.getMetadata().getUid());
  }

  /** Reserve's assumption: {@code claim} carries the allocation chosen for it. */
  synchronized void signalPending(ResourceClaim claim) {
    pending.put(claim.getMetadata().getUid(), claim);
  }

  synchronized boolean hasPending(String uid) {
    return pending.containsKey(uid);
  }

  /** Drops an in-flight allocation; true when there was one. */
  synchronized boolean removePending(String uid) {
    return pending.remove(uid) != null;
  }

  /** PreBind wrote {@code written} (the API server's answer): its allocation counts from now on. */
  synchronized void assumeWritten(ResourceClaim written) {
    String uid = written.getMetadata().getUid();
    pending.remove(uid);
    assumed.put(uid, written);
  }

  /**
   * The newest known state of a claim: the written one while the informer lags behind it. An
   * informer object as new as the written one retires the written one (the informer's event
   * may have come before PreBind recorded its write).
   */
  synchronized ResourceClaim claim(ResourceClaim fromInformer) {
    String uid = fromInformer.getMetadata().getUid();
    ResourceClaim mine = assumed.get(uid);
    if (mine == null) {
      return fromInformer;
    }
    if (olderThan(fromInformer, mine)) {
      return mine;
    }
    assumed.remove(uid);
    return fromInformer;
  }

  /**
   * Every device in use: allocated to one of {@code fromInformer} (the lister's claims, each
   * replaced by its written state while newer) or in flight. A new immutable set.
   */
  synchronized Set<DeviceId> snapshot(List<ResourceClaim> fromInformer) {
    Set<DeviceId> all = new HashSet<>(Math.max(16, lastSize * 4 / 3 + 16));
    long now = ++listing;
    int seen = 0;
    // uids of written claims the listing shows (older than written)
    Set<String> listedWritten = assumed.isEmpty() ? Set.of() : new HashSet<>();
    for (ResourceClaim c : fromInformer) {
      ResourceClaim current = c;
      if (!assumed.isEmpty()) {
        String uid = c.getMetadata().getUid();
        ResourceClaim mine = assumed.get(uid);
        if (mine != null && olderThan(c, mine)) {
          current = mine;
          listedWritten.add(uid);
        } else if (mine != null) {
          assumed.remove(uid); // the informer caught up
        }
      }
      if (current.getStatus() == null || current.getStatus().getAllocation() == null) {
        continue; // nothing to decode (nor to forget: an unlisted entry is pruned below)
      }
      Decoded d = decoded.get(current);
      if (d == null) {
        d = new Decoded(current);
        decoded.put(current, d);
      }
      d.seen = now;
      seen++;
      for (DeviceId id : d.devices) {
        all.add(id);
      }
    }
    if (decoded.size() > 2 * seen + 16) {
      decoded.values().removeIf(d -> d.seen != now);
    }
    // written claims the lister does not show yet
    for (Map.Entry<String, ResourceClaim> e : assumed.entrySet()) {
      if (!listedWritten.contains(e.getKey()) && e.getValue().getStatus() != null) {
        all.addAll(devices(e.getValue().getStatus().getAllocation()));
      }
    }
    for (ResourceClaim c : pending.values()) {
      all.addAll(devices(c.getStatus().getAllocation()));
    }
    lastSize = all.size();
    return Collections.unmodifiableSet(all);
  }

  /** The devices of an allocation that block others (admin access ones do not). */
  static Set<DeviceId> devices(AllocationResult allocation) {
    if (allocation == null || allocation.getDevices() == null
        || allocation.getDevices().getResults() == null) {
      return Set.of();
    }
    Set<DeviceId> out = new HashSet<>();
    for (DeviceRequestAllocationResult r : allocation.getDevices().getResults()) {
      if (!Boolean.TRUE.equals(r.getAdminAccess())) {
        out.add(new DeviceId(r.getDriver(), r.getPool(), r.getDevice()));
      }
    }
    return out;
  }

  // resourceVersions are opaque, but integers on every API server we talk to; when not, the
  // informer's object wins
  private static boolean olderThan(ResourceClaim a, ResourceClaim b) {
    Optional<BigInteger> ra = version(a);
    Optional<BigInteger> rb = version(b);
    return ra.isPresent() && rb.isPresent() && ra.get().compareTo(rb.get()) < 0;
  }

  private static Optional<BigInteger> version(ResourceClaim c) {
    String rv = c.getMetadata().getResourceVersion();
    if (rv == null || rv.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(BigInteger.valueOf(Long.parseLong(rv)));
    } catch (NumberFormatException e) {
      try {
        return Optional.of(new BigInteger(rv));
      } catch (NumberFormatException notANumber) {
        return Optional.empty();
      }
    }
  }
}
