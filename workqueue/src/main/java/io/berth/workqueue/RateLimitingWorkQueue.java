package io.berth.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * client-go's {@code rateLimitingType}: a {@link DelayingQueue} plus a {@link RateLimiter} that
 * chooses each retry's delay. Thread-safe as long as the limiter is (all of this package's are);
 * both collaborators are owned by this queue and immutable references.
 */
final class RateLimitingWorkQueue<T> implements RateLimitingQueue<T> {

  private final DelayingQueue<T> queue;
  private final RateLimiter<? super T> rateLimiter;

  RateLimitingWorkQueue(DelayingQueue<T> queue, RateLimiter<? super T> rateLimiter) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
  }

  @Override
  public void addRateLimited(T item) {
    queue.addAfter(item, rateLimiter.when(item));
  }

  @Override
  public void forget(T item) {
    rateLimiter.forget(item);
  }

  @Override
  public int numRequeues(T item) {
    return rateLimiter.numRequeues(item);
  }

  @Override
  public void addAfter(T item, Duration delay) {
    queue.addAfter(item, delay);
  }

  @Override
  public void add(T item) {
    queue.add(item);
  }

  @Override
  public int len() {
    return queue.len();
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    return queue.get();
  }

  @Override
  public void done(T item) {
    queue.done(item);
  }

  @Override
  public void shutDown() {
    queue.shutDown();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    queue.shutDownWithDrain();
  }

  @Override
  public boolean shuttingDown() {
    return queue.shuttingDown();
  }

  @Override
  public String toString() {
    return "RateLimiting" + queue;
  }
}
