package io.berth.bench.workqueue;

import io.berth.workqueue.RateLimiters;
import io.berth.workqueue.RateLimitingQueue;
import io.berth.workqueue.WorkQueues;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.DefaultControllerRateLimiter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The operations the workqueue benchmarks drive, over Berth's queue or client-java's, so that both
 * run in exactly the same harness. Both are rate-limiting queues with the default controller rate
 * limiter, as a controller would build them. Thread-safe as the queues underneath are.
 */
interface BenchQueue {

  /** Name of Berth's implementation in the benchmarks' {@code queue} parameter. */
  String BERTH = "berth";
  /** Name of {@code io.kubernetes:client-java-extended}'s {@code DefaultRateLimitingQueue}. */
  String CLIENT_JAVA = "client-java";

  void add(Integer item);

  void addAfter(Integer item, Duration delay);

  /** Blocks for the next item; null once the queue is shut down and empty. */
  Integer get() throws InterruptedException;

  void done(Integer item);

  /** Shuts the queue down and stops any thread it owns. */
  void shutDown();

  static BenchQueue create(String impl) {
    switch (impl) {
      case BERTH:
        return new Berth();
      case CLIENT_JAVA:
        return new ClientJava();
      default:
        throw new IllegalArgumentException("unknown queue " + impl);
    }
  }

  /** Berth's {@link RateLimitingQueue}. */
  final class Berth implements BenchQueue {
    private final RateLimitingQueue<Integer> queue =
        WorkQueues.newRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());

    @Override
    public void add(Integer item) {
      queue.add(item);
    }

    @Override
    public void addAfter(Integer item, Duration delay) {
      queue.addAfter(item, delay);
    }

    @Override
    public Integer get() throws InterruptedException {
      Optional<Integer> item = queue.get();
      return item.isPresent() ? item.get() : null;
    }

    @Override
    public void done(Integer item) {
      queue.done(item);
    }

    @Override
    public void shutDown() {
      queue.shutDown();
    }
  }

  /** client-java's {@code DefaultRateLimitingQueue}, whose waiting loop runs on its own thread. */
  final class ClientJava implements BenchQueue {
    private final ExecutorService waitingLoop =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "client-java-waiting-loop");
              t.setDaemon(true);
              return t;
            });
    private final DefaultRateLimitingQueue<Integer> queue =
        new DefaultRateLimitingQueue<>(waitingLoop, new DefaultControllerRateLimiter<>());

    @Override
    public void add(Integer item) {
      queue.add(item);
    }

    @Override
    public void addAfter(Integer item, Duration delay) {
      queue.addAfter(item, delay);
    }

    @Override
    public Integer get() throws InterruptedException {
      return queue.get();
    }

    @Override
    public void done(Integer item) {
      queue.done(item);
    }

    @Override
    public void shutDown() {
      queue.shutDown();
      waitingLoop.shutdownNow();
    }
  }
}
