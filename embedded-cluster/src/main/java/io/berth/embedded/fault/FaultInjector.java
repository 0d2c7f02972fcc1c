package io.berth.embedded.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Faults the embedded API server injects, for reliability tests of the daemons: fail the next N requests of a verb
 * and resource with a status code, add latency to them, or drop every open watch at once.
 *
 * <p>A rule matches a request when its verb is the request's verb or {@code "*"}, and its resource is the request's
 * {@code resource/subresource} path ({@code pods}, {@code pods/binding}) or {@code "*"}. Failures are consumed in the
 * order they were added; latency rules stay until {@link #clear()}.
 *
 * <p>Thread-safe: rules are guarded by {@code this}; the watch dropper is set once by the server.
 */
public final class FaultInjector {

  private record Failure(String verb, String resource, int code, int[] remaining) {
  }

  private record Latency(String verb, String resource, Duration delay) {
  }

  // guarded by this
  private final List<Failure> failures = new ArrayList<>();
  // guarded by this
  private final List<Latency> latencies = new ArrayList<>();
  private volatile Runnable watchDropper = () -> { };

  /** Makes the next {@code count} requests matching {@code verb} and {@code resource} fail with {@code code}. */
  public synchronized FaultInjector failNext(String verb, String resource, int count, int code) {
    if (count < 1 || code < 400 || code > 599) {
      throw new IllegalArgumentException("failNext needs count >= 1 and an error code 400-599, got count " + count
          + " and code " + code);
    }
    failures.add(new Failure(verb, resource, code, new int[] {count}));
    return this;
  }

  /** Delays every response to requests matching {@code verb} and {@code resource} by {@code delay}. */
  public synchronized FaultInjector addLatency(String verb, String resource, Duration delay) {
    latencies.add(new Latency(verb, resource, delay));
    return this;
  }

  /** Closes every open watch now; clients see their watch end and must resume from their last resourceVersion. */
  public void dropAllWatches() {
    watchDropper.run();
  }

  /** Removes every failure and latency rule. */
  public synchronized void clear() {
    failures.clear();
    latencies.clear();
  }

  /** Called by the server: the status code to fail this request with, consuming one failure, if any rule matches. */
  public synchronized Optional<Integer> takeFailure(String verb, String resourcePath) {
    for (Failure f : failures) {
      if (matches(f.verb(), f.resource(), verb, resourcePath) && f.remaining()[0] > 0) {
        f.remaining()[0]--;
        if (f.remaining()[0] == 0) {
          failures.remove(f);
        }
        return Optional.of(f.code());
      }
    }
    return Optional.empty();
  }

  /** Called by the server: the total latency to add to this request. */
  public synchronized Duration latency(String verb, String resourcePath) {
    Duration total = Duration.ZERO;
    for (Latency l : latencies) {
      if (matches(l.verb(), l.resource(), verb, resourcePath)) {
        total = total.plus(l.delay());
      }
    }
    return total;
  }

  /** Called once by the server to connect {@link #dropAllWatches()}. */
  public void setWatchDropper(Runnable dropper) {
    this.watchDropper = dropper;
  }

  private static boolean matches(String ruleVerb, String ruleResource, String verb, String resourcePath) {
    return (ruleVerb.equals("*") || ruleVerb.equals(verb))
        && (ruleResource.equals("*") || ruleResource.equals(resourcePath));
  }
}
