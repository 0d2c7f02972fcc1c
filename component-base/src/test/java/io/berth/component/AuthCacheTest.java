package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Time-to-live, bounds, failures and single flights of the review caches, on a fake ticker. */
class AuthCacheTest {

  private final FakeTicker ticker = new FakeTicker(false);
  private final AtomicInteger loads = new AtomicInteger();

  private String load(String value) {
    loads.incrementAndGet();
    return value;
  }

  @Test
  void anEntryLivesForItsTimeToLive() {
    AuthCache<String, String> cache = new AuthCache<>(10, ticker);
    assertThat(cache.get("k", () -> load("v1"), v -> Duration.ofSeconds(10))).isEqualTo("v1");
    ticker.advance(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(cache.get("k", () -> load("v2"), v -> Duration.ofSeconds(10))).isEqualTo("v1");
    assertThat(loads).hasValue(1);
    ticker.advance(1);
    assertThat(cache.get("k", () -> load("v2"), v -> Duration.ofSeconds(10))).isEqualTo("v2");
    assertThat(loads).hasValue(2);
  }

  @Test
  void theTimeToLiveDependsOnTheValue() {
    AuthCache<String, Boolean> cache = new AuthCache<>(10, ticker);
    java.util.function.Function<Boolean, Duration> ttl = allowed -> allowed ? Duration.ofSeconds(5)
        : Duration.ofSeconds(1);
    cache.get("allowed", () -> load("x") != null, ttl);
    cache.get("denied", () -> load("x") == null, ttl);
    ticker.advance(Duration.ofSeconds(2).toNanos());
    cache.get("allowed", () -> load("x") != null, ttl);
    cache.get("denied", () -> load("x") == null, ttl);
    assertThat(loads).hasValue(3); // the denied entry expired after 1s, the allowed one lives 5s
  }

  @Test
  void aZeroTimeToLiveKeepsNothing() {
    AuthCache<String, String> cache = new AuthCache<>(10, ticker);
    cache.get("k", () -> load("v"), v -> Duration.ZERO);
    cache.get("k", () -> load("v"), v -> Duration.ZERO);
    assertThat(loads).hasValue(2);
    assertThat(cache.size()).isZero();
  }

  @Test
  void failuresAreNotCached() {
    AuthCache<String, String> cache = new AuthCache<>(10, ticker);
    assertThatThrownBy(() -> cache.get("k", () -> {
      loads.incrementAndGet();
      throw new DelegationException("API down", null);
    }, v -> Duration.ofSeconds(10))).isInstanceOf(DelegationException.class).hasMessage("API down");
    assertThat(cache.get("k", () -> load("v"), v -> Duration.ofSeconds(10))).isEqualTo("v");
    assertThat(loads).hasValue(2);
  }

  @Test
  void theLeastRecentlyUsedEntryIsDroppedBeyondTheBound() {
    AuthCache<Integer, String> cache = new AuthCache<>(3, ticker);
    for (int i = 0; i < 3; i++) {
      int k = i;
      cache.get(k, () -> load("v" + k), v -> Duration.ofMinutes(1));
    }
    cache.get(0, () -> load("again"), v -> Duration.ofMinutes(1)); // 0 is now the most recent
    cache.get(3, () -> load("v3"), v -> Duration.ofMinutes(1)); // drops 1
    assertThat(cache.size()).isEqualTo(3);
    assertThat(loads).hasValue(4);
    assertThat(cache.get(0, () -> load("reloaded"), v -> Duration.ofMinutes(1))).isEqualTo("v0");
    assertThat(cache.get(1, () -> load("reloaded"), v -> Duration.ofMinutes(1))).isEqualTo("reloaded");
  }

  @Test
  void concurrentCallersOfOneKeyShareOneLoad() throws Exception {
    AuthCache<String, String> cache = new AuthCache<>(100, ticker);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String key = "token-" + (i % 4);
        results.add(pool.submit(() -> cache.get(key, () -> {
          loads.incrementAndGet();
          try {
            release.await(10, TimeUnit.SECONDS); // hold the flight open while the others pile up
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return "user-of-" + key;
        }, v -> Duration.ofSeconds(10))));
      }
      Thread.sleep(200);
      release.countDown();
      for (int i = 0; i < results.size(); i++) {
        assertThat(results.get(i).get(20, TimeUnit.SECONDS)).isEqualTo("user-of-token-" + (i % 4));
      }
      assertThat(loads).hasValue(4);
    } finally {
      pool.shutdownNow();
    }
  }
}
