package io.berth.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events through the API server as client-go's {@code record} package does for
 * kube-controller-manager. A recorder builds the Event on the caller's thread (name {@code <object>.<hex nanos>},
 * {@code source.component} and {@code reportingComponent} the component, {@code involvedObject} from the object:
 * kind, apiVersion, namespace, name, uid, resourceVersion; count 1, first and last timestamp now) and offers it to a
 * bounded queue of {@value #MAX_QUEUED_EVENTS}; when the queue is full the event is dropped with a log line, so
 * recording never blocks or throws. One writer thread correlates each event ({@link EventCorrelator}: aggregation,
 * count/lastTimestamp patches for repeats, spam filter) and writes it: a PATCH for a repeat (a create if the
 * original is gone), a POST otherwise. Transport errors are retried up to {@value #MAX_TRIES} times, the first wait
 * randomised, then every retry interval (10 s, as upstream); an API error rejects the event for good.
 *
 * <p>Thread-safe. Owned by the daemon: {@link #close()} stops the writer after one last attempt at each queued
 * event. The recorders map is concurrent; {@code closed} is guarded by {@code lock}.
 */
public final class KubernetesEventRecorderFactory implements EventRecorderFactory, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorderFactory.class);

  static final int MAX_QUEUED_EVENTS = 1000;
  static final int MAX_TRIES = 12;

  private final KubernetesClient client;
  private final Clock clock;
  private final Duration retryInterval;
  private final EventCorrelator correlator;
  private final BlockingQueue<Event> queue;
  private final Map<String, EventRecorder> recorders = new ConcurrentHashMap<>();
  private final Thread writer;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition closing = lock.newCondition();
  // guarded by lock
  private boolean closed;

  /** A factory writing through {@code client}, stamping events with the system clock. */
  public KubernetesEventRecorderFactory(KubernetesClient client) {
    this(client, Clock.systemUTC(), Duration.ofSeconds(10), MAX_QUEUED_EVENTS);
  }

  /**
   * A factory writing through {@code client}, stamping and correlating events on {@code clock}, waiting
   * {@code retryInterval} between attempts to write an event the server could not be reached for, queueing at most
   * {@code queueCapacity} events.
   */
  public KubernetesEventRecorderFactory(KubernetesClient client, Clock clock, Duration retryInterval,
      int queueCapacity) {
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.retryInterval = Objects.requireNonNull(retryInterval, "retryInterval");
    this.correlator = new EventCorrelator(clock);
    this.queue = new ArrayBlockingQueue<>(queueCapacity);
    this.writer = new Thread(this::writeLoop, "event-recorder");
    writer.setDaemon(true);
    writer.start();
  }

  @Override
  public EventRecorder forComponent(String component) {
    Objects.requireNonNull(component, "component");
    return recorders.computeIfAbsent(component, c -> (object, type, reason, format, args) ->
        record(c, object, type, reason, format, args));
  }

  /** Events waiting to be written, for tests and metrics. */
  int queued() {
    return queue.size();
  }

  private void record(String component, HasMetadata object, String type, String reason, String format,
      Object... args) {
    try {
      if (!EventRecorder.NORMAL.equals(type) && !EventRecorder.WARNING.equals(type)) {
        LOG.error("unsupported event type '{}' for reason {}; event dropped", type, reason);
        return;
      }
      String message = args == null || args.length == 0 ? format : String.format(format, args);
      Event event = makeEvent(component, object, type, reason, message, clock.instant());
      if (!queue.offer(event)) {
        LOG.error("unable to record event: too many queued events, dropped event {} {} {}: {}", type, reason,
            event.getInvolvedObject().getName(), message);
      }
    } catch (RuntimeException e) {
      LOG.error("could not record event {} about {}", reason, object == null ? null : object.getMetadata(), e);
    }
  }

  /** The Event client-go's {@code makeEvent} builds for {@code object}. */
  static Event makeEvent(String component, HasMetadata object, String type, String reason, String message,
      Instant now) {
    ObjectReference ref = reference(object);
    String namespace = ref.getNamespace() == null || ref.getNamespace().isEmpty() ? "default" : ref.getNamespace();
    String stamp = ApiTimes.format(now);
    return new EventBuilder()
        .withNewMetadata()
        .withName(ref.getName() + "." + ApiTimes.hexNanos(now))
        .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(ref)
        .withReason(reason)
        .withMessage(message)
        .withFirstTimestamp(stamp)
        .withLastTimestamp(stamp)
        .withCount(1)
        .withType(type)
        .withNewSource().withComponent(component).endSource()
        .withReportingComponent(component)
        .withReportingInstance("")
        .build();
  }

  /** A reference to {@code object} ({@code ref.GetReference}); kind and apiVersion fall back to the Java type's. */
  static ObjectReference reference(HasMetadata object) {
    String kind = object.getKind() != null ? object.getKind() : HasMetadata.getKind(object.getClass());
    String apiVersion = object.getApiVersion() != null ? object.getApiVersion()
        : HasMetadata.getApiVersion(object.getClass());
    return new ObjectReferenceBuilder()
        .withKind(kind)
        .withApiVersion(apiVersion)
        .withNamespace(object.getMetadata().getNamespace())
        .withName(object.getMetadata().getName())
        .withUid(object.getMetadata().getUid())
        .withResourceVersion(object.getMetadata().getResourceVersion())
        .build();
  }

  private void writeLoop() {
    while (true) {
      Event event;
      try {
        event = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (event == null) {
        if (isClosed()) {
          return;
        }
        continue;
      }
      try {
        recordToSink(event);
      } catch (RuntimeException e) {
        LOG.error("unable to write event {}", event.getMetadata().getName(), e);
      }
    }
  }

  private void recordToSink(Event event) {
    EventCorrelator.Result result = correlator.correlate(event);
    if (result.skip()) {
      return;
    }
    for (int tries = 1; ; tries++) {
      if (recordEvent(result)) {
        return;
      }
      if (tries >= MAX_TRIES || isClosed()) {
        LOG.error("unable to write event {} (retry limit exceeded or shutting down)", event.getMetadata().getName());
        return;
      }
      long waitNanos = retryInterval.toNanos();
      if (tries == 1) {
        waitNanos = (long) (waitNanos * ThreadLocalRandom.current().nextDouble());
      }
      if (!awaitRetry(waitNanos)) {
        return;
      }
    }
  }

  /** One attempt; true when the event was written or is to be abandoned, false to retry. */
  private boolean recordEvent(EventCorrelator.Result result) {
    Event event = result.event();
    Event written = null;
    RuntimeException error = null;
    String namespace = event.getMetadata().getNamespace();
    if (result.patch().isPresent()) {
      try {
        written = ApiPatchers.strategicMerge(client, Event.class, namespace, event.getMetadata().getName(),
            result.patch().get());
      } catch (RuntimeException e) {
        error = e;
      }
    }
    if (result.patch().isEmpty() || (error != null && KubeApiErrors.isNotFound(error))) {
      error = null;
      Event toCreate = new EventBuilder(event).editMetadata().withResourceVersion(null).endMetadata().build();
      try {
        written = client.v1().events().inNamespace(namespace).resource(toCreate).create();
      } catch (RuntimeException e) {
        error = e;
      }
    }
    if (error == null) {
      if (written != null) {
        correlator.updateState(written);
      }
      return true;
    }
    if (KubeApiErrors.isStatusError(error)) {
      if (KubeApiErrors.isAlreadyExists(error)
          || KubeApiErrors.hasStatusCause(error, KubeApiErrors.NAMESPACE_TERMINATING_CAUSE)) {
        LOG.debug("server rejected event {} (will not retry): {}", event.getMetadata().getName(),
            KubeApiErrors.message(error));
      } else {
        LOG.warn("server rejected event {} (will not retry): {}", event.getMetadata().getName(),
            KubeApiErrors.message(error));
      }
      return true;
    }
    LOG.warn("unable to write event {} (may retry after sleeping): {}", event.getMetadata().getName(),
        KubeApiErrors.message(error));
    return false;
  }

  private boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Waits before a retry; false if the factory closed meanwhile. */
  private boolean awaitRetry(long nanos) {
    lock.lock();
    try {
      long left = nanos;
      while (!closed && left > 0) {
        left = closing.awaitNanos(left);
      }
      return !closed;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops accepting the writer's retries, gives each queued event one last attempt and waits up to 5 s for the
   * writer to finish. Events recorded afterwards are queued but never written.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      closing.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      writer.interrupt();
    }
  }
}
