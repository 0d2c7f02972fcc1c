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
import org.junit.jupiter.api.Test;

class AllocatedDevicesTest {
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

  @Test
  void listerAllocationsCountAdminAccessDoesNot() {
    AllocatedDevices cache = new AllocatedDevices();
    List<ResourceClaim> lister = List.of(allocated("a", "1", false, "d1", "d2"),
        allocated("b", "1", true, "d3"));
    assertEquals(Set.of(dev("d1"), dev("d2")), cache.snapshot(lister));
    assertEquals(Set.of(), cache.snapshot(List.of(unallocated("a", "2"))));
  }

  @Test
  void eachListingFollowsTheClaimsItLists() {
    AllocatedDevices cache = new AllocatedDevices();
    ResourceClaim a1 = allocated("a", "1", false, "d1");
    ResourceClaim b1 = allocated("b", "1", false, "d3");
    assertEquals(Set.of(dev("d1"), dev("d3")), cache.snapshot(List.of(a1, b1)));
    // the same objects again, then a new object of claim a with other devices
    assertEquals(Set.of(dev("d1"), dev("d3")), cache.snapshot(List.of(b1, a1)));
    assertEquals(Set.of(dev("d2"), dev("d3")),
        cache.snapshot(List.of(allocated("a", "2", false, "d2"), b1)));
    // b deleted, then recreated unallocated under the same uid
    assertEquals(Set.of(dev("d2")), cache.snapshot(List.of(allocated("a", "2", false, "d2"))));
    assertEquals(Set.of(), cache.snapshot(List.of(unallocated("b", "3"))));
  }

  @Test
  void writtenClaimWinsOverAStaleLister() {
    AllocatedDevices cache = new AllocatedDevices();
    ResourceClaim before = unallocated("a", "5");
    cache.signalPending(allocated("a", "5", false, "d1"));
    assertTrue(cache.hasPending("uid-a"));
    assertEquals(Set.of(dev("d1")), cache.snapshot(List.of(before)));
    ResourceClaim written = allocated("a", "7", false, "d1");
    cache.assumeWritten(written);
    assertFalse(cache.hasPending("uid-a"));
    // the lister still shows an older state: the write counts
    assertEquals(Set.of(dev("d1")), cache.snapshot(List.of(unallocated("a", "6"))));
    assertEquals(Set.of(dev("d1")), cache.snapshot(List.of()));
    assertSame(written, cache.claim(before));
    // the informer catches up, then the claim is deallocated
    ResourceClaim seen = allocated("a", "7", false, "d1");
    cache.upsert(seen);
    assertSame(seen, cache.claim(seen));
    assertEquals(Set.of(), cache.snapshot(List.of(unallocated("a", "8"))));
    cache.delete(seen);
    assertEquals(Set.of(), cache.snapshot(List.of()));
  }

  @Test
  void concurrentWritersAndReadersAgree() throws Exception {
    AllocatedDevices cache = new AllocatedDevices();
    int threads = 8;
    int perThread = 500;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < perThread; i++) {
          String name = "c-" + id + "-" + i;
          // each claim: pending -> written (even ones) or released (odd ones)
          cache.signalPending(allocated(name, "1", false, name));
          if (i % 2 == 0) {
            cache.assumeWritten(allocated(name, "2", false, name));
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
        for (int i = 0; i < 500; i++) {
          Set<DeviceId> s = cache.snapshot(List.of());
          // a snapshot never shows more devices than were ever taken
          assertTrue(s.size() <= threads * perThread);
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    Set<DeviceId> expected = new HashSet<>();
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i += 2) {
        expected.add(dev("c-" + t + "-" + i));
      }
    }
    assertEquals(expected, cache.snapshot(List.of()));
    for (int t = 0; t < threads; t++) {
      assertFalse(cache.hasPending("uid-c-" + t + "-1"));
    }
  }
}
