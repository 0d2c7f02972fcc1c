package io.berth.controller;

import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Upstream's {@code slowStartBatch}: makes {@code count} calls in batches of 1, 2, 4, 8 ... (starting at the initial
 * batch size, doubling after each batch that fully succeeds, the last batch capped by what is left), the calls of one
 * batch running concurrently on an executor. The first batch with any failure is completed and nothing after it is
 * attempted. Used to create many pods without flooding the API server with requests that would all fail the same
 * way (a quota, a webhook), and without flooding the event stream with the matching failures. Stateless.
 */
public final class SlowStart {

  /** Upstream's {@code SlowStartInitialBatchSize}. */
  public static final int INITIAL_BATCH_SIZE = 1;

  /** One call of a batch; may throw to report failure. */
  @FunctionalInterface
  public interface Call {
    void call() throws Exception;
  }

  /**
   * What a slow start achieved. Immutable.
   *
   * @param successes how many calls succeeded (the calls never attempted are {@code count - successes - failures})
   * @param error one of the errors of the failed batch, if a batch failed
   */
  public record Result(int successes, Optional<Exception> error) {
    public Result {
      Objects.requireNonNull(error, "error");
    }
  }

  private SlowStart() {
  }

  /**
   * Calls {@code fn} up to {@code count} times in slow-start batches on {@code executor} and waits for each batch.
   * A call the executor rejects runs on the calling thread. If the calling thread is interrupted, the current batch
   * is still awaited (its calls are in flight and must be counted) and the interrupt flag is restored.
   */
  public static Result slowStartBatch(int count, int initialBatchSize, Executor executor, Call fn) {
    if (count < 0 || initialBatchSize < 1) {
      throw new IllegalArgumentException("count must be >= 0 and initialBatchSize >= 1, got " + count + " and "
          + initialBatchSize);
    }
    int remaining = count;
    int successes = 0;
    for (int batchSize = Math.min(remaining, initialBatchSize); batchSize > 0;
        batchSize = Math.min(2 * batchSize, remaining)) {
      Queue<Exception> errors = runBatch(batchSize, executor, fn);
      successes += batchSize - errors.size();
      if (!errors.isEmpty()) {
        return new Result(successes, Optional.of(errors.peek()));
      }
      remaining -= batchSize;
    }
    return new Result(successes, Optional.empty());
  }

  private static Queue<Exception> runBatch(int batchSize, Executor executor, Call fn) {
    Queue<Exception> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch done = new CountDownLatch(batchSize);
    Runnable task = () -> {
      try {
        fn.call();
      } catch (Exception e) {
        errors.add(e);
      } catch (Error e) {
        errors.add(new IllegalStateException(e));
      } finally {
        done.countDown();
      }
    };
    for (int i = 0; i < batchSize; i++) {
      try {
        executor.execute(task);
      } catch (RejectedExecutionException e) {
        task.run();
      }
    }
    awaitUninterruptibly(done);
    return errors;
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
