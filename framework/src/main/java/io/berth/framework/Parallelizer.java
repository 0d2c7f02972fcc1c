package io.berth.framework;

import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Runs a piece of work for indexes 0..pieces-1 on a bounded number of threads, in chunks of
 * {@code max(1, min(√pieces, pieces/parallelism))} as kube-scheduler's parallelizer does, and
 * returns when every started piece has finished. Thread-safe; shared by all profiles.
 */
public interface Parallelizer {
  int parallelism();

  /**
   * Calls {@code work} for each index; stops handing out pieces once {@code stop} returns true.
   * The first exception thrown by a piece is rethrown to the caller after all workers finished.
   */
  void until(int pieces, IntConsumer work, BooleanSupplier stop);

  default void until(int pieces, IntConsumer work) {
    until(pieces, work, () -> false);
  }

  /** Work on a range of piece indexes, {@code from} inclusive to {@code to} exclusive. */
  @FunctionalInterface
  interface RangeWork {
    void accept(int from, int to);
  }

  /**
   * As {@link #until(int, IntConsumer, BooleanSupplier)}, handing out the same chunks whole: {@code work} gets each
   * chunk's range and walks it itself (asking {@code stop} as it sees fit), so it can keep per-chunk state, such as
   * results it publishes to other workers only now and then. {@code stop} is asked before each chunk. The default
   * runs the chunks through {@link #until}.
   */
  default void untilRanges(int pieces, RangeWork work, BooleanSupplier stop) {
    if (pieces <= 0) {
      return;
    }
    int chunk = chunkSize(pieces, parallelism());
    int chunks = (pieces + chunk - 1) / chunk;
    until(chunks, c -> work.accept(c * chunk, Math.min(pieces, (c + 1) * chunk)), stop);
  }

  /** The chunk size for {@code pieces} work items on {@code parallelism} threads. */
  static int chunkSize(int pieces, int parallelism) {
    int s = (int) Math.sqrt(pieces);
    int r = pieces / parallelism + 1;
    return Math.max(1, Math.min(s, r));
  }
}
