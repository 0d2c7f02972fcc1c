/**
 * Typed work queues with client-go semantics, for controllers.
 *
 * <p>The contracts grow by extension as in client-go's {@code util/workqueue}: {@link
 * io.berth.workqueue.WorkQueue} (add, get, done, shut down) → {@link
 * io.berth.workqueue.DelayingQueue} (+ {@code addAfter}) → {@link
 * io.berth.workqueue.RateLimitingQueue} (+ {@code addRateLimited}, {@code forget}, {@code
 * numRequeues}). {@link io.berth.workqueue.WorkQueues} builds them; {@link
 * io.berth.workqueue.RateLimiters} and the {@link io.berth.workqueue.RateLimiter} implementations
 * choose retry delays. Time comes from an injected {@link io.berth.workqueue.Clock} ({@link
 * io.berth.workqueue.FakeClock} in tests), metrics go through a {@link
 * io.berth.workqueue.MetricsProvider} ({@link io.berth.workqueue.MicrometerMetricsProvider} for
 * the client-go metric names). The queues start no threads.
 */
package io.berth.workqueue;
