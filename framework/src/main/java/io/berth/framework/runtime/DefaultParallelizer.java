package io.berth.framework.runtime;

import io.berth.framework.Parallelizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * The parallelizer every profile shares: workers (the caller is one of them) take chunks of pieces
 * from a shared counter until none are left or {@code stop} says so (asked before every piece).
 * Chunks are sized for {@code parallelism} as upstream; the number of threads is
 * {@code parallelism} capped at the number of processors, because a Java thread per goroutine only
 * adds hand-offs on a small machine. Thread-safe; the pool's threads are daemons and live until
 * {@link #close()}.
 */
public final class DefaultParallelizer implements Parallelizer, AutoCloseable {
  private final int parallelism;
  private final int threads;
  private final ExecutorService pool;

  public DefaultParallelizer(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism: Invalid value: " + parallelism
          + ": should be an integer value greater than zero");
    }
    this.parallelism = parallelism;
    this.threads = Math.max(1, Math.min(parallelism, Runtime.getRuntime().availableProcessors()));
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "scheduler-parallelizer-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    this.pool = threads > 1 ? Executors.newFixedThreadPool(threads - 1, factory) : null;
  }

  @Override
  public int parallelism() {
    return parallelism;
  }

  @Override
  public void until(int pieces, IntConsumer work, BooleanSupplier stop) {
    inChunks(pieces, stop, (from, to) -> {
      for (int i = from; i < to; i++) {
        // checked per piece, as upstream's ParallelizeUntil: Filter stops as soon as enough
        // feasible nodes are found instead of finishing every started chunk
        if (i > from && stop.getAsBoolean()) {
          return false;
        }
        work.accept(i);
      }
      return true;
    });
  }

  @Override
  public void untilRanges(int pieces, RangeWork work, BooleanSupplier stop) {
    inChunks(pieces, stop, (from, to) -> {
      work.accept(from, to);
      return true;
    });
  }

  /** One chunk's work; false stops the worker that ran it. */
  private interface ChunkWork {
    boolean run(int from, int to);
  }

  /**
   * Splits {@code pieces} into upstream's chunk size and lets up to {@code threads} workers claim chunks until all
   * are done, {@code stop} holds or a chunk throws (the first failure is rethrown here).
   */
  private void inChunks(int pieces, BooleanSupplier stop, ChunkWork work) {
    if (pieces <= 0) {
      return;
    }
    int chunk = Parallelizer.chunkSize(pieces, parallelism);
    int chunks = (pieces + chunk - 1) / chunk;
    int workers = Math.min(threads, chunks);
    AtomicInteger nextChunk = new AtomicInteger();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    Runnable worker = () -> {
      int c;
      while (failure.get() == null && !stop.getAsBoolean()
          && (c = nextChunk.getAndIncrement()) < chunks) {
        try {
          if (!work.run(c * chunk, Math.min(pieces, (c + 1) * chunk))) {
            return;
          }
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
          return;
        }
      }
    };
    runWorkers(workers, worker, failure);
  }

  private void runWorkers(int workers, Runnable worker, AtomicReference<RuntimeException> failure) {
    List<Future<?>> futures = new ArrayList<>(workers - 1);
    for (int w = 1; w < workers; w++) {
      futures.add(pool.submit(worker));
    }
    worker.run();
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for parallel work", e);
      } catch (java.util.concurrent.ExecutionException e) {
        failure.compareAndSet(null, new IllegalStateException(e.getCause()));
      }
    }
    RuntimeException e = failure.get();
    if (e != null) {
      throw e;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
