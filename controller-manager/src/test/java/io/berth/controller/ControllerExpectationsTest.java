package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.workqueue.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControllerExpectationsTest {

  private static final String RS = "default/web";

  private final FakeClock clock = new FakeClock();
  private final ControllerExpectations expectations = new ControllerExpectations(clock);

  @Test
  void aControllerWithoutExpectationsIsSatisfied() {
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
    assertThat(expectations.get(RS)).isEmpty();
  }

  @Test
  void expectedCreationsHoldTheControllerUntilEachIsObserved() {
    expectations.expectCreations(RS, 3);
    assertThat(expectations.satisfiedExpectations(RS)).isFalse();
    expectations.creationObserved(RS);
    expectations.creationObserved(RS);
    assertThat(expectations.satisfiedExpectations(RS)).isFalse();
    expectations.creationObserved(RS);
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
    assertThat(expectations.get(RS)).get().extracting(ControllerExpectations.Snapshot::add).isEqualTo(0L);
  }

  @Test
  void surplusObservationsKeepTheControllerSatisfied() {
    expectations.expectCreations(RS, 1);
    expectations.creationObserved(RS);
    expectations.creationObserved(RS);
    assertThat(expectations.get(RS).orElseThrow().add()).isEqualTo(-1);
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
  }

  @Test
  void unmetExpectationsExpireAfterFiveMinutesOnTheInjectedClock() {
    expectations.expectCreations(RS, 2);
    clock.advance(ControllerExpectations.EXPECTATIONS_TIMEOUT);
    assertThat(expectations.satisfiedExpectations(RS)).as("exactly at the timeout").isFalse();
    clock.advance(Duration.ofNanos(1));
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
  }

  @Test
  void newExpectationsReplaceTheCountsAndRestartTheTimeout() {
    expectations.expectCreations(RS, 1);
    clock.advance(Duration.ofMinutes(4));
    expectations.expectCreations(RS, 2);
    clock.advance(Duration.ofMinutes(4));
    assertThat(expectations.satisfiedExpectations(RS)).isFalse();
    assertThat(expectations.get(RS).orElseThrow().add()).isEqualTo(2);
    assertThat(expectations.get(RS).orElseThrow().age()).isEqualTo(Duration.ofMinutes(4));
  }

  @Test
  void aDeletionSeenAsUpdateAndAgainAsDeleteIsCountedOnce() {
    expectations.expectDeletions(RS, List.of("default/a", "default/b"));
    expectations.deletionObserved(RS, "default/a"); // deletionTimestamp set
    expectations.deletionObserved(RS, "default/a"); // the pod finally goes
    assertThat(expectations.satisfiedExpectations(RS)).isFalse();
    assertThat(expectations.get(RS).orElseThrow().del()).isEqualTo(1);
    assertThat(expectations.get(RS).orElseThrow().pendingDeletions()).containsExactly("default/b");
    expectations.deletionObserved(RS, "default/b");
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
  }

  @Test
  void deletionsOfPodsThatWereNotExpectedChangeNothing() {
    expectations.expectDeletions(RS, List.of("default/a"));
    expectations.deletionObserved(RS, "default/other");
    expectations.deletionObserved("default/another-rs", "default/a");
    assertThat(expectations.get(RS).orElseThrow().del()).isEqualTo(1);
    assertThat(expectations.satisfiedExpectations(RS)).isFalse();
  }

  @Test
  void deletingExpectationsLetsANewControllerOfTheSameNameStartClean() {
    expectations.expectDeletions(RS, List.of("default/a"));
    expectations.deleteExpectations(RS);
    assertThat(expectations.get(RS)).isEmpty();
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
    expectations.deletionObserved(RS, "default/a");
    assertThat(expectations.get(RS)).isEmpty();
  }

  @Test
  void loweringAndRaisingOnlyAffectExistingExpectations() {
    expectations.lowerExpectations(RS, 1, 1);
    expectations.raiseExpectations(RS, 1, 1);
    assertThat(expectations.get(RS)).isEmpty();
    expectations.setExpectations(RS, 1, 1);
    expectations.raiseExpectations(RS, 2, 0);
    expectations.lowerExpectations(RS, 0, 1);
    assertThat(expectations.get(RS).orElseThrow()).extracting(ControllerExpectations.Snapshot::add,
        ControllerExpectations.Snapshot::del).containsExactly(3L, 0L);
  }

  @Test
  void concurrentObservationsLowerTheCountsExactlyOncePerPod() throws Exception {
    int pods = 2_000;
    int threads = 8;
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      keys.add("default/p-" + i);
    }
    expectations.setExpectations("default/creator", pods, 0);
    expectations.expectDeletions(RS, keys);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        futures.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < pods; i++) {
            // every thread reports every deletion (update then delete, seen by racing handlers)
            expectations.deletionObserved(RS, keys.get((i + offset * 97) % pods));
            if (i % threads == offset) {
              expectations.creationObserved("default/creator");
            }
            expectations.satisfiedExpectations(RS);
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(expectations.get(RS).orElseThrow().del()).isZero();
    assertThat(expectations.get(RS).orElseThrow().pendingDeletions()).isEmpty();
    assertThat(expectations.get("default/creator").orElseThrow().add()).isZero();
    assertThat(expectations.satisfiedExpectations(RS)).isTrue();
  }
}
