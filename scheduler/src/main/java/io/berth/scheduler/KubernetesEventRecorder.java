package io.berth.scheduler;

import io.berth.framework.EventRecorder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events for a scheduler profile ({@code source.component} = the scheduler name)
 * on one background thread, so the scheduling loop never waits on the API server. A repeat of the
 * same reason and message for the same object bumps {@code count} and {@code lastTimestamp} of the
 * existing Event instead of creating another, as the upstream event correlator does. Thread-safe:
 * callers only enqueue; the dedup map is confined to the writer thread. Events beyond a backlog of
 * 10,000 are dropped with a warning.
 */
public final class KubernetesEventRecorder implements EventRecorder, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorder.class);
  private static final int MAX_TRACKED = 4096;

  private final KubernetesClient client;
  private final String component;
  private final ExecutorService writer;
  private final AtomicLong dropped = new AtomicLong();
  // confined to the writer thread
  private final Map<String, Event> recent = new LinkedHashMap<>(256, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Event> eldest) {
      return size() > MAX_TRACKED;
    }
  };

  public KubernetesEventRecorder(KubernetesClient client, String component) {
    this.client = client;
    this.component = component;
    this.writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(10_000), r -> {
          Thread t = new Thread(r, "event-recorder-" + component);
          t.setDaemon(true);
          return t;
        });
  }

  @Override
  public void event(HasMetadata regarding, String type, String reason, String action,
      String message) {
    try {
      writer.execute(() -> write(regarding, type, reason, action, message));
    } catch (RejectedExecutionException e) {
      if (dropped.incrementAndGet() % 1000 == 1) {
        LOG.warn("event backlog full; dropped {} events so far", dropped.get());
      }
    }
  }

  private void write(HasMetadata regarding, String type, String reason, String action,
      String message) {
    String ns = regarding.getMetadata().getNamespace() == null ? "default"
        : regarding.getMetadata().getNamespace();
    String key = regarding.getMetadata().getUid() + "/" + reason + "/" + message;
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      Event previous = recent.get(key);
      if (previous != null) {
        int count = previous.getCount() == null ? 1 : previous.getCount();
        Event updated = client.v1().events().inNamespace(ns)
            .withName(previous.getMetadata().getName())
            .edit(e -> new EventBuilder(e).withCount(count + 1).withLastTimestamp(now).build());
        recent.put(key, updated);
        return;
      }
      Event event = new EventBuilder()
          .withNewMetadata()
          .withNamespace(ns)
          .withName(regarding.getMetadata().getName() + "." + Long.toHexString(System.nanoTime()))
          .endMetadata()
          .withNewInvolvedObject()
          .withApiVersion(regarding.getApiVersion() == null ? "v1" : regarding.getApiVersion())
          .withKind(regarding.getKind() == null ? "Pod" : regarding.getKind())
          .withNamespace(regarding.getMetadata().getNamespace())
          .withName(regarding.getMetadata().getName())
          .withUid(regarding.getMetadata().getUid())
          .withResourceVersion(regarding.getMetadata().getResourceVersion())
          .endInvolvedObject()
          .withType(type).withReason(reason).withAction(action).withMessage(message)
          .withNewSource().withComponent(component).endSource()
          .withReportingComponent(component)
          .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
          .build();
      recent.put(key, client.v1().events().inNamespace(ns).resource(event).create());
    } catch (KubernetesClientException e) {
      recent.remove(key);
      LOG.debug("could not record event {} for {}/{}: {}", reason, ns,
          regarding.getMetadata().getName(), e.getMessage());
    }
  }

  /** Stops the writer after the queued events are written (at most 5 s). */
  @Override
  public void close() {
    writer.shutdown();
    try {
      writer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
