package io.berth.bench.scheduler;

import io.berth.framework.runtime.StatusOnlyCall;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The end-to-end runs' load generator: creates a list of pods in one namespace from a few client threads, each thread
 * taking every n-th pod in order, through one of two client paths ({@link Mode}). Both send the same JSON to the same
 * collection through the same fabric8 client's HTTP client (its interceptors, rate limiter and retries); they differ
 * only in the client-side work around each request.
 *
 * <p>Why {@link Mode#RAW} is the default: upstream scheduler_perf's load generator is client-go in the test process,
 * which writes each pod as protobuf and reads back only what it needs; fabric8's {@code create()} serializes the pod
 * through its generic serializer, builds the URL through its DSL and decodes the whole answered Pod, about 0.5–1 ms of
 * CPU per pod on this machine that would be charged to the scheduler's figure. {@link Mode#FABRIC8} keeps the earlier
 * rows' load generator ({@code -Dberth.bench.creates=fabric8}).
 *
 * <p>Not thread-safe: {@link #run} once, then {@link #close}, from one thread. The creator threads ({@code pool-N-thread-N},
 * the harness's "creators" group) live until {@link #close}, so that a CPU split taken after the run still counts them.
 */
final class PodCreators implements AutoCloseable {

  /** How each pod is sent. */
  enum Mode {
    /** fabric8's DSL: {@code client.pods().inNamespace(ns).resource(pod).create()}. */
    FABRIC8,
    /**
     * The pod's JSON (fabric8's serialization of the same object) encoded before the clock starts, POSTed through the
     * client's HTTP client; only the status code is read ({@link StatusOnlyCall}).
     */
    RAW;

    /** {@code -Dberth.bench.creates}: {@code raw} (the default) or {@code fabric8}. */
    static Mode fromSystemProperty() {
      String value = System.getProperty("berth.bench.creates", "raw");
      return Mode.valueOf(value.toUpperCase(Locale.ROOT));
    }
  }

  private final KubernetesClient client;
  private final Mode mode;
  private final String namespace;
  private final List<Pod> pods;
  // RAW only: each pod's JSON, encoded once before the run
  private final List<byte[]> bodies;
  private final URI collection;
  // set by run, shut down by close
  private ExecutorService creators;

  /** Prepares {@code pods} (all in {@code namespace}) for {@link #run}; in RAW mode their bodies are encoded now. */
  PodCreators(KubernetesClient client, Mode mode, String namespace, List<Pod> pods) {
    this.client = client;
    this.mode = mode;
    this.namespace = namespace;
    this.pods = List.copyOf(pods);
    this.bodies = new ArrayList<>(mode == Mode.RAW ? pods.size() : 0);
    if (mode == Mode.RAW) {
      for (Pod pod : pods) {
        if (!namespace.equals(pod.getMetadata().getNamespace())) {
          throw new IllegalArgumentException("pod " + pod.getMetadata().getName() + " is not in " + namespace);
        }
        bodies.add(client.getKubernetesSerialization().asJson(pod).getBytes(StandardCharsets.UTF_8));
      }
    }
    this.collection = URI.create(client.getMasterUrl().toString().replaceAll("/$", "")
        + "/api/v1/namespaces/" + namespace + "/pods");
  }

  Mode mode() {
    return mode;
  }

  /**
   * Creates every pod from {@code threads} threads (thread t takes pods t, t + threads, ...) and returns when all are
   * created. A refused create (anything but 2xx) fails the run with the server's answer.
   */
  void run(int threads) throws InterruptedException, ExecutionException {
    if (creators != null) {
      throw new IllegalStateException("already run");
    }
    creators = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>(threads);
    for (int t = 0; t < threads; t++) {
      int first = t;
      futures.add(creators.submit(() -> {
        for (int i = first; i < pods.size(); i += threads) {
          create(i);
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
  }

  /** Stops the creator threads (waits up to 10 s for them). */
  @Override
  public void close() throws InterruptedException {
    if (creators != null) {
      creators.shutdown();
      creators.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private void create(int i) throws InterruptedException, ExecutionException {
    if (mode == Mode.FABRIC8) {
      client.pods().inNamespace(namespace).resource(pods.get(i)).create();
      return;
    }
    HttpClient http = client.getHttpClient();
    StatusOnlyCall.Answer answer = StatusOnlyCall.send(http, http.newHttpRequestBuilder().uri(collection)
        .post("application/json", bodies.get(i)).build()).get();
    if (!answer.successful()) {
      throw new IllegalStateException("create of " + pods.get(i).getMetadata().getName() + " refused: HTTP "
          + answer.code() + ": " + answer.body());
    }
  }
}
