package io.berth.plugins.dynamicresources;

import static io.berth.plugins.dynamicresources.structured.DraObjects.claim;
import static io.berth.plugins.dynamicresources.structured.DraObjects.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AllocatedDevicesTest {
  private final MapLister<ResourceClaim> lister = new MapLister<>();
  private final AllocatedDevices cache = new AllocatedDevices(lister);

  private static ResourceClaim allocated(String name, String rv, boolean admin,
      String... devices) {
    ResourceClaimBuilder b = new ResourceClaimBuilder(claim(name, request("r", "gpu", 1)));
    b.editMetadata().withUid("uid-" + name).withResourceVersion(rv).endMetadata();
    var alloc = b.withNewStatus().withNewAllocation().withNewDevices();
    for (String d : devices) {
      alloc.addNewResult().withRequest("r").withDriver("drv").withPool("pool").withDevice(d)
          .withAdminAccess(admin ? true : null).endResult();
    }
    return alloc.endDevices().endAllocation().endStatus().build();
  }

  private static ResourceClaim unallocated(String name, String rv) {
    ResourceClaimBuilder b = new ResourceClaimBuilder(claim(name, request("r", "gpu", 1)));
    return b.editMetadata().withUid("uid-" + name).withResourceVersion(rv).endMetadata().build();
  }

  private static DeviceId dev(String d) {
    return new DeviceId("drv", "pool", d);
  }

  // what the informer does: the store first, then the notification
  private void informer(ResourceClaim c) {
    lister.put(c);
    cache.upsert(c);
  }

  private void informerDelete(ResourceClaim c) {
    lister.remove(c);
    cache.delete(c);
  }

  @Test
  void listerAllocationsCountAdminAccessDoesNot() {
    informer(allocated("a", "1", false, "d1", "d2"));
    informer(allocated("b", "1", true, "d3"));
    assertEquals(Set.of(dev("d1"), dev("d2")), cache.snapshot());
    informer(unallocated("a", "2"));
    assertEquals(Set.of(), cache.snapshot());
  }

  @Test
  void theIndexFollowsEachClaimsChanges() {
    informer(allocated("a", "1", false, "d1"));
    ResourceClaim b1 = allocated("b", "1", false, "d3");
    informer(b1);
    assertEquals(Set.of(dev("d1"), dev("d3")), cache.snapshot());
    // a repeated notification changes nothing
    cache.upsert(b1);
    assertEquals(Set.of(dev("d1"), dev("d3")), cache.snapshot());
    informer(allocated("a", "2", false, "d2"));
    assertEquals(Set.of(dev("d2"), dev("d3")), cache.snapshot());
    // b deleted, then recreated unallocated under the same name
    informerDelete(b1);
    assertEquals(Set.of(dev("d2")), cache.snapshot());
    informer(unallocated("b", "3"));
    assertEquals(Set.of(dev("d2")), cache.snapshot());
    // the live view follows too
    assertTrue(cache.inUse().contains(dev("d2")));
    assertFalse(cache.inUse().contains(dev("d3")));
  }

  @Test
  void aRefreshBeforeTheHandlerFreesADeallocatedClaimsDevicesAndALateNotificationKeepsItFree() {
    ResourceClaim allocated = allocated("a", "1", false, "d1");
    informer(allocated);
    // the store has the deallocation; the queue's hint refreshes before this cache's handler ran
    lister.put(unallocated("a", "2"));
    cache.refresh("default", "a");
    assertEquals(Set.of(), cache.snapshot());
    // the handler's notification, late, carries the old object as oldObj: nothing comes back
    cache.upsert(allocated);
    assertEquals(Set.of(), cache.snapshot());
  }

  @Test
  void writtenClaimWinsOverAStaleLister() {
    ResourceClaim before = unallocated("a", "5");
    informer(before);
    cache.signalPending(allocated("a", "5", false, "d1"));
    assertTrue(cache.hasPending("uid-a"));
    assertEquals(Set.of(dev("d1")), cache.snapshot());
    ResourceClaim written = allocated("a", "7", false, "d1");
    cache.assumeWritten(written);
    assertFalse(cache.hasPending("uid-a"));
    // the lister still shows an older state: the write counts
    informer(unallocated("a", "6"));
    assertEquals(Set.of(dev("d1")), cache.snapshot());
    assertSame(written, cache.claim(before));
    // the informer catches up, then the claim is deallocated, then deleted
    ResourceClaim seen = allocated("a", "7", false, "d1");
    informer(seen);
    assertSame(seen, cache.claim(seen));
    assertEquals(Set.of(dev("d1")), cache.snapshot());
    informer(unallocated("a", "8"));
    assertEquals(Set.of(), cache.snapshot());
    informerDelete(seen);
    assertEquals(Set.of(), cache.snapshot());
  }

  @Test
  void aWriteTheListerAlreadyShowsIsRetiredAtOnce() {
    ResourceClaim written = allocated("a", "7", false, "d1");
    cache.signalPending(allocated("a", "6", false, "d1"));
    // the informer's event came before PreBind recorded its write
    informer(written);
    cache.assumeWritten(written);
    assertEquals(Set.of(dev("d1")), cache.snapshot());
    informer(unallocated("a", "8"));
    assertEquals(Set.of(), cache.snapshot());
  }

  @Test
  void concurrentWritersInformerAndReadersAgree() throws Exception {
    // claims the readers must see in use all along
    for (int i = 0; i < 50; i++) {
      informer(allocated("stable-" + i, "1", false, "stable-" + i));
    }
    int threads = 6;
    int perThread = 400;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
    CountDownLatch start = new CountDownLatch(1);
    AtomicBoolean done = new AtomicBoolean();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < perThread; i++) {
          String name = "c-" + id + "-" + i;
          informer(unallocated(name, "1"));
          // each claim: pending -> written (even ones) or released (odd ones); the informer then
          // delivers the write of even ones, sometimes before PreBind recorded it
          cache.signalPending(allocated(name, "1", false, name));
          if (i % 2 == 0) {
            ResourceClaim written = allocated(name, "2", false, name);
            if (i % 4 == 0) {
              informer(written);
              cache.assumeWritten(written);
            } else {
              cache.assumeWritten(written);
              informer(written);
            }
          } else {
            assertTrue(cache.removePending("uid-" + name));
          }
        }
        return null;
      }));
    }
    for (int r = 0; r < 2; r++) {
      futures.add(pool.submit(() -> {
        start.await();
        while (!done.get()) {
          for (int i = 0; i < 50; i++) {
            assertTrue(cache.inUse().contains(dev("stable-" + i)), "stable-" + i);
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures.subList(0, threads)) {
      f.get(60, TimeUnit.SECONDS);
    }
    done.set(true);
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    Set<DeviceId> expected = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      expected.add(dev("stable-" + i));
    }
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i += 2) {
        expected.add(dev("c-" + t + "-" + i));
      }
    }
    assertEquals(expected, cache.snapshot());
    // and the index agrees with a listing of the lister from scratch
    Set<DeviceId> listed = new HashSet<>();
    for (ResourceClaim c : lister.list()) {
      if (c.getStatus() != null) {
        listed.addAll(AllocatedDevices.devices(c.getStatus().getAllocation(), true));
      }
    }
    assertEquals(listed, cache.snapshot());
    for (int t = 0; t < threads; t++) {
      assertFalse(cache.hasPending("uid-c-" + t + "-1"));
    }
  }

  private static ResourceClaim shared(String name, String rv, String device, String memory) {
    ResourceClaimBuilder b = new ResourceClaimBuilder(claim(name, request("r", "gpu", 1)));
    b.editMetadata().withUid("uid-" + name).withResourceVersion(rv).endMetadata();
    return b.withNewStatus().withNewAllocation().withNewDevices().addNewResult().withRequest("r")
        .withDriver("drv").withPool("pool").withDevice(device).withShareID("share-" + name)
        .withConsumedCapacity(java.util.Map.of("memory",
            new io.fabric8.kubernetes.api.model.Quantity(memory)))
        .endResult().endDevices().endAllocation().endStatus().build();
  }

  @Test
  void sharesOfADeviceCountByWhatTheyConsumeNotAsInUse() {
    informer(shared("a", "1", "d1", "2Gi"));
    informer(shared("b", "1", "d1", "3Gi"));
    assertEquals(Set.of(), cache.snapshot());
    assertEquals(0, new java.math.BigDecimal(5L << 30).compareTo(
        cache.consumed(dev("d1")).get("memory")));
    informerDelete(shared("a", "1", "d1", "2Gi"));
    assertEquals(0, new java.math.BigDecimal(3L << 30).compareTo(
        cache.consumed(dev("d1")).get("memory")));
    informerDelete(shared("b", "1", "d1", "3Gi"));
    assertEquals(java.util.Map.of(), cache.consumed(dev("d1")));
  }

  @Test
  void withoutConsumableCapacityASharedResultBlocksItsDevice() {
    AllocatedDevices gateOff = new AllocatedDevices(lister, false);
    ResourceClaim a = shared("a", "1", "d1", "2Gi");
    lister.put(a);
    gateOff.upsert(a);
    assertEquals(Set.of(dev("d1")), gateOff.snapshot());
    assertEquals(java.util.Map.of(), gateOff.consumed(dev("d1")));
    lister.remove(a);
    gateOff.delete(a);
    assertEquals(Set.of(), gateOff.snapshot());
  }

  @Test
  void readersNeverSeeAShareVanishWhileItsClaimChanges() throws Exception {
    informer(shared("a", "1", "d1", "2Gi"));
    java.math.BigDecimal two = new java.math.BigDecimal(2L << 30);
    java.math.BigDecimal three = new java.math.BigDecimal(3L << 30);
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Future<?>> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      readers.add(pool.submit(() -> {
        while (!stop.get()) {
          java.math.BigDecimal m = cache.consumed(dev("d1")).get("memory");
          // the new share is added before the old one goes: 2Gi, 3Gi or both, never none
          assertTrue(m != null && (m.compareTo(two) == 0 || m.compareTo(three) == 0
              || m.compareTo(two.add(three)) == 0), "consumed " + m);
        }
        return null;
      }));
    }
    Future<?> writer = pool.submit(() -> {
      for (int rv = 2; rv < 2000; rv++) {
        informer(shared("a", Integer.toString(rv), "d1", rv % 2 == 0 ? "3Gi" : "2Gi"));
      }
      return null;
    });
    writer.get(60, TimeUnit.SECONDS);
    stop.set(true);
    for (Future<?> f : readers) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertEquals(0, two.compareTo(cache.consumed(dev("d1")).get("memory")));
  }
}
