package io.berth.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.Parallelizer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class DefaultParallelizerTest {
  @Test
  void chunkSizeFollowsUpstream() {
    assertThat(Parallelizer.chunkSize(10_000, 16)).isEqualTo(100);
    assertThat(Parallelizer.chunkSize(100, 16)).isEqualTo(7);
    assertThat(Parallelizer.chunkSize(3, 16)).isEqualTo(1);
  }

  @Test
  void everyPieceRunsExactlyOnceOnSeveralThreads() {
    try (DefaultParallelizer p = new DefaultParallelizer(4)) {
      AtomicIntegerArray seen = new AtomicIntegerArray(10_000);
      Set<String> threads = ConcurrentHashMap.newKeySet();
      p.until(seen.length(), i -> {
        seen.incrementAndGet(i);
        threads.add(Thread.currentThread().getName());
      });
      for (int i = 0; i < seen.length(); i++) {
        assertThat(seen.get(i)).as("piece %d", i).isEqualTo(1);
      }
      assertThat(threads).isNotEmpty();
    }
  }

  @Test
  void stopEndsHandingOutPieces() {
    try (DefaultParallelizer p = new DefaultParallelizer(2)) {
      AtomicInteger done = new AtomicInteger();
      p.until(10_000, i -> done.incrementAndGet(), () -> done.get() >= 100);
      // at most one chunk per worker beyond the stop point
      assertThat(done.get()).isBetween(100, 100 + 2 * Parallelizer.chunkSize(10_000, 2));
    }
  }

  @Test
  void aFailingPieceIsRethrown() {
    try (DefaultParallelizer p = new DefaultParallelizer(3)) {
      assertThatThrownBy(() -> p.until(100, i -> {
        if (i == 42) {
          throw new IllegalStateException("piece 42");
        }
      })).hasMessageContaining("piece 42");
    }
  }

  @Test
  void concurrentCallersShareThePool() throws Exception {
    try (DefaultParallelizer p = new DefaultParallelizer(4)) {
      AtomicInteger total = new AtomicInteger();
      Thread[] callers = new Thread[4];
      for (int t = 0; t < callers.length; t++) {
        callers[t] = new Thread(() -> p.until(1000, i -> total.incrementAndGet()));
        callers[t].start();
      }
      for (Thread t : callers) {
        t.join();
      }
      assertThat(total.get()).isEqualTo(4000);
    }
  }

  @Test
  void rangesCoverEveryPieceOnceInUpstreamChunksOnSeveralThreads() {
    try (DefaultParallelizer p = new DefaultParallelizer(16)) {
      int pieces = 5_000;
      int chunk = Parallelizer.chunkSize(pieces, 16);
      AtomicIntegerArray seen = new AtomicIntegerArray(pieces);
      Set<String> ranges = ConcurrentHashMap.newKeySet();
      p.untilRanges(pieces, (from, to) -> {
        ranges.add(from + "-" + to);
        for (int i = from; i < to; i++) {
          seen.incrementAndGet(i);
        }
      }, () -> false);
      for (int i = 0; i < pieces; i++) {
        assertThat(seen.get(i)).as("piece %d", i).isEqualTo(1);
      }
      assertThat(ranges).hasSize((pieces + chunk - 1) / chunk).contains("0-" + chunk,
          (pieces / chunk * chunk) + "-" + pieces);
    }
  }

  @Test
  void rangesStopBeforeTheNextChunk() {
    try (DefaultParallelizer p = new DefaultParallelizer(2)) {
      AtomicInteger chunks = new AtomicInteger();
      p.untilRanges(10_000, (from, to) -> chunks.incrementAndGet(), () -> chunks.get() >= 3);
      // a worker may have taken its next chunk while the other took the third
      assertThat(chunks.get()).isBetween(3, 4);
    }
  }

  @Test
  void aFailingRangeIsRethrown() {
    try (DefaultParallelizer p = new DefaultParallelizer(3)) {
      assertThatThrownBy(() -> p.untilRanges(1000, (from, to) -> {
        if (from <= 500 && 500 < to) {
          throw new IllegalStateException("range with 500");
        }
      }, () -> false)).hasMessageContaining("range with 500");
    }
  }

  @Test
  void theDefaultRangesGoThroughUntil() {
    Parallelizer sequential = new Parallelizer() {
      @Override
      public int parallelism() {
        return 16;
      }

      @Override
      public void until(int pieces, java.util.function.IntConsumer work,
          java.util.function.BooleanSupplier stop) {
        for (int i = 0; i < pieces && !stop.getAsBoolean(); i++) {
          work.accept(i);
        }
      }
    };
    StringBuilder seen = new StringBuilder();
    sequential.untilRanges(10, (from, to) -> seen.append(from).append('-').append(to).append(' '),
        () -> false);
    // chunkSize(10, 16) = 1
    assertThat(seen.toString()).isEqualTo("0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 ");
  }
}
