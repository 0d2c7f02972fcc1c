package io.berth.bench.scheduler;

import io.berth.framework.FeatureGates;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.explain.ExplainStore;
import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scheduler_perf-style throughput harness: the real queue, cache, snapshot and default-profile
 * plugins in-process, fed nodes and pods through the scheduler's informer handlers, with a binder
 * that confirms each binding back through the pod handler as the watch event would. Measures
 * pods/s as the average of 1 s samples (as scheduler_perf's throughput collector) over the
 * measured pods, and p50/p99 per-pod latency from the start of its scheduling cycle to bound.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.SchedulerThroughputRun
 * [workload] [nodes] [initPods] [measuredPods] [runs]}; defaults SchedulingBasic 5000 1000 10000 3.
 * The scheduler's pod writes (preemption's status patches and deletions, nominations) go to
 * {@link HarnessPodApi}, which applies them to the harness's pods at once and sends the watch
 * events back; {@code -Dberth.featureGates=...} sets the feature gates, {@code -Dberth.parallelism}
 * the parallelism (16).
 */
public final class SchedulerThroughputRun {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerThroughputRun.class);

  /** The figures of one run. */
  record Result(String workload, double avgPodsPerSecond, double overallPodsPerSecond,
      double p50Millis, double p99Millis, double sliP99Millis, int samples, long batchHits) {}

  /** Name prefix of the measured pods. */
  static final String MEASURED = "measured";

  private SchedulerThroughputRun() {}

  public static void main(String[] args) throws Exception {
    String workload = args.length > 0 ? args[0] : "SchedulingBasic";
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    int init = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    int measured = args.length > 3 ? Integer.parseInt(args[3]) : 10000;
    int runs = args.length > 4 ? Integer.parseInt(args[4]) : 3;
    List<Result> results = new ArrayList<>();
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    for (int r = 0; r < runs; r++) {
      long cpu0 = os.getProcessCpuTime();
      CompilerThreadsCpu.Sample jit0 = CompilerThreadsCpu.now();
      Result res = run(PerfWorkload.named(workload, nodes, init, measured));
      results.add(res);
      // the whole JVM's user+system time over the run (nodes, init and measured pods, GC, JIT):
      // far less disturbed than pods/s by other work on the machine
      LOG.info("run {}: {}, process CPU {} ms per pod (of which JIT compiler threads {})", r + 1, format(res),
          String.format("%.3f", (os.getProcessCpuTime() - cpu0) / 1e6 / (init + measured)),
          CompilerThreadsCpu.now().minus(jit0).perPod(init + measured));
    }
    StringBuilder table = new StringBuilder("\n| run | workload | nodes | pods (init+measured) |"
        + " pods/s (avg of 1 s samples) | pods/s (overall) | p50 ms | p99 ms |"
        + " p99 ms first attempt to bound |\n"
        + "|---|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < results.size(); r++) {
      Result x = results.get(r);
      table.append(String.format("| %d | %s | %d | %d+%d | %.0f | %.0f | %.2f | %.2f | %.2f |%n",
          r + 1, x.workload(), nodes, init, measured, x.avgPodsPerSecond(),
          x.overallPodsPerSecond(), x.p50Millis(), x.p99Millis(), x.sliP99Millis()));
    }
    LOG.info("{}", table);
  }

  static String format(Result r) {
    return String.format("%s: %.0f pods/s (avg of %d samples), %.0f overall, p50 %.2f ms,"
        + " p99 %.2f ms, p99 first attempt to bound %.2f ms", r.workload(),
        r.avgPodsPerSecond(), r.samples(), r.overallPodsPerSecond(), r.p50Millis(),
        r.p99Millis(), r.sliP99Millis());
  }

  static Result run(PerfWorkload w) throws Exception {
    return run(w, FeatureGates.parse(System.getProperty("berth.featureGates", "")));
  }

  /** One run of {@code w} with the given feature gates. */
  static Result run(PerfWorkload w, FeatureGates gates) throws Exception {
    return run(w, gates, QuotaSetup.NONE, Boolean.getBoolean("berth.explain"));
  }

  /**
   * How a run spreads its pods over namespaces and, when {@code quotas} is not empty, guards them with
   * CapacityScheduling over those ElasticQuotas (given in memory: the harness has no API server).
   */
  record QuotaSetup(int namespaces, List<io.berth.plugins.capacityscheduling.ElasticQuota> quotas) {
    static final QuotaSetup NONE = new QuotaSetup(1, List.of());

    String namespace(int i) {
      return namespaces <= 1 ? "perf" : "perf-" + (i % namespaces);
    }
  }

  /** One run of {@code w} with the given feature gates and namespaces/quotas. */
  static Result run(PerfWorkload w, FeatureGates gates, QuotaSetup setup) throws Exception {
    return run(w, gates, setup, Boolean.getBoolean("berth.explain"));
  }

  /** One run of {@code w} with the given feature gates; {@code explain} as below. */
  static Result run(PerfWorkload w, FeatureGates gates, boolean explain) throws Exception {
    return run(w, gates, QuotaSetup.NONE, explain);
  }

  /**
   * One run of {@code w} with the given feature gates and namespaces/quotas; {@code explain} records every attempt
   * as the daemon does by default ({@link ExplainStore#withDefaults()}), else nothing is recorded.
   */
  static Result run(PerfWorkload w, FeatureGates gates, QuotaSetup setup, boolean explain) throws Exception {
    Map<String, Pod> current = new ConcurrentHashMap<>();
    AtomicInteger bound = new AtomicInteger();
    AtomicInteger measuredBound = new AtomicInteger();
    AtomicReference<SchedulerAssembly> ref = new AtomicReference<>();
    long[] measuredLatency = new long[w.measuredPods()];
    long[] measuredSli = new long[w.measuredPods()];
    AtomicInteger measuredIndex = new AtomicInteger();
    HarnessClock clock = new HarnessClock();
    HarnessBinder binder = new HarnessBinder((pod, latency) -> {
      Pod old = current.put(key(pod), pod);
      ref.get().podHandler().onUpdate(old != null ? old : HarnessBinder.unbound(pod), pod);
      long sli = clock.sinceFirstAttempt(pod);
      if (pod.getMetadata().getName().startsWith(MEASURED)) {
        int i = measuredIndex.getAndIncrement();
        if (i < measuredLatency.length) {
          measuredLatency[i] = latency;
          measuredSli[i] = sli;
        }
        measuredBound.incrementAndGet();
      }
      bound.incrementAndGet();
    });
    HarnessPodApi podApi = new HarnessPodApi(current, () -> ref.get().podHandler());
    Registry registry = new Registry();
    Registry inTree = InTreeRegistry.create();
    String capacity = io.berth.plugins.capacityscheduling.CapacityScheduling.NAME;
    for (String name : inTree.names()) {
      if (!name.equals(capacity) || setup.quotas().isEmpty()) {
        registry.register(name, inTree.get(name).orElseThrow());
      }
    }
    if (!setup.quotas().isEmpty()) {
      registry.register(capacity, (args, handle) ->
          io.berth.plugins.capacityscheduling.CapacityScheduling.withQuotas(args, handle, setup.quotas()));
    }
    registry.register(HarnessBinder.NAME, (args, handle) -> binder)
        .register(HarnessClock.NAME, (args, handle) -> clock);
    String quotaPlugins = setup.quotas().isEmpty() ? "" : ", {name: " + capacity + "}";
    String quotaDisabled = setup.quotas().isEmpty() ? "" : ", {name: DefaultPreemption}";
    SchedulerConfiguration config = SchedulerConfigLoader.load(String.join("\n",
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "parallelism: " + Integer.getInteger("berth.parallelism", 16),
        "profiles:",
        "- schedulerName: default-scheduler",
        "  plugins:",
        "    preFilter:",
        "      enabled: [{name: " + HarnessClock.NAME + "}]",
        "    multiPoint:",
        "      enabled: [{name: " + HarnessBinder.NAME + "}" + quotaPlugins + "]",
        "      disabled: [{name: DefaultBinder}" + quotaDisabled + "]",
        w.defaultSpreading() ? "" : String.join("\n",
            "  pluginConfig:",
            "  - name: PodTopologySpread",
            "    args: {defaultingType: List}")), registry);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    SchedulerAssembly assembly = SchedulerAssembly.builder(config, registry)
        .informerPod(p -> Optional.ofNullable(current.get(key(p))))
        .podApi(podApi)
        .featureGates(gates)
        .listers(new HarnessListers(w.objects()))
        .meterRegistry(meters)
        .explainStore(explain ? ExplainStore.withDefaults() : new ExplainStore(0, 1))
        .build();
    ref.set(assembly);
    ScheduledExecutorService churn = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "harness-churn");
      t.setDaemon(true);
      return t;
    });
    try {
      assembly.start();
      for (int i = 0; i < w.nodes(); i++) {
        assembly.nodeHandler().onAdd(PerfObjects.node("node-" + i, w.zoneOf().apply(i)), true);
      }
      addPods(assembly, current, "init", w.initPods(), w, setup);
      if (!w.initBound()) {
        awaitBound(bound, w.initPods(), Duration.ofMinutes(10));
      }
      // build the measured pods first: creating objects is the client's cost, not the scheduler's
      List<Pod> measuredPods = buildPods(MEASURED, w.measuredPods(), w.measuredPod(), setup);
      List<Integer> samples = new ArrayList<>();
      long cpu0 = schedulingThreadsCpuNanos();
      CompilerThreadsCpu.Sample jit0 = CompilerThreadsCpu.now();
      ProcThreadsCpu.Sample threads0 = ProcThreadsCpu.now();
      long t0 = System.nanoTime();
      Thread sampler = new Thread(() -> {
        int last = measuredBound.get();
        long next = System.nanoTime() + 1_000_000_000L;
        while (!Thread.currentThread().isInterrupted()) {
          long sleep = next - System.nanoTime();
          if (sleep > 0) {
            try {
              Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            } catch (InterruptedException e) {
              return;
            }
          }
          next += 1_000_000_000L;
          int now = measuredBound.get();
          synchronized (samples) {
            samples.add(now - last);
          }
          last = now;
        }
      }, "throughput-sampler");
      sampler.setDaemon(true);
      sampler.start();
      AtomicInteger churned = new AtomicInteger();
      if (w.churnPod() != null) {
        long every = w.churnInterval().toNanos();
        churn.scheduleAtFixedRate(() -> {
          Pod pod = PerfObjects.pod("perf", "churn-" + churned.getAndIncrement(), w.churnPod());
          current.put(key(pod), pod);
          assembly.podHandler().onAdd(pod, false);
        }, 0, every, TimeUnit.NANOSECONDS);
      }
      for (Pod pod : measuredPods) {
        current.put(key(pod), pod);
        assembly.podHandler().onAdd(pod, false);
      }
      awaitBound(measuredBound, w.measuredPods(), Duration.ofMinutes(10));
      long elapsed = System.nanoTime() - t0;
      // the scheduling loop's and its parallelizer's CPU over the measured pods: what the hot
      // path costs, apart from the harness, GC, JIT and periodic work that a slow (loaded) run
      // accumulates
      LOG.info("{}: scheduling threads CPU {} ms per measured pod", w.name(),
          String.format("%.3f", (schedulingThreadsCpuNanos() - cpu0) / 1e6 / w.measuredPods()));
      // the JIT's share of the same window: the cold run's warm-up cost, robust under load
      LOG.info("{}: JIT compiler threads CPU {} (measured pods)", w.name(),
          CompilerThreadsCpu.now().minus(jit0).perPod(w.measuredPods()));
      // every thread of the process over the same window, VM threads included: what competes with the loop
      LOG.info("{}: threads CPU (measured pods) {}", w.name(),
          ProcThreadsCpu.now().minus(threads0).perPod(w.measuredPods()));
      churn.shutdownNow();
      sampler.interrupt();
      sampler.join();
      List<Integer> full;
      synchronized (samples) {
        full = new ArrayList<>(samples);
      }
      // the 1 s samples themselves: a cold run's warm-up shows in its first seconds
      LOG.info("{}: pods bound per 1 s sample {}", w.name(), full);
      double avg = full.isEmpty() ? w.measuredPods() / (elapsed / 1e9)
          : full.stream().mapToInt(Integer::intValue).average().orElse(0);
      int n = Math.min(measuredIndex.get(), measuredLatency.length);
      long[] lat = Arrays.copyOf(measuredLatency, n);
      long[] sli = Arrays.copyOf(measuredSli, n);
      Arrays.sort(lat);
      Arrays.sort(sli);
      if (podApi.deletions() > 0 || churned.get() > 0) {
        LOG.info("{}: {} preemptors created by churn, {} victims deleted, {} status patches",
            w.name(), churned.get(), podApi.deletions(), podApi.patches());
      }
      for (Timer t : meters.find("scheduler.framework.extension.point.duration").timers()) {
        LOG.debug("{}: extension point {} status={}: {} taking {} ms in all", w.name(),
            t.getId().getTag("extension_point"), t.getId().getTag("status"), t.count(),
            String.format("%.0f", t.totalTime(TimeUnit.MILLISECONDS)));
      }
      for (Timer t : meters.find("scheduler.scheduling.attempt.duration").timers()) {
        LOG.info("{}: attempts result={}: {} taking {} ms in all (mean {} ms)", w.name(),
            t.getId().getTag("result"), t.count(),
            String.format("%.0f", t.totalTime(TimeUnit.MILLISECONDS)),
            String.format("%.2f", t.mean(TimeUnit.MILLISECONDS)));
      }
      long hits = 0;
      for (io.micrometer.core.instrument.Counter c : meters.find("scheduler.batch.attempts")
          .counters()) {
        LOG.info("{}: batch attempts result={}: {}", w.name(), c.getId().getTag("result"),
            (long) c.count());
        if ("hint_used".equals(c.getId().getTag("result"))) {
          hits += (long) c.count();
        }
      }
      for (io.micrometer.core.instrument.Counter c : meters.find("scheduler.batch.cache.flushed")
          .counters()) {
        LOG.info("{}: batch cache flushed reason={}: {}", w.name(), c.getId().getTag("reason"),
            (long) c.count());
      }
      return new Result(w.name(), avg, w.measuredPods() / (elapsed / 1e9), percentile(lat, 0.50),
          percentile(lat, 0.99), percentile(sli, 0.99), full.size(), hits);
    } finally {
      churn.shutdownNow();
      assembly.stop(Duration.ofSeconds(10));
      podApi.close();
    }
  }

  private static void addPods(SchedulerAssembly assembly, Map<String, Pod> current, String prefix,
      int count, PerfWorkload w, QuotaSetup setup) {
    List<Pod> pods = buildPods(prefix, count, w.initPod(), setup);
    for (int i = 0; i < pods.size(); i++) {
      Pod pod = pods.get(i);
      if (w.initBound()) {
        // already running: bound round-robin, as a cluster stood up with them
        pod.getSpec().setNodeName("node-" + (i % w.nodes()));
        pod.getStatus().setPhase("Running");
      }
      current.put(key(pod), pod);
      assembly.podHandler().onAdd(pod, false);
    }
  }

  private static List<Pod> buildPods(String prefix, int count,
      java.util.function.UnaryOperator<io.fabric8.kubernetes.api.model.PodBuilder> shape, QuotaSetup setup) {
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pods.add(PerfObjects.pod(setup.namespace(i), prefix + "-" + i, shape));
    }
    return pods;
  }

  private static void awaitBound(AtomicInteger bound, int target, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (bound.get() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + bound.get() + " of " + target + " pods bound");
      }
      Thread.sleep(5);
    }
  }

  /** CPU time of the threads named scheduler-loop and scheduler-parallelizer-*, summed. */
  static long schedulingThreadsCpuNanos() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (t != null && (t.getThreadName().equals("scheduler-loop")
          || t.getThreadName().startsWith("scheduler-parallelizer-"))) {
        long c = mx.getThreadCpuTime(t.getThreadId());
        sum += Math.max(0, c);
      }
    }
    return sum;
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int idx = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(idx, sorted.length - 1))] / 1e6;
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }
}
