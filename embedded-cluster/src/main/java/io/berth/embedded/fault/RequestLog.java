package io.berth.embedded.fault;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * The most recent requests the embedded API server received (verb, group, resource, subresource, namespace), for
 * tests that assert how a daemon talks to the API server ("every sync reads listers, never lists"). Bounded: the
 * oldest records are dropped beyond {@code capacity}.
 *
 * <p>Thread-safe: every method synchronizes on the log.
 */
public final class RequestLog {

  private final int capacity;
  // guarded by this
  private final Deque<RequestRecord> records = new ArrayDeque<>();

  public RequestLog(int capacity) {
    this.capacity = capacity;
  }

  /** Appends a record; called by the server for every request. */
  public synchronized void record(RequestRecord record) {
    if (records.size() == capacity) {
      records.removeFirst();
    }
    records.addLast(record);
  }

  /** A copy of the kept records, oldest first. */
  public synchronized List<RequestRecord> entries() {
    return new ArrayList<>(records);
  }

  /** The kept records that match {@code filter}, oldest first. */
  public synchronized List<RequestRecord> entries(Predicate<RequestRecord> filter) {
    return records.stream().filter(filter).toList();
  }

  /** How many kept records match {@code verb} and {@code resourcePath} ({@code pods} or {@code pods/binding}). */
  public synchronized long count(String verb, String resourcePath) {
    return records.stream().filter(r -> r.verb().equals(verb) && r.resourcePath().equals(resourcePath)).count();
  }

  public synchronized void clear() {
    records.clear();
  }
}
