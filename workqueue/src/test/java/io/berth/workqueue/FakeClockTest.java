package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FakeClockTest {

  private final FakeClock clock = new FakeClock(1_000);

  /** Waits on the clock until {@code deadline}; returns the clock's time when woken. */
  private Async<Long> waitUntil(long deadline) {
    ReentrantLock lock = new ReentrantLock();
    Condition condition = lock.newCondition();
    return Async.start(
        "waiter-" + deadline,
        () -> {
          lock.lock();
          try {
            while (clock.nanoTime() - deadline < 0) {
              clock.awaitUntil(lock, condition, deadline);
            }
            return clock.nanoTime();
          } finally {
            lock.unlock();
          }
        });
  }

  @Test
  void startsWhereToldAndMovesOnlyWhenAdvanced() {
    assertThat(clock.nanoTime()).isEqualTo(1_000);
    clock.advance(Duration.ofNanos(500));
    assertThat(clock.nanoTime()).isEqualTo(1_500);
    clock.setTime(5_000);
    assertThat(clock.nanoTime()).isEqualTo(5_000);
  }

  @Test
  void neverGoesBackwards() {
    assertThatThrownBy(() -> clock.setTime(999)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void advanceWakesAWaiterOnlyOnceItsDeadlineIsReached() throws Exception {
    Async<Long> waiter = waitUntil(2_000).awaitParked();
    Awaitility.await().until(clock::hasWaiters);

    clock.advance(Duration.ofNanos(999));
    assertThat(clock.hasWaiters()).as("deadline not reached").isTrue();
    assertThat(waiter.isDone()).isFalse();

    clock.advance(Duration.ofNanos(1));
    assertThat(waiter.get()).isEqualTo(2_000);
    Awaitility.await().until(() -> !clock.hasWaiters());
  }

  @Test
  void awaitUntilAPastDeadlineReturnsAtOnce() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    lock.lock();
    try {
      clock.awaitUntil(lock, lock.newCondition(), 1_000);
      clock.awaitUntil(lock, lock.newCondition(), 0);
    } finally {
      lock.unlock();
    }
    assertThat(clock.hasWaiters()).isFalse();
  }

  @Test
  void concurrentAdvancesWakeEveryWaiterAtItsDeadline() throws Exception {
    List<Async<Long>> waiters = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      waiters.add(waitUntil(1_000 + i * 100L));
    }
    Awaitility.await().until(() -> clock.waiterCount() == 20);

    List<Async<Boolean>> advancers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      advancers.add(
          Async.start(
              "advancer-" + i,
              () -> {
                for (int n = 0; n < 500; n++) {
                  clock.advance(Duration.ofNanos(1));
                }
                return true;
              }));
    }
    for (Async<Boolean> a : advancers) {
      assertThat(a.get()).isTrue();
    }

    assertThat(clock.nanoTime()).isEqualTo(3_000);
    for (int i = 0; i < waiters.size(); i++) {
      assertThat(waiters.get(i).get()).isGreaterThanOrEqualTo(1_000 + (i + 1) * 100L);
    }
  }
}
