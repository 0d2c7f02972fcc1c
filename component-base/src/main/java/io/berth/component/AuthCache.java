package io.berth.component;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A bounded, expiring cache of review results (TokenReview and SubjectAccessReview answers), as the caches in front
 * of upstream's delegating authenticator and authorizer. {@link #get} answers a live entry, or loads the value once
 * however many threads ask for the same key at the same time (the others wait for that one load: a single flight),
 * then keeps it for the time-to-live the caller derives from the value; a zero time-to-live keeps nothing. A load
 * that throws is passed to every waiting caller and never cached. Beyond {@code maxEntries} the least recently used
 * entry is dropped. Time comes from a {@link TokenBucketRateLimiter.Ticker} (monotonic; a fake one in tests).
 *
 * <p>Thread-safe: both maps are guarded by {@code lock}, which is never held while loading.
 */
final class AuthCache<K, V> {

  private record Entry<V>(V value, long expiresAtNanos) {
  }

  private final int maxEntries;
  private final TokenBucketRateLimiter.Ticker ticker;
  private final Object lock = new Object();
  // guarded by lock; access order, the eldest is evicted beyond maxEntries
  private final LinkedHashMap<K, Entry<V>> entries;
  // guarded by lock; the loads running now, by key
  private final Map<K, CompletableFuture<V>> loading = new HashMap<>();

  AuthCache(int maxEntries, TokenBucketRateLimiter.Ticker ticker) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
    }
    this.maxEntries = maxEntries;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, Entry<V>> eldest) {
        return size() > AuthCache.this.maxEntries;
      }
    };
  }

  /**
   * The live cached value of {@code key}, or the one {@code loader} returns (once for concurrent callers), cached
   * for {@code ttl.apply(value)}.
   *
   * @throws RuntimeException what the loader threw
   */
  V get(K key, Supplier<V> loader, Function<V, Duration> ttl) {
    CompletableFuture<V> flight;
    boolean mine = false;
    synchronized (lock) {
      Entry<V> entry = entries.get(key);
      if (entry != null) {
        if (ticker.nanoTime() - entry.expiresAtNanos() < 0) {
          return entry.value();
        }
        entries.remove(key);
      }
      flight = loading.get(key);
      if (flight == null) {
        flight = new CompletableFuture<>();
        loading.put(key, flight);
        mine = true;
      }
    }
    if (!mine) {
      return await(flight);
    }
    V value;
    try {
      value = loader.get();
    } catch (RuntimeException | Error e) {
      synchronized (lock) {
        loading.remove(key);
      }
      flight.completeExceptionally(e);
      throw e;
    }
    Duration keep = ttl.apply(value);
    synchronized (lock) {
      loading.remove(key);
      if (!keep.isNegative() && !keep.isZero()) {
        entries.put(key, new Entry<>(value, ticker.nanoTime() + keep.toNanos()));
      }
    }
    flight.complete(value);
    return value;
  }

  /** The number of entries held now, live or expired but not yet dropped. */
  int size() {
    synchronized (lock) {
      return entries.size();
    }
  }

  private static <V> V await(CompletableFuture<V> flight) {
    try {
      return flight.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
