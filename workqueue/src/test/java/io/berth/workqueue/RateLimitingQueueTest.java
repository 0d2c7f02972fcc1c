package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RateLimitingQueueTest {

  private final FakeClock clock = new FakeClock();
  private final RateLimitingQueue<String> queue =
      WorkQueues.newRateLimitingQueue(
          "",
          new ItemExponentialFailureRateLimiter<String>(
              Duration.ofSeconds(1), Duration.ofSeconds(60)),
          clock,
          MetricsProvider.NOOP);

  @Test
  void addRateLimitedWaitsAsTheLimiterSays() throws Exception {
    queue.addRateLimited("a");
    assertThat(queue.numRequeues("a")).isEqualTo(1);
    assertThat(queue.len()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.get()).contains("a");

    queue.addRateLimited("a"); // failed again while in work: 2 s
    queue.done("a");
    clock.advance(Duration.ofMillis(1999));
    assertThat(queue.len()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.numRequeues("a")).isEqualTo(2);
  }

  @Test
  void forgetResetsTheBackoff() {
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    queue.forget("a");

    assertThat(queue.numRequeues("a")).isZero();
    queue.addRateLimited("a");
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void plainAddAndAddAfterStillWork() throws Exception {
    queue.add("a");
    queue.addAfter("b", Duration.ofSeconds(3));
    assertThat(queue.len()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(3));
    assertThat(queue.len()).isEqualTo(2);
    assertThat(queue.numRequeues("b")).as("addAfter does not count as a failure").isZero();
  }

  @Test
  void shutDownIsPassedToTheQueue() throws Exception {
    queue.addRateLimited("a");
    queue.shutDownWithDrain();

    assertThat(queue.shuttingDown()).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.get()).isEmpty();
  }
}
