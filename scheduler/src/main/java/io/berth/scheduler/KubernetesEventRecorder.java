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
 * Records the Events of a scheduler profile (reported by the scheduler name) without ever making the caller wait on
 * the API server. Like kube-scheduler's (client-go's {@code EventBroadcasterAdapter}), it writes events.k8s.io/v1
 * Events when the server serves that API, which it asks once, when it is made ({@link EventApiDiscovery}), and
 * core/v1 Events otherwise; the two wire formats are {@link EventsV1EventFormat} and {@link CoreV1EventFormat}.
 *
 * <p>{@link #event} builds a small record on the caller's thread and queues it; at most
 * {@value #MAX_QUEUED_EVENTS} events wait to be written, and an event beyond that is dropped, logged
 * and counted ({@code berth_scheduler_events_total{result="dropped"}}), as upstream's broadcaster
 * drops when its queue is full. One writer thread correlates and writes: a repeat (what the format calls the same
 * series: for events.k8s.io/v1 the same type, action, reason and object reference whatever the note; for core/v1
 * the same object, reason and message) updates the Event already written with one strategic-merge PATCH
 * ({@code series.count} and {@code series.lastObservedTime}, or core/v1's {@code count} and {@code lastTimestamp}),
 * and a new POST of the Event with its count if the server no longer has it; repeats arriving while that Event's
 * previous write is still in flight are folded into one PATCH carrying the latest count
 * ({@code result="aggregated"}). Upstream's events.k8s.io/v1 broadcaster counts repeats in memory and writes the
 * series every 30 minutes; patching each repeat (folded while a write is in flight) shows the count at once for the
 * same bounded number of requests under load. Writes are asynchronous, up to {@value #MAX_IN_FLIGHT} at a time
 * (upstream writes each event from a pool of workers), so the writer keeps up with the binding cycles however long
 * one request takes; an Event is only patched after its create was answered.
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
  private final EventWireFormat format;
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
  private final Map<Object, Series> recent = new LinkedHashMap<>(256, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<Object, Series> eldest) {
      return size() > MAX_TRACKED;
    }
  };
  // confined to the writer thread: events taken while every write slot was busy, oldest first
  private final ArrayDeque<EventOccurrence> waiting = new ArrayDeque<>();
  // confined to the writer thread
  private int inFlight;

  public KubernetesEventRecorder(KubernetesClient client, String component) {
    this(client, component, new SimpleMeterRegistry());
  }

  /**
   * Asks {@code client}'s server whether it serves events.k8s.io/v1 (one discovery request, on this thread) and
   * writes that API's Events, else core/v1's; registers {@code berth_scheduler_events_total{profile,result}} in
   * {@code metrics}.
   */
  public KubernetesEventRecorder(KubernetesClient client, String component, MeterRegistry metrics) {
    this(client, component, metrics, EventApiDiscovery.servesEventsV1(client));
  }

  /** Writes events.k8s.io/v1 Events if {@code eventsV1}, else core/v1 Events, without asking the server. */
  KubernetesEventRecorder(KubernetesClient client, String component, MeterRegistry metrics, boolean eventsV1) {
    this(client, eventsV1 ? new EventsV1EventFormat(component, reportingInstance(component))
        : new CoreV1EventFormat(component), metrics);
  }

  private KubernetesEventRecorder(KubernetesClient client, EventWireFormat format, MeterRegistry metrics) {
    this(EventSink.over(client, format.path()), format, metrics, InstantSource.system(), CLOSE_TIMEOUT);
    LOG.info("{}: writing {} Events", format.component(), format.apiVersion());
  }

  KubernetesEventRecorder(EventSink sink, EventWireFormat format, MeterRegistry metrics, InstantSource clock,
      Duration closeTimeout) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.format = Objects.requireNonNull(format, "format");
    this.component = format.component();
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

  /** upstream's reportingInstance: the controller's name, a dash and the host name. */
  static String reportingInstance(String component) {
    return component + "-" + hostname();
  }

  /** The host name as Go's {@code os.Hostname} reads it on Linux (the kernel's), else as the JDK resolves it. */
  private static String hostname() {
    try {
      String kernel = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).strip();
      if (!kernel.isEmpty()) {
        return kernel;
      }
    } catch (java.io.IOException | RuntimeException e) {
      // not Linux, or no /proc: ask the JDK
    }
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "localhost";
    }
  }

  private static Counter counter(MeterRegistry metrics, String component, String result) {
    return Counter.builder("berth_scheduler_events").tag("profile", component).tag("result", result)
        .description("Events of the scheduler by outcome: written (each create or patch the"
            + " server accepted), aggregated (a repeat folded into a later patch), dropped (queue"
            + " full or not written at shutdown), failed (refused by the server or unreachable)")
        .register(metrics);
  }

  /** The answer to one write, handed back to the writer thread. */
  private record Answer(Series series, boolean create, int code, Throwable error) {}

  /** One Event written (or being written) and its repeats; confined to the writer thread. */
  private static final class Series {
    final EventOccurrence first;
    final String name;
    // occurrences recorded; the server has `sent` once the write in flight succeeds
    int count = 1;
    int sent;
    Instant last;
    boolean inFlight;
    // the create was refused: repeats start a new series
    boolean dead;

    Series(EventOccurrence first, String name) {
      this.first = first;
      this.name = name;
      this.last = first.at();
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
    inbox.add(new EventOccurrence(m.getNamespace(), m.getName(),
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
        } else if (next instanceof EventOccurrence p) {
          waiting.addLast(p);
        }
        // the close() wake-up carries nothing: the loop re-checks
        while (inFlight < MAX_IN_FLIGHT && !waiting.isEmpty()) {
          EventOccurrence p = waiting.pollFirst();
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

  private void record(EventOccurrence p) {
    Object key = format.seriesKey(p);
    Series s = recent.get(key);
    if (s != null && !s.dead && !finished(s, p.at())) {
      s.count++;
      s.last = p.at();
      if (s.inFlight) {
        aggregated.increment();
      } else {
        patch(s);
      }
      return;
    }
    s = new Series(p, p.name() + "." + Long.toHexString(nameNanos(p.at())));
    recent.put(key, s);
    create(s);
  }

  /** Whether the series has gone without a repeat for longer than the format keeps one open. */
  private boolean finished(Series s, Instant now) {
    return format.seriesIdle().map(idle -> s.last.plus(idle).isBefore(now)).orElse(false);
  }

  private long nameNanos(Instant at) {
    long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
    return lastNameNanos.updateAndGet(last -> Math.max(last + 1, nanos));
  }

  private void create(Series s) {
    String namespace = s.first.eventNamespace();
    String json = format.create(s.first, s.name, s.count, s.last);
    send(s, true, () -> sink.create(namespace, json));
  }

  private void patch(Series s) {
    String json = format.repeat(s.count, s.last);
    send(s, false, () -> sink.patch(s.first.eventNamespace(), s.name, json));
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
      LOG.warn("{}: could not record event {} for {}/{}: {}", component, s.first.reason(),
          s.first.eventNamespace(), s.first.name(), a.error != null ? String.valueOf(a.error)
              : "HTTP " + a.code);
    }
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
        ? t.getCause() : t;
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
