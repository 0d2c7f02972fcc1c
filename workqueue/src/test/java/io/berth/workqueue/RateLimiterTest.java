package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  @Test
  void exponentialBackoffDoublesFromTheBaseDelay() {
    RateLimiter<String> limiter =
        new ItemExponentialFailureRateLimiter<>(ms(1), Duration.ofSeconds(1));

    assertThat(limiter.when("one")).isEqualTo(ms(1));
    assertThat(limiter.when("one")).isEqualTo(ms(2));
    assertThat(limiter.when("one")).isEqualTo(ms(4));
    assertThat(limiter.when("one")).isEqualTo(ms(8));
    assertThat(limiter.when("one")).isEqualTo(ms(16));
    assertThat(limiter.numRequeues("one")).isEqualTo(5);

    assertThat(limiter.when("two")).isEqualTo(ms(1));
    assertThat(limiter.when("two")).isEqualTo(ms(2));
    assertThat(limiter.numRequeues("two")).isEqualTo(2);

    limiter.forget("one");
    assertThat(limiter.numRequeues("one")).isZero();
    assertThat(limiter.when("one")).isEqualTo(ms(1));
  }

  @Test
  void exponentialBackoffIsCappedAtTheMaxDelay() {
    RateLimiter<String> limiter =
        new ItemExponentialFailureRateLimiter<>(ms(1), Duration.ofSeconds(1));
    for (int i = 0; i < 10; i++) {
      limiter.when("a"); // 1 ms .. 512 ms
    }

    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1)); // 1024 ms capped
  }

  @Test
  void exponentialBackoffSaturatesInsteadOfOverflowing() {
    RateLimiter<String> limiter =
        new ItemExponentialFailureRateLimiter<>(ms(5), Duration.ofSeconds(1000));
    Duration last = Duration.ZERO;
    for (int i = 0; i < 200; i++) {
      Duration d = limiter.when("a");
      assertThat(d).isGreaterThanOrEqualTo(last).isLessThanOrEqualTo(Duration.ofSeconds(1000));
      last = d;
    }

    assertThat(last).isEqualTo(Duration.ofSeconds(1000));
    assertThat(limiter.numRequeues("a")).isEqualTo(200);
  }

  @Test
  void controllerBackoffStartsAtFiveMillisAndReachesTheCapAfterEighteenFailures() {
    RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(new FakeClock());
    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(ms(10));
    for (int i = 2; i < 18; i++) {
      limiter.when("a"); // up to 5 ms * 2^17 = 655.36 s
    }
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1000)); // 5 ms * 2^18 > 1000 s
  }

  @Test
  void fastSlowIsFastForTheFirstAttemptsThenSlow() {
    RateLimiter<String> limiter = new ItemFastSlowRateLimiter<>(ms(5), Duration.ofSeconds(10), 3);

    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(10));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(10));
    assertThat(limiter.numRequeues("a")).isEqualTo(5);
    assertThat(limiter.when("b")).isEqualTo(ms(5));

    limiter.forget("a");
    assertThat(limiter.numRequeues("a")).isZero();
    assertThat(limiter.when("a")).isEqualTo(ms(5));
  }

  @Test
  void bucketLetsTheBurstThroughThenSpacesCallsAtTheRate() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = new BucketRateLimiter<>(10, 100, clock);

    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("item-" + i)).as("call %d", i).isEqualTo(Duration.ZERO);
    }
    assertThat(limiter.when("x")).isEqualTo(ms(100));
    assertThat(limiter.when("y")).isEqualTo(ms(200));
    assertThat(limiter.when("z")).isEqualTo(ms(300));
  }

  @Test
  void bucketRefillsAtTheRate() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = new BucketRateLimiter<>(10, 100, clock);
    for (int i = 0; i < 102; i++) {
      limiter.when("a"); // 100 free, then 2 tokens of debt
    }

    clock.advance(Duration.ofSeconds(1)); // +10 tokens: 8 left
    for (int i = 0; i < 8; i++) {
      assertThat(limiter.when("a")).isEqualTo(Duration.ZERO);
    }
    assertThat(limiter.when("a")).isEqualTo(ms(100));
  }

  @Test
  void bucketNeverHoldsMoreThanItsBurst() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = new BucketRateLimiter<>(10, 100, clock);
    clock.advance(Duration.ofHours(1));

    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("a")).isEqualTo(Duration.ZERO);
    }
    assertThat(limiter.when("a")).isEqualTo(ms(100));
  }

  @Test
  void bucketDoesNotTrackItems() {
    RateLimiter<String> limiter = new BucketRateLimiter<>(1, 1, new FakeClock());
    limiter.when("a");
    limiter.when("a");

    assertThat(limiter.numRequeues("a")).isZero();
    limiter.forget("a");
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void bucketRejectsNonsenseSettings() {
    assertThatThrownBy(() -> new BucketRateLimiter<>(0, 1, new FakeClock()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BucketRateLimiter<>(1, 0, new FakeClock()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void maxOfTakesTheLongestDelayAndTheHighestCount() {
    RateLimiter<String> limiter =
        new MaxOfRateLimiter<>(
            new ItemExponentialFailureRateLimiter<>(ms(1), Duration.ofSeconds(1)),
            new ItemFastSlowRateLimiter<>(ms(5), Duration.ofSeconds(3), 3));

    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(ms(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(3));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(3));
    for (int i = 0; i < 6; i++) {
      limiter.when("a");
    }
    assertThat(limiter.when("a")).as("the exponential is capped at 1 s, the slow 3 s still wins").isEqualTo(
        Duration.ofSeconds(3));
    assertThat(limiter.numRequeues("a")).isEqualTo(12);

    limiter.forget("a");
    assertThat(limiter.numRequeues("a")).isZero();
    assertThat(limiter.when("a")).isEqualTo(ms(5));
  }

  @Test
  void maxOfPrefersTheExponentialWhenItIsLonger() {
    RateLimiter<String> limiter =
        new MaxOfRateLimiter<>(
            new ItemExponentialFailureRateLimiter<>(ms(10), Duration.ofSeconds(100)),
            new ItemFastSlowRateLimiter<>(ms(1), ms(2), 1));
    limiter.when("a");
    limiter.when("a");

    assertThat(limiter.when("a")).isEqualTo(ms(40));
  }

  @Test
  void defaultControllerLimiterAppliesTheBucketAcrossItems() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(clock);

    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("item-" + i)).isEqualTo(ms(5));
    }
    assertThat(limiter.when("item-100")).as("bucket empty: 1/10 s").isEqualTo(ms(100));
    assertThat(limiter.numRequeues("item-100")).isEqualTo(1);
  }

  @Test
  void defaultItemBasedLimiterStartsAtOneMilli() {
    RateLimiter<String> limiter = RateLimiters.defaultItemBasedRateLimiter();

    assertThat(limiter.when("a")).isEqualTo(ms(1));
    assertThat(limiter.when("a")).isEqualTo(ms(2));
  }
}
