package io.berth.plugins.volumebinding;

import static io.berth.plugins.volumebinding.VolumeFixtures.pv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AssumeCacheTest {
  // the "API server": what the informer would hold
  private final Map<String, PersistentVolume> api = new ConcurrentHashMap<>();
  private final AssumeCache<PersistentVolume> cache = new AssumeCache<>("PersistentVolume",
      name -> Optional.ofNullable(api.get(name)), () -> List.copyOf(api.values()));
  private final ExecutorService pool = Executors.newFixedThreadPool(8);

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private static PersistentVolume claimed(String name, String rv, String claim) {
    return pv(name, "sc").version(rv).claimRef("default", claim).build();
  }

  @Test
  void assumedVersionIsSeenUntilTheApiObjectMovesOn() {
    api.put("pv-1", pv("pv-1", "sc").version("5").build());

    cache.assume(claimed("pv-1", "5", "a"), "pod-a");

    assertThat(cache.get("pv-1").orElseThrow().getSpec().getClaimRef().getName()).isEqualTo("a");
    assertThat(cache.list(p -> true)).extracting(p -> p.getSpec().getClaimRef().getName())
        .containsExactly("a");
    assertThat(cache.getApi("pv-1").orElseThrow().getSpec().getClaimRef()).isNull();

    api.put("pv-1", pv("pv-1", "sc").version("6").build());

    assertThat(cache.get("pv-1").orElseThrow().getSpec().getClaimRef()).isNull();
    assertThat(cache.assumedBy("pv-1")).isEmpty();
  }

  @Test
  void anotherOwnerCannotAssumeWhileTheAssumptionIsLive() {
    api.put("pv-1", pv("pv-1", "sc").version("5").build());
    cache.assume(claimed("pv-1", "5", "a"), "pod-a");

    assertThatThrownBy(() -> cache.assume(claimed("pv-1", "5", "b"), "pod-b"))
        .isInstanceOf(AssumeCache.AssumeConflictException.class)
        .hasMessage("PersistentVolume \"pv-1\" is already assumed by pod pod-a");
    // the owner may assume again (a retried Reserve)
    cache.assume(claimed("pv-1", "5", "a"), "pod-a");
    assertThat(cache.assumedBy("pv-1")).contains("pod-a");
  }

  @Test
  void proposalsFromAnOlderVersionAreOutOfSync() {
    api.put("pv-1", pv("pv-1", "sc").version("7").build());

    assertThatThrownBy(() -> cache.assume(claimed("pv-1", "5", "a"), "pod-a"))
        .hasMessage("PersistentVolume \"pv-1\" is out of sync (stored: 7, assume: 5)");
    assertThatThrownBy(() -> cache.assume(claimed("pv-2", "1", "a"), "pod-a"))
        .hasMessage("PersistentVolume \"pv-2\" not found");
  }

  @Test
  void restoreDropsOnlyTheOwnersAssumptionAndIsIdempotent() {
    api.put("pv-1", pv("pv-1", "sc").version("5").build());
    cache.assume(claimed("pv-1", "5", "a"), "pod-a");

    assertThat(cache.restore("pv-1", "pod-b")).isFalse();
    assertThat(cache.assumedBy("pv-1")).contains("pod-a");
    assertThat(cache.restore("pv-1", "pod-a")).isTrue();
    assertThat(cache.restore("pv-1", "pod-a")).isFalse();
    assertThat(cache.get("pv-1").orElseThrow().getSpec().getClaimRef()).isNull();
  }

  @Test
  void concurrentAssumptionsOfOneVolumeHaveExactlyOneWinner() throws Exception {
    int threads = 8;
    for (int round = 0; round < 200; round++) {
      String name = "pv-" + round;
      api.put(name, pv(name, "sc").version("1").build());
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String owner = "pod-" + t;
        results.add(pool.submit(() -> {
          start.await();
          try {
            cache.assume(claimed(name, "1", owner), owner);
            return true;
          } catch (AssumeCache.AssumeConflictException e) {
            return false;
          }
        }));
      }
      start.countDown();
      List<String> winners = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        if (results.get(t).get(10, TimeUnit.SECONDS)) {
          winners.add("pod-" + t);
        }
      }
      assertThat(winners).as("round %d", round).hasSize(1);
      assertThat(cache.assumedBy(name)).contains(winners.get(0));
      assertThat(cache.get(name).orElseThrow().getSpec().getClaimRef().getName())
          .isEqualTo(winners.get(0));
    }
  }
}
