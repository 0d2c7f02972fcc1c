package io.berth.controller;

import io.berth.workqueue.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each controller (by its {@code namespace/name} key) still expects to see from the informer before it may
 * act again (client-go's {@code ControllerExpectations} wrapped in {@code UIDTrackingControllerExpectations}).
 *
 * <p>Protocol, as upstream: before writing, a sync records how many creations it is about to make
 * ({@link #expectCreations}) or which objects it is about to delete ({@link #expectDeletions}, by key); the event
 * handlers lower the counts as the informer reports them ({@link #creationObserved}, {@link #deletionObserved});
 * a sync whose writes failed lowers them itself for what will never be observed. A controller is
 * {@linkplain #satisfiedExpectations satisfied} when it has no record, when both counts are at or below zero, or when
 * the record is older than {@link #EXPECTATIONS_TIMEOUT} (a lost watch event must not stall it forever). Until
 * then its syncs only refresh status, so a lagging cache never makes it create or delete twice.
 *
 * <p>Deletions are tracked by the deleted object's key, so that the update that sets a pod's deletionTimestamp and
 * the later delete event lower the count only once between them. Setting new expectations replaces the counts and
 * restarts the timeout; setting new deletion keys replaces the previous key set.
 *
 * <p>Thread-safe: every method is atomic; both maps are guarded by {@code this}. Time comes from the injected
 * {@link Clock}.
 */
public final class ControllerExpectations {

  private static final Logger LOG = LoggerFactory.getLogger(ControllerExpectations.class);

  /** Upstream's {@code ExpectationsTimeout}: how long unmet expectations hold a controller back. */
  public static final Duration EXPECTATIONS_TIMEOUT = Duration.ofMinutes(5);

  /**
   * A copy of one controller's expectations. Immutable.
   *
   * @param add creations still expected (may be negative after surplus observations)
   * @param del deletions still expected
   * @param pendingDeletions keys of the objects whose deletion has not been observed yet
   * @param age how long ago the expectations were set
   */
  public record Snapshot(long add, long del, Set<String> pendingDeletions, Duration age) {
    public Snapshot {
      pendingDeletions = Set.copyOf(pendingDeletions);
    }

    /** Both counts at or below zero. */
    public boolean fulfilled() {
      return add <= 0 && del <= 0;
    }
  }

  /** One controller's counts; guarded by the enclosing instance. */
  private static final class Counts {
    long add;
    long del;
    final long setAtNanos;

    Counts(long add, long del, long setAtNanos) {
      this.add = add;
      this.del = del;
      this.setAtNanos = setAtNanos;
    }
  }

  private final Clock clock;
  private final long timeoutNanos;
  // guarded by this
  private final Map<String, Counts> counts = new HashMap<>();
  // guarded by this: controller key -> keys of objects it deleted and has not yet seen go
  private final Map<String, Set<String>> deleteKeys = new HashMap<>();

  /** Expectations timed by {@code clock}, expiring after {@link #EXPECTATIONS_TIMEOUT}. */
  public ControllerExpectations(Clock clock) {
    this(clock, EXPECTATIONS_TIMEOUT);
  }

  /** Expectations timed by {@code clock}, expiring after {@code timeout}. */
  public ControllerExpectations(Clock clock, Duration timeout) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeoutNanos = timeout.toNanos();
  }

  /**
   * Whether the controller may act: no expectations recorded, all met, or expired
   * ({@code SatisfiedExpectations}).
   */
  public synchronized boolean satisfiedExpectations(String controllerKey) {
    Counts c = counts.get(controllerKey);
    if (c == null) {
      return true;
    }
    if (c.add <= 0 && c.del <= 0) {
      return true;
    }
    if (clock.nanoTime() - c.setAtNanos > timeoutNanos) {
      LOG.debug("expectations of {} expired with add={} del={}", controllerKey, c.add, c.del);
      return true;
    }
    LOG.trace("{} still waits for add={} del={}", controllerKey, c.add, c.del);
    return false;
  }

  /** Replaces the controller's counts with {@code add} and {@code del}, restarting the timeout. */
  public synchronized void setExpectations(String controllerKey, int add, int del) {
    counts.put(controllerKey, new Counts(add, del, clock.nanoTime()));
  }

  /** Records that {@code adds} creations are about to be made (replacing earlier counts). */
  public synchronized void expectCreations(String controllerKey, int adds) {
    setExpectations(controllerKey, adds, 0);
  }

  /**
   * Records that the objects with {@code keys} ({@code namespace/name}) are about to be deleted, replacing the
   * earlier key set and counts.
   */
  public synchronized void expectDeletions(String controllerKey, Collection<String> keys) {
    Set<String> existing = deleteKeys.get(controllerKey);
    if (existing != null && !existing.isEmpty()) {
      LOG.warn("clobbering the pending deletions of {}: {}", controllerKey, existing);
    }
    Set<String> expected = new HashSet<>(keys);
    deleteKeys.put(controllerKey, expected);
    setExpectations(controllerKey, 0, expected.size());
  }

  /** One expected creation was seen (or will never happen). */
  public synchronized void creationObserved(String controllerKey) {
    lowerExpectations(controllerKey, 1, 0);
  }

  /**
   * The object with {@code deleteKey} is gone or going; lowers the deletion count once per key that was expected
   * (later calls for the same key, and keys never expected, change nothing).
   */
  public synchronized void deletionObserved(String controllerKey, String deleteKey) {
    Set<String> keys = deleteKeys.get(controllerKey);
    if (keys != null && keys.remove(deleteKey)) {
      lowerExpectations(controllerKey, 0, 1);
    }
  }

  /** Lowers the counts if the controller has expectations. */
  public synchronized void lowerExpectations(String controllerKey, int add, int del) {
    Counts c = counts.get(controllerKey);
    if (c != null) {
      c.add -= add;
      c.del -= del;
    }
  }

  /** Raises the counts if the controller has expectations. */
  public synchronized void raiseExpectations(String controllerKey, int add, int del) {
    Counts c = counts.get(controllerKey);
    if (c != null) {
      c.add += add;
      c.del += del;
    }
  }

  /** Forgets everything about the controller (it was deleted; a new one of the same name starts clean). */
  public synchronized void deleteExpectations(String controllerKey) {
    counts.remove(controllerKey);
    deleteKeys.remove(controllerKey);
  }

  /** A copy of the controller's expectations, if it has any. */
  public synchronized Optional<Snapshot> get(String controllerKey) {
    Counts c = counts.get(controllerKey);
    if (c == null) {
      return Optional.empty();
    }
    Set<String> keys = deleteKeys.getOrDefault(controllerKey, Set.of());
    return Optional.of(new Snapshot(c.add, c.del, keys, Duration.ofNanos(clock.nanoTime() - c.setAtNanos)));
  }
}
