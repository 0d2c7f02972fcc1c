package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SlowStartTest {

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void batchesDoubleFromOneAndTheLastIsCappedByWhatIsLeft() {
    BatchGate gate = new BatchGate(List.of(1, 2, 4, 8, 5), Duration.ofSeconds(10));
    SlowStart.Result result = SlowStart.slowStartBatch(20, 1, pool, gate::arrive);
    assertThat(gate.violation()).isEmpty();
    assertThat(gate.observed()).containsExactly(1, 2, 4, 8, 5);
    assertThat(result.successes()).isEqualTo(20);
    assertThat(result.error()).isEmpty();
  }

  @Test
  void theInitialBatchSizeIsWhereDoublingStarts() {
    BatchGate gate = new BatchGate(List.of(3, 6, 1), Duration.ofSeconds(10));
    SlowStart.Result result = SlowStart.slowStartBatch(10, 3, pool, gate::arrive);
    assertThat(gate.violation()).isEmpty();
    assertThat(gate.observed()).containsExactly(3, 6, 1);
    assertThat(result.successes()).isEqualTo(10);
  }

  @Test
  void theFirstFailingBatchIsCompletedAndNothingAfterItIsAttempted() {
    AtomicInteger calls = new AtomicInteger();
    SlowStart.Result result = SlowStart.slowStartBatch(100, 1, Runnable::run, () -> {
      if (calls.incrementAndGet() == 5) { // the second call of the third batch (calls 4-7)
        throw new IllegalStateException("quota exceeded");
      }
    });
    assertThat(calls.get()).isEqualTo(7);
    assertThat(result.successes()).isEqualTo(6);
    assertThat(result.error()).get().extracting(Throwable::getMessage).isEqualTo("quota exceeded");
  }

  @Test
  void allCallsOfAFailingBatchFailingCountNoSuccessForIt() {
    AtomicInteger calls = new AtomicInteger();
    SlowStart.Result result = SlowStart.slowStartBatch(10, 1, pool, () -> {
      if (calls.incrementAndGet() > 1) {
        throw new IllegalStateException("down");
      }
    });
    assertThat(calls.get()).isEqualTo(3);
    assertThat(result.successes()).isEqualTo(1);
    assertThat(result.error()).isPresent();
  }

  @Test
  void zeroCallsDoNothing() {
    AtomicInteger calls = new AtomicInteger();
    SlowStart.Result result = SlowStart.slowStartBatch(0, 1, pool, calls::incrementAndGet);
    assertThat(calls.get()).isZero();
    assertThat(result.successes()).isZero();
    assertThat(result.error()).isEmpty();
  }

  @Test
  void aRejectingExecutorRunsCallsInline() {
    AtomicInteger calls = new AtomicInteger();
    SlowStart.Result result = SlowStart.slowStartBatch(7, 1, task -> {
      throw new java.util.concurrent.RejectedExecutionException("full");
    }, calls::incrementAndGet);
    assertThat(calls.get()).isEqualTo(7);
    assertThat(result.successes()).isEqualTo(7);
  }

  @Test
  void nonsenseArgumentsAreRejected() {
    assertThatThrownBy(() -> SlowStart.slowStartBatch(-1, 1, pool, () -> { }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SlowStart.slowStartBatch(1, 0, pool, () -> { }))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
