package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class MutationCacheTest {

  private final MutationCache<ConfigMap> cache = new MutationCache<>();

  private static ConfigMap object(String uid, String resourceVersion, String data) {
    return new ConfigMapBuilder().withNewMetadata().withNamespace("ns").withName("cm").withUid(uid)
        .withResourceVersion(resourceVersion).endMetadata().addToData("v", data).build();
  }

  @Test
  void withoutAWriteTheInformerCopyIsTheAnswer() {
    ConfigMap cached = object("u", "1", "a");
    assertThat(cache.newest("ns/cm", cached)).isSameAs(cached);
  }

  @Test
  void aCopyAtTheVersionOurWriteSupersededGivesTheWrittenObject() {
    ConfigMap written = object("u", "2", "b");
    cache.wrote("ns/cm", "1", written);
    assertThat(cache.newest("ns/cm", object("u", "1", "a"))).isSameAs(written);
  }

  @Test
  void backToBackWritesBeforeTheInformerCatchesUpKeepEveryVersionTheySuperseded() {
    cache.wrote("ns/cm", "1", object("u", "2", "b"));
    ConfigMap third = object("u", "3", "c");
    cache.wrote("ns/cm", "2", third);
    assertThat(cache.newest("ns/cm", object("u", "1", "a"))).isSameAs(third);
    assertThat(cache.newest("ns/cm", object("u", "2", "b"))).isSameAs(third);
  }

  @Test
  void theInformerCatchingUpOrMovingPastDropsTheEntry() {
    cache.wrote("ns/cm", "1", object("u", "2", "b"));
    ConfigMap caughtUp = object("u", "2", "b");
    assertThat(cache.newest("ns/cm", caughtUp)).isSameAs(caughtUp);
    assertThat(cache.size()).isZero();

    cache.wrote("ns/cm", "2", object("u", "3", "c"));
    ConfigMap someoneElses = object("u", "7", "z");
    assertThat(cache.newest("ns/cm", someoneElses)).isSameAs(someoneElses);
    assertThat(cache.size()).isZero();
  }

  @Test
  void aRecreatedObjectIsNeverAnsweredWithTheOldOnesWrite() {
    cache.wrote("ns/cm", "1", object("old", "2", "b"));
    ConfigMap recreated = object("new", "1", "fresh");
    assertThat(cache.newest("ns/cm", recreated)).isSameAs(recreated);
  }

  @Test
  void aNoOpWriteOrAForgottenKeyLeavesNothingToSubstitute() {
    cache.wrote("ns/cm", "1", object("u", "2", "b"));
    cache.wrote("ns/cm", "2", object("u", "2", "b"));
    assertThat(cache.size()).isZero();
    cache.wrote("ns/cm", "2", object("u", "3", "c"));
    cache.forget("ns/cm");
    ConfigMap cached = object("u", "2", "b");
    assertThat(cache.newest("ns/cm", cached)).isSameAs(cached);
  }

  @Test
  void aWriteOverAnotherWritersVersionStartsTheChainAfresh() {
    cache.wrote("ns/cm", "1", object("u", "2", "b"));
    // a conflict, a GET of version 5 (someone else's), and a write over it
    ConfigMap ours = object("u", "6", "d");
    cache.wrote("ns/cm", "5", ours);
    ConfigMap stale = object("u", "1", "a");
    assertThat(cache.newest("ns/cm", stale)).as("1 was not superseded by the write over 5").isSameAs(stale);
  }

  @Test
  void theChainIsBounded() {
    for (int i = 1; i <= MutationCache.MAX_SUPERSEDED + 1; i++) {
      cache.wrote("ns/cm", String.valueOf(i), object("u", String.valueOf(i + 1), "x"));
    }
    assertThat(cache.size()).isZero();
  }

  @Test
  void keysWrittenAndReadFromManyThreadsStayIndependent() throws Exception {
    int threads = 8;
    int rounds = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        String key = "ns/cm-" + t;
        String uid = "u" + t;
        results.add(pool.submit(() -> {
          start.await();
          int substituted = 0;
          for (int r = 1; r <= rounds; r++) {
            ConfigMap written = object(uid, String.valueOf(r + 1), key);
            cache.wrote(key, String.valueOf(r), written);
            ConfigMap answer = cache.newest(key, object(uid, String.valueOf(r), "stale"));
            if (answer == written) {
              substituted++;
            }
            cache.newest(key, object(uid, String.valueOf(r + 1), key)); // the informer catches up
          }
          return substituted;
        }));
      }
      start.countDown();
      for (Future<Integer> f : results) {
        assertThat(f.get()).isEqualTo(rounds);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(cache.size()).isZero();
  }
}
