package io.berth.plugins.dynamicresources;

import io.berth.framework.ObjectLister;
import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The devices in use, as upstream's allocated-devices tracker over its claim assume cache: the
 * allocations ({@code status.allocation} results, those with {@code adminAccess} left out) of the
 * claims the ResourceClaim lister holds, where a claim this scheduler wrote and the informer has
 * not delivered yet counts as written (kept until the lister shows the same or a newer
 * resourceVersion), plus the allocations in flight (assumed in Reserve, dropped in Unreserve or
 * once PreBind has written them). {@link #claim} answers the newest of the lister's and the
 * written object, so a pod sharing a claim sees the allocation PreBind just wrote.
 *
 * <p>The index is kept per claim from the informer's notifications, and every update re-reads
 * the claim from the lister ({@link #refresh}): the queue's own handler may move a pod on a claim
 * event before this cache's handler has run, so the plugin's queueing hint and {@link #claim}
 * refresh the claims they look at too, and whichever comes first brings the index up to the
 * lister (a refresh applies the lister's current state, so a late or repeated one changes
 * nothing). A cycle therefore costs no listing: {@link #inUse} is a live view that Filter reads
 * without a lock.
 *
 * <p>With DRAConsumableCapacity (the default), a device that allows multiple allocations is never
 * in {@link #inUse}: the results that share it (with a {@code shareID}) count by what they consume
 * of its capacities ({@link #consumed}). With the gate off, every result blocks its device.
 *
 * <p>Thread-safety: {@code informer}, {@code assumed} and {@code pending} are guarded by
 * {@code this}; {@code counts} and {@code shares} are written only under {@code this} and read
 * without it. Every
 * change adds a claim's new devices before it removes its old ones, so a device that some
 * claim's state holds throughout never disappears from {@link #inUse} for a reader.
 */
final class AllocatedDevices {
  // claim "namespace/name" -> the lister's object and its devices (allocated claims only)
  private final Map<String, Indexed> informer = new HashMap<>();
  // claim "namespace/name" -> the claim as PreBind wrote it, until the lister catches up
  private final Map<String, Indexed> assumed = new HashMap<>();
  // claim uid -> the claim as Reserve assumed it (allocation in flight)
  private final Map<String, Indexed> pending = new HashMap<>();
  // device -> how many of the states above hold it; a device is in use while it is a key
  private final ConcurrentHashMap<DeviceId, Integer> counts = new ConcurrentHashMap<>();
  private final Set<DeviceId> inUse = Collections.unmodifiableSet(counts.keySet());
  private final ObjectLister<ResourceClaim> lister;
  private final boolean consumableCapacity;

  // device -> what each state holding a share of it consumes (copy-on-write lists: replaced, never
  // changed, under this; read without it)
  private final ConcurrentHashMap<DeviceId, List<Share>> shares = new ConcurrentHashMap<>();

  // one allocation result with a shareID: its device and what it consumes of each capacity
  private record Share(DeviceId device, Map<String, BigDecimal> consumed) {
  }

  private record Indexed(ResourceClaim claim, DeviceId[] devices, Share[] shares) {
    static Indexed of(ResourceClaim claim, boolean consumableCapacity) {
      AllocationResult a = claim.getStatus() == null ? null : claim.getStatus().getAllocation();
      return new Indexed(claim,
          AllocatedDevices.devices(a, consumableCapacity).toArray(DeviceId[]::new),
          AllocatedDevices.shares(a, consumableCapacity).toArray(Share[]::new));
    }
  }

  AllocatedDevices(ObjectLister<ResourceClaim> lister) {
    this(lister, true);
  }

  /**
   * With DRAConsumableCapacity off ({@code consumableCapacity} false), results with a
   * {@code shareID} block their device like any other result, as upstream gathers them then.
   */
  AllocatedDevices(ObjectLister<ResourceClaim> lister, boolean consumableCapacity) {
    this.lister = lister;
    this.consumableCapacity = consumableCapacity;
  }

  /** An informer add or update: the index follows the lister. */
  void upsert(ResourceClaim claim) {
    refresh(claim.getMetadata().getNamespace(), claim.getMetadata().getName());
  }

  /** An informer delete. */
  void delete(ResourceClaim claim) {
    refresh(claim.getMetadata().getNamespace(), claim.getMetadata().getName());
  }

  /**
   * Brings one claim's entry up to the lister's current object (none when it is gone), and
   * retires its written state once the lister is as new.
   */
  synchronized void refresh(String namespace, String name) {
    String key = key(namespace, name);
    ResourceClaim current = lister.get(namespace, name).orElse(null);
    Indexed old = informer.get(key);
    if (current == null) {
      if (old != null) {
        informer.remove(key);
        release(old);
      }
    } else if (old == null || old.claim() != current) {
      if (PodClaims.allocated(current)) {
        Indexed now = Indexed.of(current, consumableCapacity);
        informer.put(key, now);
        take(now);
      } else {
        informer.remove(key);
      }
      if (old != null) {
        release(old);
      }
    }
    Indexed mine = assumed.get(key);
    if (mine != null && (current == null
        || !Objects.equals(uid(current), uid(mine.claim()))
        || !olderThan(current, mine.claim()))) {
      assumed.remove(key);
      release(mine);
    }
  }

  /** Reserve's assumption: {@code claim} carries the allocation chosen for it. */
  synchronized void signalPending(ResourceClaim claim) {
    Indexed now = Indexed.of(claim, consumableCapacity);
    take(now);
    Indexed old = pending.put(uid(claim), now);
    if (old != null) {
      release(old);
    }
  }

  synchronized boolean hasPending(String uid) {
    return pending.containsKey(uid);
  }

  /** Drops an in-flight allocation; true when there was one. */
  synchronized boolean removePending(String uid) {
    Indexed old = pending.remove(uid);
    if (old != null) {
      release(old);
    }
    return old != null;
  }

  /** PreBind wrote {@code written} (the API server's answer): its allocation counts from now on. */
  synchronized void assumeWritten(ResourceClaim written) {
    Indexed now = Indexed.of(written, consumableCapacity);
    take(now);
    Indexed wasPending = pending.remove(uid(written));
    if (wasPending != null) {
      release(wasPending);
    }
    Indexed old = assumed.put(key(written.getMetadata().getNamespace(),
        written.getMetadata().getName()), now);
    if (old != null) {
      release(old);
    }
    // the informer's event may have come before this write was recorded
    refresh(written.getMetadata().getNamespace(), written.getMetadata().getName());
  }

  /**
   * The newest known state of a claim: the written one while the lister lags behind it. A
   * lister object as new as the written one retires the written one.
   */
  synchronized ResourceClaim claim(ResourceClaim fromInformer) {
    String namespace = fromInformer.getMetadata().getNamespace();
    String name = fromInformer.getMetadata().getName();
    refresh(namespace, name);
    Indexed mine = assumed.get(key(namespace, name));
    if (mine != null && Objects.equals(uid(mine.claim()), uid(fromInformer))
        && olderThan(fromInformer, mine.claim())) {
      return mine.claim();
    }
    return fromInformer;
  }

  /**
   * Every device in use, allocated to a claim the lister holds (or as written) or in flight: a
   * live, unmodifiable view, safe to read from any thread without a lock.
   */
  Set<DeviceId> inUse() {
    return inUse;
  }

  /** A copy of {@link #inUse} (tests). */
  Set<DeviceId> snapshot() {
    return Set.copyOf(counts.keySet());
  }

  /**
   * What the allocations in use consume of each capacity of a shared device (one that allows
   * multiple allocations; such results carry a {@code shareID}): summed per capacity name, safe to
   * call from any thread without a lock.
   */
  Map<String, BigDecimal> consumed(DeviceId device) {
    List<Share> list = shares.get(device);
    if (list == null) {
      return Map.of();
    }
    Map<String, BigDecimal> sum = new HashMap<>();
    for (Share share : list) {
      share.consumed().forEach((name, v) -> sum.merge(name, v, BigDecimal::add));
    }
    return sum;
  }

  // callers hold this
  private void take(Indexed state) {
    for (DeviceId id : state.devices()) {
      counts.merge(id, 1, Integer::sum);
    }
    for (Share share : state.shares()) {
      shares.compute(share.device(), (k, old) -> {
        List<Share> now = new ArrayList<>(old == null ? List.of() : old);
        now.add(share);
        return List.copyOf(now);
      });
    }
  }

  // callers hold this
  private void release(Indexed state) {
    for (DeviceId id : state.devices()) {
      counts.computeIfPresent(id, (k, n) -> n == 1 ? null : n - 1);
    }
    for (Share share : state.shares()) {
      shares.computeIfPresent(share.device(), (k, old) -> {
        List<Share> now = new ArrayList<>(old);
        // this state's own entry, by identity (another state may hold an equal one)
        for (int i = 0; i < now.size(); i++) {
          if (now.get(i) == share) {
            now.remove(i);
            break;
          }
        }
        return now.isEmpty() ? null : List.copyOf(now);
      });
    }
  }

  /**
   * The devices of an allocation that block others: admin access ones do not, nor (with
   * DRAConsumableCapacity) shares of a device that allows multiple allocations (results with a
   * {@code shareID}).
   */
  static Set<DeviceId> devices(AllocationResult allocation, boolean consumableCapacity) {
    if (allocation == null || allocation.getDevices() == null
        || allocation.getDevices().getResults() == null) {
      return Set.of();
    }
    Set<DeviceId> out = new HashSet<>();
    for (DeviceRequestAllocationResult r : allocation.getDevices().getResults()) {
      if (!Boolean.TRUE.equals(r.getAdminAccess())
          && (r.getShareID() == null || !consumableCapacity)) {
        out.add(new DeviceId(r.getDriver(), r.getPool(), r.getDevice()));
      }
    }
    return out;
  }

  // the shares of an allocation (results with a shareID, admin access ones left out); none
  // without DRAConsumableCapacity
  private static List<Share> shares(AllocationResult allocation, boolean consumableCapacity) {
    if (!consumableCapacity || allocation == null || allocation.getDevices() == null
        || allocation.getDevices().getResults() == null) {
      return List.of();
    }
    List<Share> out = new ArrayList<>();
    for (DeviceRequestAllocationResult r : allocation.getDevices().getResults()) {
      if (!Boolean.TRUE.equals(r.getAdminAccess()) && r.getShareID() != null) {
        Map<String, BigDecimal> consumed = new HashMap<>();
        if (r.getConsumedCapacity() != null) {
          r.getConsumedCapacity().forEach((name, q) -> {
            if (q != null) {
              consumed.put(name, Quantity.getAmountInBytes(q));
            }
          });
        }
        out.add(new Share(new DeviceId(r.getDriver(), r.getPool(), r.getDevice()),
            Map.copyOf(consumed)));
      }
    }
    return out;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static String uid(ResourceClaim c) {
    return c.getMetadata().getUid();
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
