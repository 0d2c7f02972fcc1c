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
 * <p>Run: {@code java -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar
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
    JulBridge.install();
    run(Math.max(1_000, pods / 4), watchers, threads);
    LOG.info("| run | pods | creates/s | all watchers caught up after | create mean / p99 | CPU ms per 1,000 creates"
        + " | of which server threads |");
    LOG.info("|---|---:|---:|---:|---:|---:|---:|");
    for (int r = 1; r <= runs; r++) {
      System.gc();
      Result result = run(pods, watchers, threads);
      LOG.info(String.format("| %d | %,d | %,.0f | %.2f s | %s | %.0f | %.0f |", r, pods, result.createsPerSecond(),
          result.caughtUpSeconds(), result.latency(), result.cpuMsPerThousand(), result.serverCpuMsPerThousand()));
    }
  }

  /** One measured run. */
  record Result(double createsPerSecond, double caughtUpSeconds, String latency, double cpuMsPerThousand,
      double serverCpuMsPerThousand) {
  }

  static Result run(int pods, int watchers, int threads) throws Exception {
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
      long javaThreads = created.callerCpuNanos() + threads1.byNameSince(threads0).stream().mapToLong(Map.Entry::getValue).sum();
      split.append(String.format("%n  %-55s %7.0f", "(process minus Java threads: GC, JIT, VM)",
          (cpu - javaThreads) / 1e6 / (pods / 1_000.0)));
      LOG.info("{}", split);
      watches.forEach(Watch::close);
      informers.forEach(SharedInformerFactory::shutdown);
      watchClients.forEach(KubernetesClient::close);
      client.close();
      return new Result(created.perSecond(), caughtUpNanos / 1e9, created.latencies().meanAndP99(),
          cpu / 1e6 / (pods / 1_000.0), serverCpu / 1e6 / (pods / 1_000.0));
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
