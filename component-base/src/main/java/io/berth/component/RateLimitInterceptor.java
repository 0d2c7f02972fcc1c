package io.berth.component;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts every request of a fabric8 client through a {@link TokenBucketRateLimiter}, as client-go's
 * {@code Request.tryThrottle} does.
 *
 * <p>What counts as a request: fabric8 calls {@link #before} once per attempt to send an HTTP request or open a
 * WebSocket, on the thread that sends it (the caller of a synchronous client method; the fabric8 scheduler for its
 * own retries). So one token is taken per list, get, create, update, patch, delete, per retry of any of them, and
 * per watch <em>opened</em>: a watch takes a token when it connects and none while it streams, however long it
 * lasts, like client-go's {@code Watch}. Responses never take tokens.
 *
 * <p>The wait blocks the sending thread, which is the point; it must therefore never run on an event-loop thread
 * (fabric8 does not send from one). Waits over 50 ms are logged at DEBUG and over 1 s at INFO, mirroring
 * client-go's "Waited for ... due to client-side throttling" message. Thread-safe; stateless apart from the
 * limiter.
 */
final class RateLimitInterceptor implements Interceptor {

  static final String NAME = "berth-client-rate-limit";

  private static final Logger log = LoggerFactory.getLogger(RateLimitInterceptor.class);
  private static final long LONG_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long EXTRA_LONG_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final TokenBucketRateLimiter limiter;

  RateLimitInterceptor(TokenBucketRateLimiter limiter) {
    this.limiter = limiter;
  }

  /** One INFO line per interval at most: a throttled burst would otherwise log one line per request. */
  private static final long INFO_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  // the System.nanoTime() of the last INFO line; races only cost an extra line
  private final java.util.concurrent.atomic.AtomicLong lastInfo =
      new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - INFO_LOG_INTERVAL_NANOS);

  private boolean shouldLogAtInfo() {
    long now = System.nanoTime();
    long last = lastInfo.get();
    return now - last >= INFO_LOG_INTERVAL_NANOS && lastInfo.compareAndSet(last, now);
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    long waited;
    try {
      waited = limiter.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted while waiting for the client-side rate limiter ("
          + DaemonOptions.KUBE_API_QPS + ") before " + request.method() + " " + request.uri().getPath());
    }
    if (waited > EXTRA_LONG_WAIT_NANOS && shouldLogAtInfo()) {
      log.info("waited {} ms due to client-side throttling before {} {} (logged at most every {} s; raise "
          + DaemonOptions.KUBE_API_QPS + " if this persists)", TimeUnit.NANOSECONDS.toMillis(waited),
          request.method(), request.uri().getPath(), TimeUnit.NANOSECONDS.toSeconds(INFO_LOG_INTERVAL_NANOS));
    } else if (waited > LONG_WAIT_NANOS && log.isDebugEnabled()) {
      log.debug("waited {} ms due to client-side throttling before {} {}", TimeUnit.NANOSECONDS.toMillis(waited),
          request.method(), request.uri().getPath());
    }
  }

  TokenBucketRateLimiter limiter() {
    return limiter;
  }
}
