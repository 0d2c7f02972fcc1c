package io.berth.scheduler.explain;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The recorded scheduling attempts, in bounded memory: a ring of the last
 * {@code attemptsPerPod} attempts per pod, and at most {@code maxEntries} entries overall, where
 * an attempt weighs one entry plus one per node it lists (feasible, rejected and scored nodes), so
 * that the bound holds for 5,000-node clusters as for small ones. When a new attempt would exceed
 * the bound, the oldest attempts of the pods recorded least recently go first (never the attempt
 * being added). An attempt of the same pod and attempt number that was still waiting in Permit is
 * replaced rather than appended.
 *
 * <p>Thread-safe: every method is {@code synchronized} on this store (one writer, the recorder
 * thread; readers are the debug endpoints and in-process users such as the simulator's
 * dashboard); reads return immutable copies.
 */
public final class ExplainStore {
  /** The default ring size per pod ({@code --explain-attempts-per-pod}). */
  public static final int DEFAULT_ATTEMPTS_PER_POD = 4;
  /** The default overall bound ({@code --explain-max-entries}); about 100 MB at most. */
  public static final long DEFAULT_MAX_ENTRIES = 1_000_000;

  private final int attemptsPerPod;
  private final long maxEntries;
  // guarded by `this`; insertion order = least recently recorded first
  private final LinkedHashMap<String, ArrayDeque<Attempt>> byPod = new LinkedHashMap<>();
  // guarded by `this`; the sum of weight() over every stored attempt
  private long entries;
  // guarded by `this`
  private long evicted;

  /**
   * @param attemptsPerPod the ring size per pod; 0 records nothing
   * @param maxEntries the overall bound (see the class comment); at least 1
   */
  public ExplainStore(int attemptsPerPod, long maxEntries) {
    if (attemptsPerPod < 0) {
      throw new IllegalArgumentException("attemptsPerPod: must be 0 or more, got " + attemptsPerPod);
    }
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries: must be at least 1, got " + maxEntries);
    }
    this.attemptsPerPod = attemptsPerPod;
    this.maxEntries = maxEntries;
  }

  /** A store with the default bounds. */
  public static ExplainStore withDefaults() {
    return new ExplainStore(DEFAULT_ATTEMPTS_PER_POD, DEFAULT_MAX_ENTRIES);
  }

  /** Whether this store records at all (ring size above 0). */
  public boolean enabled() {
    return attemptsPerPod > 0;
  }

  public int attemptsPerPod() {
    return attemptsPerPod;
  }

  public long maxEntries() {
    return maxEntries;
  }

  /** How much an attempt counts against {@link #maxEntries()}. */
  static long weight(Attempt a) {
    return 1L + a.filter().feasible().size() + a.filter().rejected().size()
        + a.scores().nodes().size();
  }

  /** Stores {@code attempt} as its pod's latest, evicting as the class comment says. */
  public synchronized void record(Attempt attempt) {
    if (attemptsPerPod == 0) {
      return;
    }
    String key = key(attempt.namespace(), attempt.name());
    ArrayDeque<Attempt> ring = byPod.remove(key);
    if (ring == null) {
      ring = new ArrayDeque<>(Math.min(attemptsPerPod, 8));
    }
    Attempt last = ring.peekLast();
    if (last != null && last.outcome() == Attempt.Outcome.WAITING_ON_PERMIT
        && last.uid().equals(attempt.uid()) && last.attempt() == attempt.attempt()) {
      ring.pollLast();
      entries -= weight(last);
    }
    ring.addLast(attempt);
    entries += weight(attempt);
    while (ring.size() > attemptsPerPod) {
      entries -= weight(ring.pollFirst());
      evicted++;
    }
    byPod.put(key, ring);
    evictOverBound(ring);
  }

  private void evictOverBound(ArrayDeque<Attempt> newest) {
    Iterator<Map.Entry<String, ArrayDeque<Attempt>>> it = byPod.entrySet().iterator();
    while (entries > maxEntries && it.hasNext()) {
      ArrayDeque<Attempt> ring = it.next().getValue();
      while (entries > maxEntries && !ring.isEmpty() && !(ring == newest && ring.size() == 1)) {
        entries -= weight(ring.pollFirst());
        evicted++;
      }
      if (ring.isEmpty()) {
        it.remove();
      }
    }
  }

  /** The pod's latest recorded attempt. */
  public synchronized Optional<Attempt> latest(String namespace, String name) {
    ArrayDeque<Attempt> ring = byPod.get(key(namespace, name));
    return ring == null || ring.isEmpty() ? Optional.empty() : Optional.of(ring.peekLast());
  }

  /** The pod's recorded attempts, oldest first; empty when none. */
  public synchronized List<Attempt> attempts(String namespace, String name) {
    ArrayDeque<Attempt> ring = byPod.get(key(namespace, name));
    return ring == null ? List.of() : List.copyOf(ring);
  }

  /** The {@code namespace/name} of every pod with a recorded attempt, least recent first. */
  public synchronized List<String> pods() {
    return new ArrayList<>(byPod.keySet());
  }

  /** Forgets a pod's attempts (for instance when it was deleted). */
  public synchronized void forget(String namespace, String name) {
    ArrayDeque<Attempt> ring = byPod.remove(key(namespace, name));
    if (ring != null) {
      for (Attempt a : ring) {
        entries -= weight(a);
      }
    }
  }

  /** The entries stored now (see the class comment); never above {@link #maxEntries()} but for one attempt alone. */
  public synchronized long entries() {
    return entries;
  }

  /** How many attempts were dropped to stay within the bounds, since start. */
  public synchronized long evicted() {
    return evicted;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
