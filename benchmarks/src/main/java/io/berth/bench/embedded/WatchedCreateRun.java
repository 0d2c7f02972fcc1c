package io.berth.bench.embedded;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.JulBridge;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.impl.VertxThread;
import io.vertx.core.internal.VertxBootstrap;
import io.vertx.core.spi.VertxThreadFactory;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pod creates over HTTP with watchers attached: {@code threads} client threads (default 4) create {@code pods}
 * pods (default 20,000) in one namespace of a fresh embedded cluster while {@code watchers} fabric8 watches
 * (default 3, each on its own client, as separate informers would be) receive every ADDED event. Reports creates/s
 * (first create to last create answered), the time until every watcher has seen every pod, mean and p99 create
 * latency, and the process CPU time per 1,000 creates (client, server and watchers together: one JVM) with the
 * part of it used by the embedded API server's own threads ({@link ThreadCpu}; JVM-wide work such as garbage
 * collection and compilation counts only in the total), and that CPU by thread name. With
 * {@code -Dberth.bench.watchers=informer} the watchers are Berth informers ({@link SharedInformerFactory}: list,
 * then watch over {@code WebSocketWatchStream}, each event through the DeltaFIFO to a handler) instead of fabric8
 * {@code watch()} calls, as Berth's own daemons watch. A warm-up
 * run at a quarter of the size comes first and is discarded; then {@code runs} (default 3) measured runs.
 *
 * <p>Clients ({@code -Dberth.bench.client}): {@code fabric8} (the default, as above: fabric8 {@code create()} calls
 * from {@code threads} threads sharing one client, each answer decoded into a {@code Pod}); {@code http}, the way a
 * load generator talks to a server ({@link HttpCreators}: {@code threads} streams of compact JSON POSTs over
 * keep-alive connections of one Vert.x HTTP client, each answer's status and resourceVersion read;
 * {@link HttpWatchStream}: the watchers are plain HTTP watch streams that read each event's type and
 * resourceVersion and check their order); or {@code both}, each warm-up and each measured run once with fabric8 and
 * once over plain HTTP, one after the other on fresh clusters in the same JVM. The table's {@code client} column
 * says which is which. The plain HTTP clients' Vert.x threads are named {@code bench-http-...}.
 *
 * <p>Run: {@code java -XX:+UseParallelGC [-Dberth.bench.client=fabric8|http|both] -cp benchmarks/target/benchmarks.jar
 * io.berth.bench.embedded.WatchedCreateRun [pods [runs [watchers [threads]]]]}. Used once, from one thread.
 */
public final class WatchedCreateRun {

  private static final Logger LOG = LoggerFactory.getLogger(WatchedCreateRun.class);
  /** Whether the watchers are Berth informers ({@code -Dberth.bench.watchers=informer}) instead of fabric8 watches. */
  private static final boolean INFORMER_WATCHERS = "informer".equals(System.getProperty("berth.bench.watchers"));

  private WatchedCreateRun() {
  }

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int watchers = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 4;
    String mode = System.getProperty("berth.bench.client", "fabric8");
    List<String> clients = switch (mode) {
      case "fabric8" -> List.of("fabric8");
      case "http" -> List.of("http");
      case "both" -> List.of("fabric8", "http");
      default -> throw new IllegalArgumentException("-Dberth.bench.client must be fabric8, http or both, not " + mode);
    };
    JulBridge.install();
    for (String c : clients) {
      run(c, Math.max(1_000, pods / 4), watchers, threads);
    }
    LOG.info("| run | client | pods | creates/s | all watchers caught up after | create mean / p99"
        + " | CPU ms per 1,000 creates | of which server threads |");
    LOG.info("|---|---|---:|---:|---:|---:|---:|---:|");
    List<String> rows = new ArrayList<>();
    for (int r = 1; r <= runs; r++) {
      for (String c : clients) {
        System.gc();
        Result result = run(c, pods, watchers, threads);
        String row = String.format("| %d | %s | %,d | %,.0f | %.2f s | %s | %.0f | %.0f |", r, label(c), pods,
            result.createsPerSecond(), result.caughtUpSeconds(), result.latency(), result.cpuMsPerThousand(),
            result.serverCpuMsPerThousand());
        rows.add(row);
        LOG.info(row);
      }
    }
    LOG.info("all runs:\n{}", String.join("\n", rows));
  }

  private static String label(String client) {
    return client.equals("http") ? "plain HTTP (Vert.x, compact JSON)" : INFORMER_WATCHERS
        ? "fabric8 creates, informer watchers" : "fabric8";
  }

  static Result run(String client, int pods, int watchers, int threads) throws Exception {
    return client.equals("http") ? runHttp(pods, watchers, threads) : runFabric8(pods, watchers, threads);
  }

  /** One measured run. */
  record Result(double createsPerSecond, double caughtUpSeconds, String latency, double cpuMsPerThousand,
      double serverCpuMsPerThousand) {
  }

  /** One run with fabric8 clients: {@code watchers} watches (or informers), then {@code threads} creating threads. */
  static Result runFabric8(int pods, int watchers, int threads) throws Exception {
    String ns = "watched";
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      KubernetesClient client = cluster.newClient();
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      List<KubernetesClient> watchClients = new ArrayList<>();
      List<Watch> watches = new ArrayList<>();
      CountDownLatch caughtUp = new CountDownLatch(watchers);
      List<SharedInformerFactory> informers = new ArrayList<>();
      for (int w = 0; w < watchers; w++) {
        KubernetesClient wc = cluster.newClient();
        watchClients.add(wc);
        AtomicInteger added = new AtomicInteger();
        if (INFORMER_WATCHERS) {
          SharedInformerFactory factory = new SharedInformerFactory(wc);
          factory.informerFor(Pod.class, ns).addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod, boolean isInInitialList) {
              if (added.incrementAndGet() == pods) {
                caughtUp.countDown();
              }
            }
          });
          factory.start();
          factory.waitForCacheSync(Duration.ofMinutes(1));
          informers.add(factory);
          continue;
        }
        watches.add(wc.pods().inNamespace(ns).watch(new Watcher<Pod>() {
          @Override
          public void eventReceived(Action action, Pod pod) {
            if (action == Action.ADDED && added.incrementAndGet() == pods) {
              caughtUp.countDown();
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            if (cause != null) {
              LOG.warn("watch closed: {}", cause.getMessage());
            }
          }
        }));
      }
      List<String> names = new ArrayList<>(pods);
      for (int i = 0; i < pods; i++) {
        names.add(BenchPods.name("p", i));
      }
      ThreadCpu threads0 = ThreadCpu.snapshot();
      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      HttpOps.Timed created = HttpOps.create(client, ns, names, threads);
      if (!caughtUp.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the watchers did not see every pod");
      }
      long caughtUpNanos = System.nanoTime() - t0;
      Result result = account(threads0, cpu0, created, caughtUpNanos, pods);
      watches.forEach(Watch::close);
      informers.forEach(SharedInformerFactory::shutdown);
      watchClients.forEach(KubernetesClient::close);
      client.close();
      return result;
    }
  }

  /**
   * One run with the plain HTTP clients: {@code watchers} {@link HttpWatchStream}s opened from the namespace's list
   * resourceVersion, then {@link HttpCreators} with {@code threads} streams. The clients' Vert.x (one event loop per
   * core, threads named {@code bench-http-...}) is started before and closed after the measured window.
   */
  static Result runHttp(int pods, int watchers, int threads) throws Exception {
    String ns = "watched";
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      String fromRv;
      try (KubernetesClient client = cluster.newClient()) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
            .create();
        fromRv = client.pods().inNamespace(ns).list().getMetadata().getResourceVersion();
      }
      Vertx vertx = benchVertx();
      try {
        HttpClient watchHttp = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(Math.max(1, watchers)));
        HttpClient createHttp = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
            .setTcpNoDelay(true), new PoolOptions().setHttp1MaxSize(threads));
        CountDownLatch caughtUp = new CountDownLatch(watchers);
        List<HttpWatchStream> streams = new ArrayList<>();
        for (int w = 0; w < watchers; w++) {
          streams.add(HttpWatchStream.open(watchHttp, cluster.port(), ns, fromRv, pods, caughtUp));
        }
        List<String> names = new ArrayList<>(pods);
        for (int i = 0; i < pods; i++) {
          names.add(BenchPods.name("p", i));
        }
        ThreadCpu threads0 = ThreadCpu.snapshot();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        HttpOps.Timed created = HttpCreators.create(vertx, createHttp, cluster.port(), ns, names, threads);
        if (!caughtUp.await(10, TimeUnit.MINUTES)) {
          throw new IllegalStateException("the watchers did not see every pod");
        }
        long caughtUpNanos = System.nanoTime() - t0;
        Result result = account(threads0, cpu0, created, caughtUpNanos, pods);
        for (HttpWatchStream stream : streams) {
          if (stream.failure() != null) {
            throw new IllegalStateException("a watcher failed: " + stream.failure());
          }
          if (stream.added() != pods) {
            throw new IllegalStateException("a watcher saw " + stream.added() + " ADDED events of " + pods);
          }
        }
        streams.forEach(HttpWatchStream::close);
        return result;
      } finally {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** A Vert.x for the plain HTTP clients, its threads named {@code bench-http-...} for the CPU split. */
  private static Vertx benchVertx() {
    VertxThreadFactory named = new VertxThreadFactory() {
      @Override
      public VertxThread newVertxThread(Runnable target, String name, boolean worker, long maxExecTime,
          TimeUnit maxExecTimeUnit) {
        return new VertxThread(target, "bench-http-" + name, worker, maxExecTime, maxExecTimeUnit);
      }
    };
    return VertxBootstrap.create().options(new VertxOptions().setEventLoopPoolSize(
        Math.max(1, Runtime.getRuntime().availableProcessors()))).threadFactory(named)
        .transport(io.vertx.core.transport.Transport.NIO.implementation()).init().vertx();
  }

  /** The figures of a measured window that began at {@code threads0}/{@code cpu0} and ended now. */
  private static Result account(ThreadCpu threads0, long cpu0, HttpOps.Timed created, long caughtUpNanos,
      int pods) {
    long cpu = processCpuNanos() - cpu0;
    ThreadCpu threads1 = ThreadCpu.snapshot();
    long serverCpu = threads1.nanosSince(threads0, ThreadCpu.SERVER);
    StringBuilder split = new StringBuilder("thread CPU ms per 1,000 creates by thread name:");
    for (var e : threads1.byNameSince(threads0)) {
      if (e.getValue() * 1_000.0 / pods >= 1e6) {
        split.append(String.format("%n  %-55s %7.0f", e.getKey(), e.getValue() / 1e6 / (pods / 1_000.0)));
      }
    }
    split.append(String.format("%n  %-55s %7.0f", "the creating threads (ended since)",
        created.callerCpuNanos() / 1e6 / (pods / 1_000.0)));
    long javaThreads = created.callerCpuNanos()
        + threads1.byNameSince(threads0).stream().mapToLong(Map.Entry::getValue).sum();
    split.append(String.format("%n  %-55s %7.0f", "(process minus Java threads: GC, JIT, VM)",
        (cpu - javaThreads) / 1e6 / (pods / 1_000.0)));
    LOG.info("{}", split);
    return new Result(created.perSecond(), caughtUpNanos / 1e9, created.latencies().meanAndP99(),
        cpu / 1e6 / (pods / 1_000.0), serverCpu / 1e6 / (pods / 1_000.0));
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
