package io.berth.plugins.dynamicresources;

import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The devices in use, as upstream's allocated-devices tracker and claim assume cache together:
 * fed by the ResourceClaim informer (a claim's {@code status.allocation} results, those with
 * {@code adminAccess} left out), by allocations in flight (assumed in Reserve, dropped in
 * Unreserve or once PreBind has written them) and by claims this scheduler wrote and the informer
 * has not delivered yet (kept until an informer event at the same or a newer resourceVersion).
 * {@link #claim} answers the newest of the informer's and the assumed object, so a pod sharing a
 * claim sees the allocation PreBind just wrote.
 *
 * <p>Thread-safe: every map is guarded by {@code this}; {@link #snapshot} returns an immutable
 * set rebuilt only after a change.
 */
final class AllocatedDevices {
  // claim uid -> devices of its allocation, from the informer or an assumed write
  private final Map<String, Set<DeviceId>> byClaim = new HashMap<>();
  // claim uid -> the claim as Reserve assumed it (allocation in flight)
  private final Map<String, ResourceClaim> pending = new HashMap<>();
  // claim uid -> the claim as PreBind wrote it, until the informer catches up
  private final Map<String, ResourceClaim> assumed = new HashMap<>();
  private Set<DeviceId> snapshot = Set.of();
  private boolean dirty;

  /** An informer add or update. */
  synchronized void upsert(ResourceClaim claim) {
    String uid = claim.getMetadata().getUid();
    ResourceClaim mine = assumed.get(uid);
    if (mine != null) {
      if (olderThan(claim, mine)) {
        return;
      }
      assumed.remove(uid);
    }
    put(uid, devices(claim.getStatus() == null ? null : claim.getStatus().getAllocation()));
  }

  /** An informer delete. */
  synchronized void delete(ResourceClaim claim) {
    String uid = claim.getMetadata().getUid();
    assumed.remove(uid);
    if (byClaim.remove(uid) != null) {
      dirty = true;
    }
  }

  /** Reserve's assumption: {@code claim} carries the allocation chosen for it. */
  synchronized void signalPending(ResourceClaim claim) {
    pending.put(claim.getMetadata().getUid(), claim);
    dirty = true;
  }

  synchronized boolean hasPending(String uid) {
    return pending.containsKey(uid);
  }

  /** Drops an in-flight allocation; true when there was one. */
  synchronized boolean removePending(String uid) {
    boolean removed = pending.remove(uid) != null;
    dirty |= removed;
    return removed;
  }

  /** PreBind wrote {@code written} (the API server's answer): its allocation counts from now on. */
  synchronized void assumeWritten(ResourceClaim written) {
    String uid = written.getMetadata().getUid();
    pending.remove(uid);
    assumed.put(uid, written);
    put(uid, devices(written.getStatus() == null ? null : written.getStatus().getAllocation()));
  }

  /** The newest known state of a claim: the assumed one while the informer lags behind it. */
  synchronized ResourceClaim claim(ResourceClaim fromInformer) {
    ResourceClaim mine = assumed.get(fromInformer.getMetadata().getUid());
    return mine != null && olderThan(fromInformer, mine) ? mine : fromInformer;
  }

  /** Every device in use: allocated to a claim or in flight. */
  synchronized Set<DeviceId> snapshot() {
    if (dirty) {
      Set<DeviceId> all = new HashSet<>();
      byClaim.values().forEach(all::addAll);
      for (ResourceClaim c : pending.values()) {
        all.addAll(devices(c.getStatus().getAllocation()));
      }
      snapshot = Set.copyOf(all);
      dirty = false;
    }
    return snapshot;
  }

  private void put(String uid, Set<DeviceId> devices) {
    Set<DeviceId> old = devices.isEmpty() ? byClaim.remove(uid) : byClaim.put(uid, devices);
    if (!devices.equals(old == null ? Set.of() : old)) {
      dirty = true;
    }
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
