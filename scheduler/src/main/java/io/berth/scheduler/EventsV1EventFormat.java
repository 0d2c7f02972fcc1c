package io.berth.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * events.k8s.io/v1 Events, as client-go's {@code tools/events} broadcaster (kube-scheduler's) writes them: an
 * {@code eventTime} in microseconds, {@code reportingController} the scheduler name and {@code reportingInstance}
 * the scheduler name, a dash and the host name, {@code regarding} the object and {@code note} the message; no
 * {@code deprecated*} member and no {@code series} on a first write. A repeat sets the series with the strategic-merge
 * patch {@code {"series":{"count":N,"lastObservedTime":...}}}; an Event the server lost is created again carrying
 * its series.
 *
 * <p>Repeats are upstream's isomorphic events: the same type, action, reason, reporter and regarding reference,
 * which includes the object's resourceVersion, whatever the note says. So a FailedScheduling whose message changed
 * counts as a repeat (the Event keeps its first note, as upstream's), while one after the pod changed (its first
 * failure's PodScheduled condition, for one) starts a new Event. A series left without a repeat for
 * {@link #SERIES_IDLE} is finished: the next occurrence is a new Event, as upstream's {@code finishSeries}. Immutable
 * and thread-safe.
 */
final class EventsV1EventFormat implements EventWireFormat {

  /** upstream's {@code finishTime}: how long a series stays open without a repeat. */
  static final Duration SERIES_IDLE = Duration.ofMinutes(6);

  private final String controller;
  private final String instance;

  /** The server refuses an {@code instance} over 128 characters; upstream does not shorten it either. */
  EventsV1EventFormat(String controller, String instance) {
    this.controller = controller;
    this.instance = instance;
  }

  /** upstream's eventKey (reportingController and reportingInstance are this format's own; no related object). */
  private record Key(String type, String action, String reason, String apiVersion, String kind, String namespace,
      String name, String uid, String resourceVersion) {
  }

  @Override
  public String apiVersion() {
    return "events.k8s.io/v1";
  }

  @Override
  public String path() {
    return "apis/events.k8s.io/v1";
  }

  @Override
  public String component() {
    return controller;
  }

  String reportingInstance() {
    return instance;
  }

  @Override
  public Object seriesKey(EventOccurrence o) {
    return new Key(o.type(), o.action(), o.reason(), o.apiVersion(), o.kind(), o.namespace(), o.name(), o.uid(),
        o.resourceVersion());
  }

  @Override
  public Optional<Duration> seriesIdle() {
    return Optional.of(SERIES_IDLE);
  }

  @Override
  public String create(EventOccurrence first, String name, int count, Instant last) {
    StringBuilder json = new StringBuilder(512)
        .append("{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{");
    boolean more = EventJson.member(json, false, "name", name);
    EventJson.member(json, more, "namespace", first.eventNamespace());
    json.append('}');
    EventJson.member(json, true, "eventTime", EventJson.microTime(first.at()));
    if (count > 1) {
      json.append(',');
      series(json, count, last);
    }
    EventJson.member(json, true, "reportingController", controller);
    EventJson.member(json, true, "reportingInstance", instance);
    EventJson.member(json, true, "action", first.action());
    EventJson.member(json, true, "reason", first.reason());
    EventJson.reference(json, "regarding", first);
    EventJson.member(json, true, "note", first.message());
    EventJson.member(json, true, "type", first.type());
    return json.append('}').toString();
  }

  @Override
  public String repeat(int count, Instant last) {
    StringBuilder json = new StringBuilder(80).append('{');
    series(json, count, last);
    return json.append('}').toString();
  }

  private static void series(StringBuilder json, int count, Instant last) {
    json.append("\"series\":{\"count\":").append(count);
    EventJson.member(json, true, "lastObservedTime", EventJson.microTime(last));
    json.append('}');
  }
}
