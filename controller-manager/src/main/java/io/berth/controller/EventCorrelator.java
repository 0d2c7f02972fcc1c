package io.berth.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * client-go's {@code EventCorrelator} with its defaults: decides, before anything is written, what becomes of each
 * recorded event.
 * <ul>
 *   <li>Aggregation: when one source reports, about one object, events of the same type and reason with more than
 *       {@value #AGGREGATE_MAX_EVENTS} different messages within {@value #AGGREGATE_INTERVAL_SECONDS} s, further ones
 *       are replaced by one event whose message is prefixed {@code (combined from similar events): }.
 *   <li>Deduplication: an event identical to one already written (same source, object, type, reason, message) is
 *       not created again: the existing one gets {@code count + 1} and a new lastTimestamp through a strategic merge
 *       patch.
 *   <li>Spam filter: a source may send {@value #SPAM_BURST} events about one object, then one per
 *       {@value #SPAM_REFILL_SECONDS} s (a token bucket per source and object); the rest are skipped.
 * </ul>
 * The three caches are LRUs of {@value #CACHE_SIZE} entries. Thread-safe: all state is guarded by {@code this}.
 */
final class EventCorrelator {

  static final int CACHE_SIZE = 4096;
  static final int AGGREGATE_MAX_EVENTS = 10;
  static final int AGGREGATE_INTERVAL_SECONDS = 600;
  static final int SPAM_BURST = 25;
  static final int SPAM_REFILL_SECONDS = 300;
  private static final Duration AGGREGATE_INTERVAL = Duration.ofSeconds(AGGREGATE_INTERVAL_SECONDS);
  static final String AGGREGATE_PREFIX = "(combined from similar events): ";

  /**
   * What to do with an event. Immutable.
   *
   * @param event the event to write (possibly the aggregate, with name and count from an earlier observation)
   * @param patch the strategic merge patch to apply to the existing event instead of creating one
   * @param skip true when the spam filter drops the event
   */
  record Result(Event event, Optional<String> patch, boolean skip) {
  }

  private record AggregateRecord(Set<String> localKeys, Instant lastTimestamp) {
  }

  private record Observation(int count, String firstTimestamp, String name, String resourceVersion) {
  }

  /** A token bucket of the spam filter; guarded by the enclosing instance. */
  private static final class Bucket {
    double tokens;
    Instant last;

    Bucket(double tokens, Instant last) {
      this.tokens = tokens;
      this.last = last;
    }
  }

  private final Clock clock;
  // guarded by this
  private final Map<String, AggregateRecord> aggregates = lru();
  // guarded by this
  private final Map<String, Observation> observations = lru();
  // guarded by this
  private final Map<String, Bucket> spam = lru();

  EventCorrelator(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  private static <V> Map<String, V> lru() {
    return new LinkedHashMap<>(64, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > CACHE_SIZE;
      }
    };
  }

  /** Aggregates, counts and filters {@code newEvent} ({@code EventCorrelate}). */
  synchronized Result correlate(Event newEvent) {
    Instant now = clock.instant();
    Event aggregated;
    String cacheKey;
    // aggregation
    String eventKey = eventKey(newEvent);
    String aggregateKey = aggregateKey(newEvent);
    AggregateRecord record = aggregates.get(aggregateKey);
    if (record == null
        || Duration.between(record.lastTimestamp(), now).compareTo(AGGREGATE_INTERVAL) > 0) {
      record = new AggregateRecord(new HashSet<>(), now);
    }
    record.localKeys().add(nullToEmpty(newEvent.getMessage()));
    record = new AggregateRecord(record.localKeys(), now);
    aggregates.put(aggregateKey, record);
    if (record.localKeys().size() < AGGREGATE_MAX_EVENTS) {
      aggregated = newEvent;
      cacheKey = eventKey;
    } else {
      Iterator<String> any = record.localKeys().iterator();
      any.next();
      any.remove();
      String stamp = ApiTimes.format(now);
      aggregated = new EventBuilder()
          .withNewMetadata()
          .withName(newEvent.getInvolvedObject().getName() + "." + ApiTimes.hexNanos(now))
          .withNamespace(newEvent.getMetadata().getNamespace())
          .endMetadata()
          .withCount(1)
          .withFirstTimestamp(stamp)
          .withLastTimestamp(stamp)
          .withInvolvedObject(newEvent.getInvolvedObject())
          .withMessage(AGGREGATE_PREFIX + nullToEmpty(newEvent.getMessage()))
          .withType(newEvent.getType())
          .withReason(newEvent.getReason())
          .withSource(newEvent.getSource())
          .build();
      cacheKey = aggregateKey;
    }
    // deduplication
    Event observed = new EventBuilder(aggregated).build();
    Optional<String> patch = Optional.empty();
    Observation last = observations.get(cacheKey);
    if (last != null && last.count() > 0) {
      observed.getMetadata().setName(last.name());
      observed.getMetadata().setResourceVersion(last.resourceVersion());
      observed.setFirstTimestamp(last.firstTimestamp());
      observed.setCount(last.count() + 1);
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("count", observed.getCount());
      p.put("lastTimestamp", observed.getLastTimestamp());
      p.put("message", observed.getMessage());
      patch = Optional.of(Serialization.asJson(p));
    }
    observations.put(cacheKey, observation(observed));
    // spam filter
    if (!tryAccept(spamKey(observed), now)) {
      return new Result(null, Optional.empty(), true);
    }
    return new Result(observed, patch, false);
  }

  /** Remembers the server's copy (name, resourceVersion, count) of a written event ({@code UpdateState}). */
  synchronized void updateState(Event written) {
    observations.put(eventKey(written), observation(written));
  }

  private static Observation observation(Event e) {
    return new Observation(e.getCount() == null ? 0 : e.getCount(), e.getFirstTimestamp(),
        e.getMetadata().getName(), e.getMetadata().getResourceVersion());
  }

  private boolean tryAccept(String key, Instant now) {
    Bucket bucket = spam.get(key);
    if (bucket == null) {
      bucket = new Bucket(SPAM_BURST, now);
      spam.put(key, bucket);
    }
    double elapsed = Math.max(0, Duration.between(bucket.last, now).toNanos() / 1e9);
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + elapsed / SPAM_REFILL_SECONDS);
    bucket.last = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Source, object, type, reason and message: identical events share it ({@code getEventKey}). */
  static String eventKey(Event e) {
    ObjectReference o = e.getInvolvedObject();
    EventSource s = e.getSource();
    return String.join("", component(s), host(s), nullToEmpty(o.getKind()), nullToEmpty(o.getNamespace()),
        nullToEmpty(o.getName()), nullToEmpty(o.getFieldPath()), nullToEmpty(o.getUid()),
        nullToEmpty(o.getApiVersion()), nullToEmpty(e.getType()), nullToEmpty(e.getReason()),
        nullToEmpty(e.getMessage()));
  }

  /** Everything of the event key but the message, plus the reporting fields ({@code EventAggregatorByReasonFunc}). */
  static String aggregateKey(Event e) {
    ObjectReference o = e.getInvolvedObject();
    EventSource s = e.getSource();
    return String.join("", component(s), host(s), nullToEmpty(o.getKind()), nullToEmpty(o.getNamespace()),
        nullToEmpty(o.getName()), nullToEmpty(o.getUid()), nullToEmpty(o.getApiVersion()), nullToEmpty(e.getType()),
        nullToEmpty(e.getReason()), nullToEmpty(e.getReportingComponent()), nullToEmpty(e.getReportingInstance()));
  }

  /** Source and object ({@code getSpamKey}). */
  static String spamKey(Event e) {
    ObjectReference o = e.getInvolvedObject();
    EventSource s = e.getSource();
    return String.join("", component(s), host(s), nullToEmpty(o.getKind()), nullToEmpty(o.getNamespace()),
        nullToEmpty(o.getName()), nullToEmpty(o.getUid()), nullToEmpty(o.getApiVersion()));
  }

  private static String component(EventSource s) {
    return s == null ? "" : nullToEmpty(s.getComponent());
  }

  private static String host(EventSource s) {
    return s == null ? "" : nullToEmpty(s.getHost());
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
