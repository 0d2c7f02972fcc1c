package io.berth.bench.scheduler;

import io.berth.framework.ObjectLister;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.dynamicresources.ClaimWrites;
import io.berth.plugins.dynamicresources.DynamicResources;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dynamic Resource Allocation's throughput: the default profile (with DynamicResources) in
 * process, {@code nodes} nodes of {@code gpus} devices each published as one ResourceSlice per
 * node, a DeviceClass selecting the driver by CEL, and {@code pods} pods each with its own
 * ResourceClaim for one device of model {@code a100}; claims, slices and classes are in memory
 * (the harness has no API server), PreBind's writes go to that store and back to the plugin as
 * the claim informer would deliver them. With {@code initPods}, that many such pods are
 * scheduled first, unmeasured (upstream scheduler_perf's init pods). Measures the measured pods'
 * pods/s as the average of 1 s samples and overall, as {@link SchedulerThroughputRun}, and the
 * process CPU time per measured pod (all threads: scheduling, Filter workers, binding, the
 * harness and GC; what the wall-clock figures cost on a loaded machine).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.DraThroughputRun
 * [nodes] [gpusPerNode] [pods] [runs] [initPods]}; defaults 1000 8 4000 3 0. Single-threaded
 * driver; the scheduler runs its own threads.
 */
public final class DraThroughputRun {
  private static final Logger LOG = LoggerFactory.getLogger(DraThroughputRun.class);
  static final String DRIVER = "gpu.example.com";

  private DraThroughputRun() {}

  /** An in-memory lister; thread-safe. */
  static final class MemoryLister<T extends HasMetadata> implements ObjectLister<T> {
    final Map<String, T> objects = new ConcurrentHashMap<>();

    void put(T o) {
      objects.put(key(o.getMetadata().getNamespace(), o.getMetadata().getName()), o);
    }

    private static String key(String ns, String name) {
      return (ns == null ? "" : ns) + "/" + name;
    }

    @Override
    public List<T> list() {
      return new ArrayList<>(objects.values());
    }

    @Override
    public List<T> list(String namespace) {
      return objects.values().stream()
          .filter(o -> namespace.equals(o.getMetadata().getNamespace())).toList();
    }

    @Override
    public Optional<T> get(String namespace, String name) {
      return Optional.ofNullable(objects.get(key(namespace == null || namespace.isEmpty() ? null
          : namespace, name)));
    }
  }

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int gpus = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int pods = args.length > 2 ? Integer.parseInt(args[2]) : 4000;
    int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    int init = args.length > 4 ? Integer.parseInt(args[4]) : 0;
    StringBuilder table = new StringBuilder("\n| run | nodes x GPUs | pods (init+measured) |"
        + " pods/s (avg of 1 s samples) | pods/s (overall) | process CPU ms per pod |\n"
        + "|---|---|---|---|---|---|\n");
    for (int r = 0; r < runs; r++) {
      double[] res = run(nodes, gpus, init, pods);
      LOG.info("run {}: {} pods/s (avg of 1 s samples), {} overall, {} CPU ms per pod", r + 1,
          String.format("%.0f", res[0]), String.format("%.0f", res[1]),
          String.format("%.2f", res[2]));
      table.append(String.format("| %d | %d x %d | %d+%d | %.0f | %.0f | %.2f |%n", r + 1, nodes,
          gpus, init, pods, res[0], res[1], res[2]));
    }
    LOG.info("{}", table);
  }

  static ResourceSlice slice(String node, int gpus) {
    Device[] devices = new Device[gpus];
    for (int i = 0; i < gpus; i++) {
      devices[i] = new DeviceBuilder().withName("gpu-" + i).withAttributes(Map.of(
              "model", new DeviceAttributeBuilder().withString("a100").build(),
              "index", new DeviceAttributeBuilder().withInt((long) i).build()))
          .withCapacity(Map.of("memory",
              new DeviceCapacityBuilder().withValue(new Quantity("80Gi")).build()))
          .build();
    }
    return new ResourceSliceBuilder().withNewMetadata().withName(node + "-" + DRIVER)
        .withUid(UUID.randomUUID().toString()).endMetadata().withNewSpec().withDriver(DRIVER)
        .withNodeName(node).withNewPool().withName(node).withGeneration(1L)
        .withResourceSliceCount(1L).endPool().withDevices(devices).endSpec().build();
  }

  static ResourceClaim claim(String name) {
    return new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace("perf")
        .withUid(UUID.randomUUID().toString()).withResourceVersion("1").endMetadata()
        .withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
        .withDeviceClassName("gpu").withAllocationMode("ExactCount").withCount(1L)
        .addNewSelector().withNewCel()
        .withExpression("device.attributes['" + DRIVER + "'].model == 'a100'").endCel()
        .endSelector().endExactly().endRequest().endDevices().endSpec().build();
  }

  /**
   * One run: {measured pods/s avg of 1 s samples, overall, process CPU ms per measured pod}.
   */
  static double[] run(int nodes, int gpus, int init, int podCount) throws Exception {
    MemoryLister<ResourceClaim> claims = new MemoryLister<>();
    MemoryLister<ResourceSlice> slices = new MemoryLister<>();
    MemoryLister<DeviceClass> classes = new MemoryLister<>();
    classes.put(new DeviceClassBuilder().withNewMetadata().withName("gpu").endMetadata()
        .withNewSpec().addNewSelector().withNewCel().withExpression("device.driver == '"
            + DRIVER + "'").endCel().endSelector().endSpec().build());
    for (int i = 0; i < nodes; i++) {
      slices.put(slice("node-" + i, gpus));
    }
    AtomicLong version = new AtomicLong(10);
    AtomicReference<DynamicResources> plugin = new AtomicReference<>();
    ClaimWrites writes = new ClaimWrites() {
      @Override
      public ResourceClaim bind(ResourceClaim claim, AllocationResult allocation, Pod pod) {
        ResourceClaimBuilder b = new ResourceClaimBuilder(claim).editMetadata()
            .withResourceVersion(Long.toString(version.incrementAndGet())).endMetadata();
        if (allocation != null) {
          b.editOrNewStatus().withAllocation(allocation).endStatus();
        }
        ResourceClaim written = b.editOrNewStatus().addNewReservedFor().withResource("pods")
            .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid())
            .endReservedFor().endStatus().build();
        claims.put(written);
        plugin.get().claimHandler().onUpdate(claim, written);
        return written;
      }

      @Override
      public void deallocate(ResourceClaim claim) {
        throw new UnsupportedOperationException("no deallocation in this run");
      }

      @Override
      public void unreserve(ResourceClaim claim, Pod pod) {
        throw new UnsupportedOperationException("no unreserve in this run");
      }
    };
    plugin.set(DynamicResources.withObjects(Map.of(), claims, slices, classes, writes));

    Map<String, Pod> current = new ConcurrentHashMap<>();
    AtomicInteger bound = new AtomicInteger();
    AtomicReference<SchedulerAssembly> ref = new AtomicReference<>();
    HarnessClock clock = new HarnessClock();
    HarnessBinder binder = new HarnessBinder(HarnessProfile.feedBack(current, ref::get,
        pod -> bound.incrementAndGet()));
    Registry registry = HarnessProfile.registry(DynamicResources.NAME,
        (a, handle) -> plugin.get(), binder, clock);
    SchedulerConfiguration config = HarnessProfile.config(registry, List.of(), List.of());
    HarnessPodApi podApi = new HarnessPodApi(current, () -> ref.get().podHandler());
    SchedulerAssembly assembly = SchedulerAssembly.builder(config, registry)
        .informerPod(p -> Optional.ofNullable(current.get(key(p))))
        .podApi(podApi).meterRegistry(new SimpleMeterRegistry()).build();
    ref.set(assembly);
    try {
      assembly.start();
      for (int i = 0; i < nodes; i++) {
        assembly.nodeHandler().onAdd(PerfObjects.node("node-" + i, null), true);
      }
      List<Pod> initPods = pods("init-", init, claims);
      for (Pod pod : initPods) {
        current.put(key(pod), pod);
        assembly.podHandler().onAdd(pod, false);
      }
      awaitBound(bound, init);
      List<Pod> pods = pods("measured-", podCount, claims);
      List<Integer> samples = new ArrayList<>();
      com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      int bound0 = bound.get();
      long t0 = System.nanoTime();
      Thread sampler = new Thread(() -> {
        int last = bound0;
        while (!Thread.currentThread().isInterrupted()) {
          try {
            Thread.sleep(1000);
          } catch (InterruptedException e) {
            return;
          }
          int now = bound.get();
          synchronized (samples) {
            samples.add(now - last);
          }
          last = now;
        }
      }, "throughput-sampler");
      sampler.setDaemon(true);
      sampler.start();
      for (Pod pod : pods) {
        current.put(key(pod), pod);
        assembly.podHandler().onAdd(pod, false);
      }
      awaitBound(bound, init + podCount);
      double elapsed = (System.nanoTime() - t0) / 1e9;
      double cpuPerPod = (os.getProcessCpuTime() - cpu0) / 1e6 / podCount;
      sampler.interrupt();
      sampler.join();
      long allocated = claims.list().stream().filter(c -> c.getStatus() != null
          && c.getStatus().getAllocation() != null).count();
      if (allocated != init + podCount) {
        throw new IllegalStateException(allocated + " of " + (init + podCount)
            + " claims allocated");
      }
      double avg;
      synchronized (samples) {
        avg = samples.isEmpty() ? podCount / elapsed
            : samples.stream().mapToInt(Integer::intValue).average().orElse(0);
      }
      return new double[] {avg, podCount / elapsed, cpuPerPod};
    } finally {
      assembly.stop(Duration.ofSeconds(10));
      podApi.close();
    }
  }

  private static List<Pod> pods(String prefix, int count, MemoryLister<ResourceClaim> claims) {
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String name = prefix + i;
      claims.put(claim(name + "-gpu"));
      pods.add(PerfObjects.pod("perf", name, b -> b.editSpec().addNewResourceClaim()
          .withName("gpu").withResourceClaimName(name + "-gpu").endResourceClaim().endSpec()));
    }
    return pods;
  }

  private static void awaitBound(AtomicInteger bound, int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (bound.get() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + bound.get() + " of " + count + " pods bound");
      }
      Thread.sleep(5);
    }
  }

  private static String key(Pod p) {
    return HarnessProfile.key(p);
  }
}
