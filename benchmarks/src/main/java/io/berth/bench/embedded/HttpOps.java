package io.berth.bench.embedded;

import io.berth.embedded.server.Json;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Timed API calls over HTTP through a fabric8 client, the same code against any server (the embedded API server
 * or the fabric8 mock): creates, gets, binds and deletes of pods, from one thread or several sharing the client,
 * and lists of a namespace (whole, paginated, or as raw bytes through the JDK HTTP client to leave out fabric8's
 * deserialization). Every call checks its answer, so a benchmark cannot pass on failures. Stateless; each method
 * is called from one thread and starts and joins its own worker threads.
 */
final class HttpOps {

  /**
   * Samples of one measurement, the wall time it took, for a rate, and the CPU time of the calling threads
   * themselves (the client's own work in them: building and serializing requests, waiting; 0 when not measured).
   */
  record Timed(Latencies latencies, long wallNanos, long bytes, long callerCpuNanos) {

    Timed(Latencies latencies, long wallNanos) {
      this(latencies, wallNanos, 0, 0);
    }

    Timed(Latencies latencies, long wallNanos, long bytes) {
      this(latencies, wallNanos, bytes, 0);
    }

    double perSecond() {
      return latencies.count() / (wallNanos / 1e9);
    }
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private HttpOps() {
  }

  /** Creates the pods named {@code names}; the Pod models are built before the clock starts. */
  static Timed create(KubernetesClient client, String namespace, List<String> names, int threads) {
    // read-only once built; the workers start after it is complete (executor submission orders the writes first)
    Map<String, Pod> pods = new HashMap<>();
    names.forEach(name -> pods.put(name, BenchPods.pod(name)));
    return parallel(names, threads, name -> {
      Pod created = client.pods().inNamespace(namespace).resource(pods.get(name)).create();
      if (!name.equals(created.getMetadata().getName())) {
        throw new IllegalStateException("created " + created.getMetadata().getName() + " instead of " + name);
      }
    });
  }

  /**
   * Creates each pod with a JSON POST through the JDK HTTP client (bodies serialized beforehand): the server's cost
   * and the round trip without fabric8's request and response handling.
   */
  static Timed createRaw(String baseUrl, String namespace, List<String> names) {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    URI uri = URI.create(baseUrl.replaceAll("/$", "") + "/api/v1/namespaces/" + namespace + "/pods");
    Map<String, byte[]> bodies = new HashMap<>();
    for (String name : names) {
      bodies.put(name, Json.bytes(BenchPods.tree(name)));
    }
    return parallel(names, 1, name -> {
      HttpRequest request = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get(name))).build();
      int status = send(http, request).statusCode();
      if (status != 201) {
        throw new IllegalStateException("create of " + name + " answered " + status);
      }
    });
  }

  private static HttpResponse<byte[]> send(HttpClient http, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static Timed get(KubernetesClient client, String namespace, List<String> names, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> picks = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      picks.add(names.get(random.nextInt(names.size())));
    }
    return parallel(picks, 1, name -> {
      if (client.pods().inNamespace(namespace).withName(name).get() == null) {
        throw new IllegalStateException("pod " + name + " is missing");
      }
    });
  }

  /**
   * Binds the {@code i}-th pod to {@code nodeFor.apply(i)} with a v1 Binding (POST .../bindings, as kube-scheduler);
   * the Binding models are built before the clock starts.
   */
  static Timed bind(KubernetesClient client, String namespace, List<String> names, int threads,
      IntFunction<String> nodeFor) {
    // read-only once built, as in create
    Map<String, Binding> bindings = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      bindings.put(names.get(i), BenchPods.binding(names.get(i), nodeFor.apply(i)));
    }
    return parallel(names, threads,
        name -> client.bindings().inNamespace(namespace).resource(bindings.get(name)).create());
  }

  static Timed delete(KubernetesClient client, String namespace, List<String> names) {
    return parallel(names, 1, name -> {
      if (client.pods().inNamespace(namespace).withName(name).delete().isEmpty()) {
        throw new IllegalStateException("pod " + name + " was not deleted");
      }
    });
  }

  /** {@code repeats} lists of the whole namespace, each expected to hold {@code expected} pods. */
  static Timed list(KubernetesClient client, String namespace, int repeats, int expected) {
    return repeat(repeats, () -> {
      PodList list = client.pods().inNamespace(namespace).list();
      check(list.getItems().size(), expected);
    });
  }

  /** {@code repeats} walks of the namespace in pages of {@code limit}; a sample is one whole walk. */
  static Timed listPaged(KubernetesClient client, String namespace, long limit, int repeats, int expected) {
    return repeat(repeats, () -> {
      int seen = 0;
      String token = null;
      do {
        PodList page = client.pods().inNamespace(namespace)
            .list(new ListOptionsBuilder().withLimit(limit).withContinue(token).build());
        seen += page.getItems().size();
        token = page.getMetadata().getContinue();
      } while (token != null && !token.isEmpty());
      check(seen, expected);
    });
  }

  /** {@code repeats} lists of the namespace read as bytes (the server's cost and the transfer, no model). */
  static Timed listRaw(String baseUrl, String namespace, int repeats) {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl.replaceAll("/$", "") + "/api/v1/namespaces/"
        + namespace + "/pods")).GET().build();
    long[] bytes = new long[1];
    Timed timed = repeat(repeats, () -> {
      HttpResponse<byte[]> response = send(http, request);
      if (response.statusCode() != 200) {
        throw new IllegalStateException("list answered " + response.statusCode());
      }
      bytes[0] = response.body().length;
    });
    return new Timed(timed.latencies(), timed.wallNanos(), bytes[0]);
  }

  private static void check(int seen, int expected) {
    if (seen != expected) {
      throw new IllegalStateException("listed " + seen + " pods, expected " + expected);
    }
  }

  private static Timed repeat(int repeats, Runnable call) {
    Latencies latencies = new Latencies();
    long start = System.nanoTime();
    for (int i = 0; i < repeats; i++) {
      long t0 = System.nanoTime();
      call.run();
      latencies.add(System.nanoTime() - t0);
    }
    return new Timed(latencies, System.nanoTime() - start);
  }

  /** Runs {@code op} once per item from {@code threads} threads (contiguous slices), timing every call. */
  static Timed parallel(List<String> items, int threads, Consumer<String> op) {
    if (threads == 1) {
      Latencies latencies = new Latencies();
      long start = System.nanoTime();
      for (String item : items) {
        long t0 = System.nanoTime();
        op.accept(item);
        latencies.add(System.nanoTime() - t0);
      }
      return new Timed(latencies, System.nanoTime() - start);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Latencies>> parts = new ArrayList<>();
      java.util.concurrent.atomic.AtomicLong cpu = new java.util.concurrent.atomic.AtomicLong();
      int slice = (items.size() + threads - 1) / threads;
      for (int t = 0; t < threads; t++) {
        List<String> mine = items.subList(Math.min(items.size(), t * slice),
            Math.min(items.size(), (t + 1) * slice));
        parts.add(pool.submit(() -> {
          Latencies latencies = new Latencies();
          go.await();
          long cpu0 = THREADS.getCurrentThreadCpuTime();
          for (String item : mine) {
            long t0 = System.nanoTime();
            op.accept(item);
            latencies.add(System.nanoTime() - t0);
          }
          cpu.addAndGet(THREADS.getCurrentThreadCpuTime() - cpu0);
          return latencies;
        }));
      }
      long start = System.nanoTime();
      go.countDown();
      Latencies all = new Latencies();
      for (Future<Latencies> part : parts) {
        all.merge(part.get());
      }
      return new Timed(all, System.nanoTime() - start, 0, cpu.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a benchmark call failed", e.getCause());
    } finally {
      pool.shutdownNow();
      try {
        // gone before the caller's next thread-CPU snapshot: their CPU is in callerCpuNanos only
        pool.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Names {@code prefix-000000} ... for indices {@code [from, to)}. */
  static List<String> names(String prefix, int from, int to) {
    List<String> out = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      out.add(BenchPods.name(prefix, i));
    }
    return out;
  }
}
