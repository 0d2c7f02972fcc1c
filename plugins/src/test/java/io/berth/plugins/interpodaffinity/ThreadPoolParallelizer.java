package io.berth.plugins.interpodaffinity;

import io.berth.framework.Parallelizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/** A real multi-threaded {@link Parallelizer} for tests; close it to stop its threads. */
final class ThreadPoolParallelizer implements Parallelizer, AutoCloseable {
  private final int parallelism;
  // thread-safe executor; shut down by close()
  private final ExecutorService pool;

  ThreadPoolParallelizer(int parallelism) {
    this.parallelism = parallelism;
    this.pool = Executors.newFixedThreadPool(parallelism);
  }

  @Override
  public int parallelism() {
    return parallelism;
  }

  @Override
  public void until(int pieces, IntConsumer work, BooleanSupplier stop) {
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (int w = 0; w < parallelism; w++) {
      workers.add(pool.submit(() -> {
        for (int i = next.getAndIncrement(); i < pieces && !stop.getAsBoolean();
            i = next.getAndIncrement()) {
          work.accept(i);
        }
      }));
    }
    RuntimeException first = null;
    for (Future<?> f : workers) {
      try {
        f.get();
      } catch (ExecutionException e) {
        if (first == null) {
          first = e.getCause() instanceof RuntimeException r ? r : new RuntimeException(e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
