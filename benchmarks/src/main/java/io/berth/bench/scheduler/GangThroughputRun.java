package io.berth.bench.scheduler;

import io.berth.framework.FeatureGates;
import io.berth.framework.ObjectLister;
import io.berth.framework.runtime.ListerProvider;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.coscheduling.Coscheduling;
import io.berth.plugins.coscheduling.PodGroup;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gang scheduling throughput, in process like {@link SchedulerThroughputRun}: the real queue,
 * cache, snapshot and default plugins plus Coscheduling (in place of PrioritySort), PodGroups from
 * an in-memory lister, the pods of {@code gangs} gangs of {@code size} pods (100m cpu, 500Mi,
 * {@code minMember = size}) fed through the pod handler gang by gang onto {@code nodes}
 * node-default nodes. Reports groups/s and pods/s over the whole run, the p50/p99 group latency
 * (the gang's last member added to its last member bound) and the scheduler's own
 * {@code scheduler_podgroup_scheduling_attempt_duration_seconds}: the count and mean time of group
 * scheduling cycles (member collection, Filter and Score of every member on the amended snapshot,
 * assume, Reserve and Permit; binding excluded), and the CPU time of the scheduling thread per
 * group and of the whole process per group (scheduling thread, Filter/Score workers, binding,
 * the harness itself and GC: what the wall-clock figures cost on a loaded machine).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.GangThroughputRun
 * [nodes] [runs] [gangs x size,...]}; defaults 1000 3 1000x3,50x64. Single-threaded driver; the
 * scheduler runs its own threads.
 */
public final class GangThroughputRun {
  private static final Logger LOG = LoggerFactory.getLogger(GangThroughputRun.class);
  private static final String NAMESPACE = "perf";

  /** The figures of one run. */
  record Result(int gangs, int size, double groupsPerSecond, double podsPerSecond,
      double p50GroupMillis, double p99GroupMillis, long groupAttempts, double meanAttemptMillis,
      double loopCpuMillisPerGroup, long podCycles, double processCpuMillisPerGroup) {}

  private GangThroughputRun() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> shapes = List.of((args.length > 2 ? args[2] : "1000x3,50x64").split(","));
    StringBuilder table = new StringBuilder("\n| gangs x pods | nodes | run | groups/s | pods/s |"
        + " p50 group ms | p99 group ms | group attempts | mean ms per group attempt |"
        + " scheduling-thread CPU ms per group | process CPU ms per group | extra pod attempts |\n"
        + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String shape : shapes) {
      String[] gs = shape.split("x");
      for (int r = 0; r < runs; r++) {
        Result res = run(nodes, Integer.parseInt(gs[0]), Integer.parseInt(gs[1]));
        LOG.info("run {}: {}", r + 1, res);
        table.append(String.format("| %dx%d | %d | %d | %.1f | %.0f | %.2f | %.2f | %d | %.2f | %.2f"
            + " | %.2f | %d |%n", res.gangs(), res.size(), nodes, r + 1, res.groupsPerSecond(),
            res.podsPerSecond(), res.p50GroupMillis(), res.p99GroupMillis(), res.groupAttempts(),
            res.meanAttemptMillis(), res.loopCpuMillisPerGroup(), res.processCpuMillisPerGroup(),
            res.podCycles()));
      }
    }
    LOG.info("{}", table);
  }

  static Result run(int nodes, int gangs, int size) throws Exception {
    Map<String, Pod> current = new ConcurrentHashMap<>();
    Map<String, PodGroup> groups = new ConcurrentHashMap<>();
    AtomicReference<SchedulerAssembly> ref = new AtomicReference<>();
    AtomicInteger bound = new AtomicInteger();
    AtomicInteger[] boundPerGang = new AtomicInteger[gangs];
    Arrays.setAll(boundPerGang, i -> new AtomicInteger());
    AtomicLongArray complete = new AtomicLongArray(gangs);
    AtomicLongArray done = new AtomicLongArray(gangs);
    HarnessClock clock = new HarnessClock();
    HarnessBinder binder = new HarnessBinder(HarnessProfile.feedBack(current, ref::get, pod -> {
      int gang = Integer.parseInt(pod.getMetadata().getLabels().get(PodGroup.LABEL).substring(1));
      if (boundPerGang[gang].incrementAndGet() == size) {
        done.set(gang, System.nanoTime());
      }
      bound.incrementAndGet();
    }));
    PodGroupLister lister = (ns, name) -> Optional.ofNullable(groups.get(ns + "/" + name));
    Registry registry = HarnessProfile.registry(Coscheduling.NAME,
        (a, handle) -> Coscheduling.create(a, handle, lister), binder, clock);
    SchedulerConfiguration config = HarnessProfile.config(registry, List.of(Coscheduling.NAME),
        List.of("PrioritySort"), "  - name: PodTopologySpread", "    args: {defaultingType: List}");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    HarnessPodApi podApi = new HarnessPodApi(current, () -> ref.get().podHandler());
    PodIndexes indexes = new PodIndexes(current);
    SchedulerAssembly assembly = SchedulerAssembly.builder(config, registry)
        .informerPod(p -> Optional.ofNullable(current.get(key(p))))
        .listers(podListerOver(current, indexes))
        .podApi(podApi)
        .featureGates(FeatureGates.parse(System.getProperty("berth.featureGates", "")))
        .meterRegistry(meters)
        .build();
    ref.set(assembly);
    try {
      assembly.start();
      for (int i = 0; i < nodes; i++) {
        assembly.nodeHandler().onAdd(PerfObjects.node("node-" + i, null), true);
      }
      List<List<Pod>> members = new ArrayList<>(gangs);
      for (int g = 0; g < gangs; g++) {
        String name = "g" + g;
        groups.put(NAMESPACE + "/" + name, new PodGroup(NAMESPACE, name, Instant.now(), size,
            Map.of(), Optional.empty()));
        List<Pod> pods = new ArrayList<>(size);
        for (int m = 0; m < size; m++) {
          pods.add(PerfObjects.pod(NAMESPACE, name + "-" + m, b -> b.editMetadata()
              .addToLabels(PodGroup.LABEL, name).endMetadata()));
        }
        members.add(pods);
      }
      Thread loop = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().equals("scheduler-loop")).findFirst().orElse(null);
      java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
      long cpu0 = loop == null ? 0 : cpu.getThreadCpuTime(loop.getId());
      com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long process0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      for (int g = 0; g < gangs; g++) {
        for (Pod pod : members.get(g)) {
          current.put(key(pod), pod);
          indexes.file(pod);
          assembly.podHandler().onAdd(pod, false);
        }
        complete.set(g, System.nanoTime());
      }
      long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
      while (bound.get() < gangs * size) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("only " + bound.get() + " of " + gangs * size
              + " pods bound");
        }
        Thread.sleep(2);
      }
      long elapsed = System.nanoTime() - t0;
      double processCpu = (os.getProcessCpuTime() - process0) / 1e6 / gangs;
      double loopCpu = loop == null ? Double.NaN
          : (cpu.getThreadCpuTime(loop.getId()) - cpu0) / 1e6 / gangs;
      long[] latency = new long[gangs];
      for (int g = 0; g < gangs; g++) {
        latency[g] = done.get(g) - complete.get(g);
      }
      Arrays.sort(latency);
      long attempts = 0;
      double attemptMillis = 0;
      for (Timer t : meters.find("scheduler.podgroup.scheduling.attempt.duration").timers()) {
        LOG.info("{}x{}: group attempts result={}: {} (mean {} ms)", gangs, size,
            t.getId().getTag("result"), t.count(), String.format("%.2f",
                t.mean(TimeUnit.MILLISECONDS)));
        attempts += t.count();
        attemptMillis += t.totalTime(TimeUnit.MILLISECONDS);
      }
      // members placed from the previous member's Filter and Score pass (the batch's hint)
      for (io.micrometer.core.instrument.Counter c : meters.find("scheduler.batch.attempts")
          .counters()) {
        LOG.info("{}x{}: batch attempts result={}: {}", gangs, size, c.getId().getTag("result"),
            (long) c.count());
      }
      long podCycles = 0;
      for (Timer t : meters.find("scheduler.scheduling.attempt.duration").timers()) {
        podCycles += t.count();
      }
      return new Result(gangs, size, gangs / (elapsed / 1e9), gangs * size / (elapsed / 1e9),
          percentile(latency, 0.50), percentile(latency, 0.99), attempts,
          attempts == 0 ? Double.NaN : attemptMillis / attempts, loopCpu, podCycles - gangs * size,
          processCpu);
    } finally {
      assembly.stop(Duration.ofSeconds(10));
      podApi.close();
    }
  }

  /** The pod lister Coscheduling reads (members of a group), over the harness's pods. */
  /**
   * The harness's stand-in for the informer's indexes: each pod is filed once, when the driver adds
   * it (a harness pod never changes its group and is never deleted), and looked up by key in
   * {@code current}, so lookups see the pod's latest version. Thread-safe: concurrent maps.
   */
  private static final class PodIndexes {
    private final Map<String, Pod> current;
    private final Map<String, java.util.function.Function<? super Pod, List<String>>> functions =
        new ConcurrentHashMap<>();
    // index name + "\0" + key -> pod keys
    private final Map<String, java.util.Set<String>> filed = new ConcurrentHashMap<>();

    PodIndexes(Map<String, Pod> current) {
      this.current = current;
    }

    void file(Pod pod) {
      functions.forEach((name, keys) -> {
        for (String k : keys.apply(pod)) {
          filed.computeIfAbsent(name + "\0" + k, x -> ConcurrentHashMap.newKeySet()).add(key(pod));
        }
      });
    }

    io.berth.framework.ObjectIndex<Pod> register(String name,
        java.util.function.Function<? super Pod, List<String>> keys) {
      functions.putIfAbsent(name, keys);
      return k -> {
        List<Pod> out = new ArrayList<>();
        for (String podKey : filed.getOrDefault(name + "\0" + k, java.util.Set.of())) {
          Pod p = current.get(podKey);
          if (p != null) {
            out.add(p);
          }
        }
        return out;
      };
    }
  }

  private static ListerProvider podListerOver(Map<String, Pod> current, PodIndexes indexes) {
    ObjectLister<Pod> pods = new ObjectLister<>() {
      @Override
      public List<Pod> list() {
        return List.copyOf(current.values());
      }

      @Override
      public List<Pod> list(String namespace) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : current.values()) {
          if (namespace.equals(p.getMetadata().getNamespace())) {
            out.add(p);
          }
        }
        return out;
      }

      @Override
      public Optional<Pod> get(String namespace, String name) {
        return Optional.ofNullable(current.get(namespace + "/" + name));
      }
    };
    return new ListerProvider() {
      @Override
      @SuppressWarnings("unchecked")
      public <T extends HasMetadata> io.berth.framework.ObjectIndex<T> index(Class<T> type,
          String indexName, java.util.function.Function<? super T, List<String>> keys) {
        if (type != Pod.class) {
          return ListerProvider.super.index(type, indexName, keys);
        }
        return (io.berth.framework.ObjectIndex<T>) (io.berth.framework.ObjectIndex<?>)
            indexes.register(indexName, (java.util.function.Function<? super Pod, List<String>>)
                (java.util.function.Function<?, ?>) keys);
      }

      @Override
      @SuppressWarnings("unchecked")
      public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
        if (type == Pod.class) {
          return (ObjectLister<T>) pods;
        }
        return new ObjectLister<>() { // the harness has no objects of other kinds
          @Override
          public List<T> list() {
            return List.of();
          }

          @Override
          public List<T> list(String namespace) {
            return List.of();
          }

          @Override
          public Optional<T> get(String namespace, String name) {
            return Optional.empty();
          }
        };
      }
    };
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int idx = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(idx, sorted.length - 1))] / 1e6;
  }

  private static String key(Pod p) {
    return HarnessProfile.key(p);
  }
}
