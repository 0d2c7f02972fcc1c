package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The limiters' shared state under many threads: no update may be lost. */
@Timeout(20)
class RateLimiterConcurrencyTest {

  private static final int THREADS = 8;
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private <V> List<V> onAllThreads(Callable<List<V>> body) throws Exception {
    List<Future<List<V>>> futures = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      futures.add(pool.submit(body));
    }
    List<V> all = new ArrayList<>();
    for (Future<List<V>> f : futures) {
      all.addAll(f.get());
    }
    return all;
  }

  @Test
  void bucketHandsOutEachSlotExactlyOnce() throws Exception {
    FakeClock clock = new FakeClock(); // frozen: only the order of callers matters
    RateLimiter<String> limiter = new BucketRateLimiter<>(10, 100, clock);
    int perThread = 2_500;

    List<Duration> delays =
        onAllThreads(
            () -> {
              List<Duration> mine = new ArrayList<>();
              for (int i = 0; i < perThread; i++) {
                mine.add(limiter.when("x"));
              }
              return mine;
            });

    // 100 free tokens, then one slot every 100 ms for the other 19,900 calls. Like Go's
    // x/time/rate, the delay is computed in floating point and truncated to whole nanoseconds
    // (4.1 s comes out as 4.099999999 s), hence the 1 ns tolerance.
    Collections.sort(delays);
    for (int i = 0; i < delays.size(); i++) {
      long expected = i < 100 ? 0 : Duration.ofMillis(100L * (i - 99)).toNanos();
      assertThat(delays.get(i).toNanos()).as("call %d", i).isBetween(expected - 1, expected);
    }
  }

  @Test
  void perItemLimitersCountEveryFailure() throws Exception {
    RateLimiter<String> exponential =
        new ItemExponentialFailureRateLimiter<>(Duration.ofNanos(1), Duration.ofSeconds(1));
    RateLimiter<String> fastSlow =
        new ItemFastSlowRateLimiter<>(Duration.ofMillis(1), Duration.ofSeconds(1), 5);
    int perThread = 20_000;

    List<Duration> fastSlowDelays =
        onAllThreads(
            () -> {
              List<Duration> mine = new ArrayList<>();
              for (int i = 0; i < perThread; i++) {
                exponential.when("shared");
                exponential.when("item-" + (i % 10));
                mine.add(fastSlow.when("shared"));
              }
              return mine;
            });

    assertThat(exponential.numRequeues("shared")).isEqualTo(THREADS * perThread);
    for (int k = 0; k < 10; k++) {
      assertThat(exponential.numRequeues("item-" + k)).isEqualTo(THREADS * perThread / 10);
    }
    assertThat(fastSlow.numRequeues("shared")).isEqualTo(THREADS * perThread);
    assertThat(fastSlowDelays.stream().filter(d -> d.equals(Duration.ofMillis(1))).count())
        .as("exactly the first 5 attempts were fast")
        .isEqualTo(5);
  }
}
