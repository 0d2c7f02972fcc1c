package io.berth.workqueue;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A call running on its own daemon thread, so a test can see it block and later complete. */
final class Async<V> {

  private final Thread thread;
  private final CompletableFuture<V> result = new CompletableFuture<>();

  private Async(String name, Callable<V> call) {
    thread =
        new Thread(
            () -> {
              try {
                result.complete(call.call());
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
  }

  static <V> Async<V> start(String name, Callable<V> call) {
    return new Async<>(name, call);
  }

  /** Waits until the thread is parked (blocked in a wait) without having finished. */
  Async<V> awaitParked() {
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(1))
        .until(
            () ->
                result.isDone()
                    || thread.getState() == Thread.State.WAITING
                    || thread.getState() == Thread.State.TIMED_WAITING);
    if (result.isDone()) {
      throw new AssertionError("expected " + thread.getName() + " to block, but it finished");
    }
    return this;
  }

  boolean isDone() {
    return result.isDone();
  }

  V get() throws Exception {
    return result.get(5, TimeUnit.SECONDS);
  }
}
