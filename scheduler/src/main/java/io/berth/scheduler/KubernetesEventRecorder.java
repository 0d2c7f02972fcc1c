package io.berth.scheduler;

import io.berth.framework.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events for a scheduler profile ({@code source.component} = the scheduler name)
 * without ever making the caller wait on the API server.
 *
 * <p>{@link #event} builds a small record on the caller's thread and queues it; at most
 * {@value #MAX_QUEUED_EVENTS} events wait to be written, and an event beyond that is dropped, logged
 * and counted ({@code berth_scheduler_events_total{result="dropped"}}), as upstream's broadcaster
 * drops when its queue is full. One writer thread correlates and writes: a repeat of the same reason
 * and message for the same object bumps {@code count} and {@code lastTimestamp} of the Event already
 * written (one strategic-merge PATCH, a new POST if the server no longer has it), as upstream's event
 * correlator does; repeats arriving while that Event's previous write is still in flight are folded
 * into one PATCH carrying the latest count ({@code result="aggregated"}). Writes are asynchronous,
 * up to {@value #MAX_IN_FLIGHT} at a time (upstream writes each event from its own goroutine), so
 * the writer keeps up with the binding cycles however long one request takes; an Event is only
 * patched after its create was answered.
 *
 * <p>Thread safety: callers only enqueue (the queue is concurrent, the bound an atomic counter); the
 * series map, the waiting list and the in-flight count are confined to the writer thread, to which
 * the answers of writes (arriving on the HTTP client's threads) are handed back through the same
 * queue. {@link #close()} writes what is queued for up to 5 s, then counts the rest as dropped;
 * nothing is sent after it returns.
 */
public final class KubernetesEventRecorder implements EventRecorder, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorder.class);
  static final int MAX_QUEUED_EVENTS = 10_000;
  static final int MAX_IN_FLIGHT = 32;
  private static final int MAX_TRACKED = 4096;
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private final EventSink sink;
  private final String component;
  private final InstantSource clock;
  private final Duration closeTimeout;
  // concurrent: events (counted by `queued`) and write answers; the writer thread takes
  private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  // events in the inbox or waiting for a write slot; bounds the memory a stalled server can cost
  private final AtomicInteger queued = new AtomicInteger();
  // the last name suffix handed out, so that two events in the same nanosecond get distinct names
  private final AtomicLong lastNameNanos = new AtomicLong();
  private final Counter written;
  private final Counter aggregated;
  private final Counter dropped;
  private final Counter failed;
  private final Thread writer;
  private volatile boolean closing;
  // confined to the writer thread
  private final Map<String, Series> recent = new LinkedHashMap<>(256, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Series> eldest) {
      return size() > MAX_TRACKED;
    }
  };
  // confined to the writer thread: events taken while every write slot was busy, oldest first
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  // confined to the writer thread
  private int inFlight;

  public KubernetesEventRecorder(KubernetesClient client, String component) {
    this(client, component, new SimpleMeterRegistry());
  }

  /** Registers {@code berth_scheduler_events_total{profile,result}} in {@code metrics}. */
  public KubernetesEventRecorder(KubernetesClient client, String component, MeterRegistry metrics) {
    this(EventSink.over(client), component, metrics, InstantSource.system(), CLOSE_TIMEOUT);
  }

  KubernetesEventRecorder(EventSink sink, String component, MeterRegistry metrics, InstantSource clock,
      Duration closeTimeout) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.component = component;
    this.clock = clock;
    this.closeTimeout = closeTimeout;
    this.written = counter(metrics, component, "written");
    this.aggregated = counter(metrics, component, "aggregated");
    this.dropped = counter(metrics, component, "dropped");
    this.failed = counter(metrics, component, "failed");
    this.writer = new Thread(this::writeLoop, "event-recorder-" + component);
    writer.setDaemon(true);
    writer.start();
  }

  private static Counter counter(MeterRegistry metrics, String component, String result) {
    return Counter.builder("berth_scheduler_events").tag("profile", component).tag("result", result)
        .description("core/v1 Events of the scheduler by outcome: written (each create or patch the"
            + " server accepted), aggregated (a repeat folded into a later patch), dropped (queue"
            + " full or not written at shutdown), failed (refused by the server or unreachable)")
        .register(metrics);
  }

  /** What one {@link #event} call recorded; immutable. */
  private record Pending(String namespace, String name, String apiVersion, String kind,
      String uid, String resourceVersion, String type, String reason, String action,
      String message, Instant at) {
    String key() {
      return uid + "/" + reason + "/" + message;
    }
  }

  /** The answer to one write, handed back to the writer thread. */
  private record Answer(Series series, boolean create, int code, Throwable error) {}

  /** One Event written (or being written) and its repeats; confined to the writer thread. */
  private static final class Series {
    final Pending first;
    final String name;
    // occurrences recorded; the server has `sent` once the write in flight succeeds
    int count = 1;
    int sent;
    Instant last;
    boolean inFlight;
    // the create was refused: repeats start a new series
    boolean dead;

    Series(Pending first, String name) {
      this.first = first;
      this.name = name;
      this.last = first.at;
    }
  }

  @Override
  public void event(HasMetadata regarding, String type, String reason, String action,
      String message) {
    if (closing) {
      drop(1, "event recorder closed");
      return;
    }
    if (queued.incrementAndGet() > MAX_QUEUED_EVENTS) {
      queued.decrementAndGet();
      drop(1, "event backlog full");
      return;
    }
    var m = regarding.getMetadata();
    inbox.add(new Pending(m.getNamespace() == null ? "default" : m.getNamespace(), m.getName(),
        regarding.getApiVersion() == null ? "v1" : regarding.getApiVersion(),
        regarding.getKind() == null ? "Pod" : regarding.getKind(), m.getUid(),
        m.getResourceVersion(), type, reason, action, message, clock.instant()));
  }

  private void drop(int n, String why) {
    double before = dropped.count();
    dropped.increment(n);
    // the first drop and then one line per thousand: a stalled server must not flood the log
    if ((long) before / 1000 != (long) (before + n) / 1000 || before == 0) {
      LOG.warn("{}: {}; dropped {} events so far", component, why, (long) (before + n));
    }
  }

  private void writeLoop() {
    long deadline = Long.MAX_VALUE;
    try {
      while (true) {
        if (closing && deadline == Long.MAX_VALUE) {
          deadline = System.nanoTime() + closeTimeout.toNanos();
        }
        if (closing && queued.get() == 0 && inFlight == 0) {
          return;
        }
        Object next = deadline == Long.MAX_VALUE ? inbox.take()
            : inbox.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (next == null) {
          break; // the close deadline passed
        }
        if (next instanceof Answer a) {
          inFlight--;
          guarded(() -> answered(a));
        } else if (next instanceof Pending p) {
          waiting.addLast(p);
        }
        // the close() wake-up carries nothing: the loop re-checks
        while (inFlight < MAX_IN_FLIGHT && !waiting.isEmpty()) {
          Pending p = waiting.pollFirst();
          queued.decrementAndGet();
          guarded(() -> record(p));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int left = queued.getAndSet(0) + inFlight;
    if (left > 0) {
      drop(left, "not written at shutdown");
    }
  }

  /** One bad event must not stop the writer: it is counted as failed and the loop goes on. */
  private void guarded(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      failed.increment();
      LOG.error("{}: could not record an event", component, e);
    }
  }

  private void record(Pending p) {
    Series s = recent.get(p.key());
    if (s != null && !s.dead) {
      s.count++;
      s.last = p.at;
      if (s.inFlight) {
        aggregated.increment();
      } else {
        patch(s);
      }
      return;
    }
    s = new Series(p, p.name + "." + Long.toHexString(nameNanos(p.at)));
    recent.put(p.key(), s);
    create(s);
  }

  private long nameNanos(Instant at) {
    long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
    return lastNameNanos.updateAndGet(last -> Math.max(last + 1, nanos));
  }

  private void create(Series s) {
    Pending p = s.first;
    String json = EventJson.create(p.namespace, s.name, new EventJson.Regarding(p.apiVersion, p.kind,
        p.namespace, p.name, p.uid, p.resourceVersion), p.type, p.reason, p.action, p.message, component,
        timestamp(p.at), timestamp(s.last), s.count);
    send(s, true, () -> sink.create(p.namespace, json));
  }

  private void patch(Series s) {
    String json = "{\"count\":" + s.count + ",\"lastTimestamp\":\"" + timestamp(s.last) + "\"}";
    send(s, false, () -> sink.patch(s.first.namespace, s.name, json));
  }

  private void send(Series s, boolean create, java.util.function.Supplier<
      java.util.concurrent.CompletableFuture<Integer>> write) {
    int count = s.count;
    s.inFlight = true;
    inFlight++;
    try {
      write.get().whenComplete((code, error) -> inbox.add(
          new Answer(s, create, code == null ? 0 : code, error == null ? null : unwrap(error))));
    } catch (RuntimeException e) {
      inbox.add(new Answer(s, create, 0, e));
    }
    s.sent = count;
  }

  private void answered(Answer a) {
    Series s = a.series;
    s.inFlight = false;
    if (a.error == null && a.code / 100 == 2) {
      written.increment();
      if (s.count > s.sent) {
        patch(s); // repeats arrived while this write was in flight
      }
      return;
    }
    if (!a.create && a.code == 404) {
      create(s); // the Event expired on the server: write it again, with the current count
      return;
    }
    failed.increment();
    // a refused create ends the series; after a refused patch the next repeat patches again
    s.dead = a.create;
    if (a.code == 409) {
      LOG.debug("{}: event {} already exists", component, s.name);
    } else {
      LOG.warn("{}: could not record event {} for {}/{}: {}", component, s.first.reason,
          s.first.namespace, s.first.name, a.error != null ? String.valueOf(a.error)
              : "HTTP " + a.code);
    }
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
        ? t.getCause() : t;
  }

  private static String timestamp(Instant at) {
    return at.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** Events queued or waiting for a write slot; informational. */
  int backlog() {
    return queued.get();
  }

  /**
   * Stops taking events (later ones are dropped and counted), writes what is queued and waits for
   * the answers, at most 5 s; whatever is left then is counted as dropped. Idempotent.
   */
  @Override
  public void close() {
    closing = true;
    inbox.add(Boolean.TRUE);
    try {
      writer.join(closeTimeout.toMillis() + 1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      writer.interrupt();
    }
  }
}
