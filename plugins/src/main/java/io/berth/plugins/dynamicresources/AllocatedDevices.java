package io.berth.plugins.dynamicresources;

import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigInteger;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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
  // claim uid -> the devices of the claim object last listed under that uid
  private Map<String, Decoded> decoded = new HashMap<>();

  private record Decoded(ResourceClaim claim, Set<DeviceId> devices) {}

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

  /** The newest known state of a claim: the written one while the informer lags behind it. */
  synchronized ResourceClaim claim(ResourceClaim fromInformer) {
    ResourceClaim mine = assumed.get(fromInformer.getMetadata().getUid());
    return mine != null && olderThan(fromInformer, mine) ? mine : fromInformer;
  }

  /**
   * Every device in use: allocated to one of {@code fromInformer} (the lister's claims, each
   * replaced by its written state while newer) or in flight. A new immutable set.
   */
  synchronized Set<DeviceId> snapshot(List<ResourceClaim> fromInformer) {
    Set<DeviceId> all = new HashSet<>();
    Map<String, Decoded> next = new HashMap<>(Math.max(16, decoded.size() * 2));
    for (ResourceClaim c : fromInformer) {
      ResourceClaim current = claim(c);
      String uid = current.getMetadata().getUid();
      Decoded d = decoded.get(uid);
      if (d == null || d.claim() != current) {
        d = new Decoded(current, current.getStatus() == null ? Set.of()
            : devices(current.getStatus().getAllocation()));
      }
      next.put(uid, d);
      all.addAll(d.devices());
    }
    // claims gone from the listing are forgotten with this swap
    decoded = next;
    // written claims the lister does not show yet
    for (Map.Entry<String, ResourceClaim> e : assumed.entrySet()) {
      if (!next.containsKey(e.getKey()) && e.getValue().getStatus() != null) {
        all.addAll(devices(e.getValue().getStatus().getAllocation()));
      }
    }
    for (ResourceClaim c : pending.values()) {
      all.addAll(devices(c.getStatus().getAllocation()));
    }
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
    try {
      return Optional.of(new BigInteger(c.getMetadata().getResourceVersion()));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
