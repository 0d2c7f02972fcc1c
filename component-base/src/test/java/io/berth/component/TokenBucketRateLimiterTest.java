package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokenBucketRateLimiterTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void aFullBucketLetsBurstRequestsThroughWithoutWaiting() throws Exception {
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(10, 3, ticker);
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.acquire()).isZero();
    }
    assertThat(limiter.waits()).isZero();
    assertThat(ticker.sleeps()).isEmpty();
  }

  @Test
  void beyondTheBurstEachRequestWaitsOneRefillInterval() throws Exception {
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(10, 3, ticker);
    for (int i = 0; i < 8; i++) {
      limiter.acquire();
    }
    // 3 from the bucket, then one token per 100 ms.
    assertThat(limiter.waits()).isEqualTo(5);
    assertThat(ticker.sleeps()).containsOnly(SECOND / 10);
    assertThat(limiter.waitedNanos()).isEqualTo(5 * SECOND / 10);
    assertThat(limiter.acquired()).isEqualTo(8);
  }

  @Test
  void idleTimeRefillsUpToTheBurstAndNoFurther() throws Exception {
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(2, 4, ticker);
    for (int i = 0; i < 4; i++) {
      limiter.acquire();
    }
    ticker.advance(1 * SECOND); // two tokens back
    assertThat(limiter.acquire()).isZero();
    assertThat(limiter.acquire()).isZero();
    assertThat(limiter.acquire()).isEqualTo(SECOND / 2);
    ticker.advance(3600 * SECOND); // refills to 4, not 7200
    for (int i = 0; i < 4; i++) {
      assertThat(limiter.acquire()).isZero();
    }
    assertThat(limiter.acquire()).isEqualTo(SECOND / 2);
  }

  @Test
  void fractionalRatesWaitTheExactInterval() throws Exception {
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(0.5, 1, ticker);
    limiter.acquire();
    assertThat(limiter.acquire()).isEqualTo(2 * SECOND);
  }

  @Test
  void concurrentCallersReserveDistinctSlotsOneIntervalApart() throws Exception {
    // Time stands still: every waiter reserves the next slot, so with burst 2 and 20 callers the reserved waits are
    // exactly 1..18 refill intervals, each handed to one caller. A lost or doubled reservation breaks the sequence.
    FakeTicker ticker = new FakeTicker(false);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(100, 2, ticker);
    int callers = 20;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Long>> waits = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        waits.add(pool.submit(() -> {
          go.await();
          return limiter.acquire();
        }));
      }
      go.countDown();
      List<Long> observed = new ArrayList<>();
      for (Future<Long> f : waits) {
        observed.add(f.get(10, TimeUnit.SECONDS));
      }
      List<Long> expected = new ArrayList<>(List.of(0L, 0L));
      for (int i = 1; i <= callers - 2; i++) {
        expected.add(i * SECOND / 100);
      }
      assertThat(observed).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(limiter.waits()).isEqualTo(callers - 2);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anInterruptedWaitGivesItsTokenBack() throws Exception {
    FakeTicker ticker = new FakeTicker(false);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(1, 1, ticker);
    limiter.acquire();
    Thread.currentThread().interrupt();
    assertThatThrownBy(limiter::acquire).isInstanceOf(InterruptedException.class);
    // Had the cancelled reservation been kept, the next caller would wait 2 s instead of 1 s.
    assertThat(limiter.acquire()).isEqualTo(SECOND);
  }

  @Test
  void rejectsUselessParameters() {
    FakeTicker ticker = new FakeTicker(true);
    assertThatThrownBy(() -> new TokenBucketRateLimiter(0, 1, ticker)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucketRateLimiter(1, 0, ticker)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucketRateLimiter(Double.NaN, 1, ticker))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
