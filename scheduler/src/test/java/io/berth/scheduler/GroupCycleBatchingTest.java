package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.FeatureGates;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Framework;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.framework.ScorePlugin;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.Status;
import io.berth.framework.runtime.DefaultParallelizer;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.OpportunisticBatch;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.plugins.noderesources.NodeResourcesBalancedAllocation;
import io.berth.plugins.noderesources.NodeResourcesFit;
import io.berth.plugins.tainttoleration.TaintToleration;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.queue.QueueProfile;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Opportunistic batching inside a group scheduling cycle, over a real queue, cache, snapshot and
 * framework runner with NodeResourcesFit, BalancedAllocation and TaintToleration (which
 * normalizes) scoring nodes of distinct sizes (and a plugin that only breaks their ties): a member with the previous member's signature is
 * placed from the previous full pass (the previous member's node re-filtered and re-scored), on
 * the node a full pass of its own would have chosen; a member with another signature takes the
 * full path.
 */
class GroupCycleBatchingTest {
  private static final String GROUP_LABEL = "group";
  private static final int NODES = 8;

  /** Groups by the "group" label with minMember = every member; binds in memory. */
  final class TestGang implements PodGroupPlugin, BindPlugin {
    final Map<String, String> bound = new ConcurrentHashMap<>();
    // false: no pod belongs to a group, so every member takes the per-pod cycle
    volatile boolean grouping = true;

    @Override
    public String name() {
      return "TestGang";
    }

    @Override
    public Optional<PodGroupRef> podGroupOf(Pod pod) {
      String g = !grouping || pod.getMetadata().getLabels() == null ? null
          : pod.getMetadata().getLabels().get(GROUP_LABEL);
      return g == null ? Optional.empty()
          : Optional.of(new PodGroupRef(pod.getMetadata().getNamespace(), g, informer.size()));
    }

    @Override
    public List<Pod> members(PodGroupRef group) {
      return List.copyOf(informer);
    }

    @Override
    public Status bind(CycleState state, Pod pod, String nodeName) {
      bound.put(pod.getMetadata().getName(), nodeName);
      return Status.SUCCESS;
    }
  }

  /** Counts Filter calls; signs nothing of its own. */
  final class CountingFilter implements FilterPlugin, SignPlugin {
    @Override
    public String name() {
      return "Counting";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
      filterCalls.incrementAndGet();
      return Status.SUCCESS;
    }

    @Override
    public SignResult signPod(Pod pod) {
      return SignResult.none();
    }
  }

  /**
   * Breaks ties only: the real plugins weigh 100 each, this one 1, with a score unique per node
   * and pod count (below 100), so that no two nodes ever tie and both paths choose alike whatever
   * their random draws.
   */
  static final class TieBreak implements ScorePlugin, SignPlugin {
    @Override
    public String name() {
      return "TieBreak";
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
      int index = Integer.parseInt(nodeInfo.nodeName().substring(1));
      return Math.max(0, 99 - (index + NODES * nodeInfo.pods().size()));
    }

    @Override
    public SignResult signPod(Pod pod) {
      return SignResult.none();
    }
  }

  private final List<Pod> informer = new CopyOnWriteArrayList<>();
  private final AtomicInteger filterCalls = new AtomicInteger();
  private final TestGang gang = new TestGang();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private Framework fw;
  private SchedulingQueue queue;
  private Scheduler scheduler;

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.stop(Duration.ofSeconds(5));
      queue.close();
      scheduler = null;
    }
  }

  /**
   * Places one gang of {@code cpus.length} members (member i asks for {@code cpus[i]}) on fresh
   * nodes of distinct sizes and returns member name to node.
   */
  private Map<String, String> place(boolean batching, String... cpus) throws Exception {
    return place(batching, true, cpus);
  }

  /**
   * As {@link #place(boolean, String...)}; with {@code grouping} false the members are no group
   * and are added and scheduled one at a time, each by its own per-pod cycle (a full Filter and
   * Score pass on the snapshot holding the members assumed before it).
   */
  private Map<String, String> place(boolean batching, boolean grouping, String... cpus)
      throws Exception {
    stop();
    gang.grouping = grouping;
    gang.bound.clear();
    informer.clear();
    filterCalls.set(0);
    ExecutorService bindingPool = Executors.newSingleThreadExecutor();
    SchedulerCache cache = new SchedulerCache(Duration.ZERO);
    Snapshot snapshot = new Snapshot();
    for (int i = 0; i < NODES; i++) {
      // distinct cpu and memory sizes: no two nodes tie on LeastAllocated or BalancedAllocation
      // 0, 1 or 2 PreferNoSchedule taints: TaintToleration's normalized scores differ by node
      List<io.fabric8.kubernetes.api.model.Taint> taints = new java.util.ArrayList<>();
      for (int t = 0; t < i % 3; t++) {
        taints.add(new io.fabric8.kubernetes.api.model.TaintBuilder().withKey("t" + t)
            .withEffect("PreferNoSchedule").build());
      }
      cache.addNode(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata()
          .withNewSpec().withTaints(taints).endSpec().withNewStatus().addToAllocatable("cpu", new Quantity(String.valueOf(4 + 3 * i)))
          .addToAllocatable("memory", new Quantity((5 + 7 * i) + "Gi"))
          .addToAllocatable("pods", new Quantity("110")).endStatus().build());
    }
    Registry registry = InTreeRegistry.create().register("TestGang", (a, h) -> gang)
        .register("Counting", (a, h) -> new CountingFilter())
        .register("TieBreak", (a, h) -> new TieBreak());
    ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
        new PluginSet(List.of(PluginRef.of("PrioritySort"), PluginRef.of("Counting"),
            new PluginRef(NodeResourcesFit.NAME, 100),
            new PluginRef(NodeResourcesBalancedAllocation.NAME, 100),
            new PluginRef(TaintToleration.NAME, 100), new PluginRef("TieBreak", 1),
            PluginRef.of("TestGang")), List.of()),
        Map.of(), OptionalInt.of(100));
    SchedulerMetrics metrics = new SchedulerMetrics(meters);
    fw = FrameworkRuntime.builder(registry, profile).parallelizer(new DefaultParallelizer(1))
        .snapshot(() -> snapshot).batchMetrics(metrics)
        .featureGates(FeatureGates.parse("OpportunisticBatching=" + batching)).build();
    queue = SchedulingQueue.builder(fw.queueSortPlugin(),
        Map.of("default-scheduler", QueueProfile.of(fw))).build();
    scheduler = new Scheduler(queue, cache, snapshot, Map.of("default-scheduler", fw),
        new SchedulingAlgorithm(100, new SplittableRandom(7)), new PodStatusUpdater(new io.berth.framework.PodApi() {
          @Override
          public boolean patchStatus(Pod pod, io.berth.framework.PodStatusPatch patch) {
            return true;
          }

          @Override
          public boolean delete(Pod pod) {
            return true;
          }
        }),
        p -> informer.stream().filter(i -> i.getMetadata().getUid()
            .equals(p.getMetadata().getUid())).findFirst(), metrics, Clock.systemUTC(),
        bindingPool);
    for (int i = 0; i < cpus.length; i++) {
      // zero-padded names: the cycle's order (by name at equal priority) is the index order
      String name = String.format("g-%02d", i);
      Pod pod = new PodBuilder(SchedulerIT.pod(name, cpus[i], "default-scheduler"))
          .editMetadata().withUid(name).addToLabels(GROUP_LABEL, "g").endMetadata().build();
      informer.add(pod);
    }
    if (!grouping) {
      for (int i = 0; i < informer.size(); i++) {
        queue.add(informer.get(i));
        scheduler.scheduleOne();
        int placed = i + 1;
        await().atMost(Duration.ofSeconds(10)).until(() -> gang.bound.size() == placed);
      }
      return new TreeMap<>(gang.bound);
    }
    informer.forEach(queue::add);
    scheduler.scheduleOne();
    await().atMost(Duration.ofSeconds(10)).until(() -> gang.bound.size() == cpus.length);
    return new TreeMap<>(gang.bound);
  }

  private OpportunisticBatch batch() {
    return (OpportunisticBatch) fw.nodeHints();
  }

  private double flushed(String reason) {
    Counter c = meters.find("scheduler.batch.cache.flushed").tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  private long groupAttempts() {
    return meters.find("scheduler.podgroup.scheduling.attempt.duration").timers().stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count).sum();
  }

  private static String[] identical(int members, String cpu) {
    String[] out = new String[members];
    java.util.Arrays.fill(out, cpu);
    return out;
  }

  @Test
  void identicalMembersArePlacedFromOnePassWhereTheirOwnPassesWouldPutThem() throws Exception {
    String[] members = identical(12, "500m");
    Map<String, String> perMember = place(false, members);
    int fullFilterCalls = filterCalls.get();
    Map<String, String> batched = place(true, members);
    assertThat(batched).isEqualTo(perMember);
    // members spread over several nodes, and some nodes hold more than one: the previous
    // member's node did still fit, was re-scored and won again or lost to the next best
    assertThat(batched.values().stream().distinct().count()).isBetween(2L, (long) NODES - 1);
    assertThat(fullFilterCalls).isEqualTo(NODES * members.length);
    // one full pass, then per member Filter on the previous member's node and on the hint
    assertThat(filterCalls.get()).isEqualTo(NODES + 2 * (members.length - 1));
    assertThat(batch().batchedPods()).isEqualTo(members.length - 1);
    assertThat(batch().refreshedNodes()).isEqualTo(members.length - 1);
    assertThat(meters.find("scheduler.batch.attempts").tag("result", "hint_used").counter()
        .count()).isEqualTo(members.length - 1);
  }

  @Test
  void aGroupCyclePlacesItsMembersWherePerPodCyclesOnTheSameSnapshotPutThem() throws Exception {
    // identical members, then a run of another signature and back: the batch's reuse, its
    // refresh of the previous node and its flushes all end where one cycle per pod ends
    String[] members = {"500m", "500m", "500m", "500m", "700m", "700m", "500m", "500m", "500m",
        "1", "500m", "500m"};
    Map<String, String> perPod = place(false, false, members);
    assertThat(groupAttempts()).isZero();
    Map<String, String> grouped = place(true, true, members);
    assertThat(grouped).isEqualTo(perPod);
    assertThat(grouped).hasSize(members.length);
    // the group went through one group cycle, and the batch placed members from earlier passes
    assertThat(groupAttempts()).isEqualTo(1);
    assertThat(batch().batchedPods()).isPositive();
    // and so does the per-pod path with batching on (upstream's batch: only full nodes reused)
    assertThat(place(true, false, members)).isEqualTo(perPod);
  }

  @Test
  void aMemberWithAnotherSignatureTakesTheFullPathAndTheNextStartsAgainFromIt()
      throws Exception {
    String[] members = {"500m", "500m", "500m", "700m", "500m", "500m"};
    Map<String, String> perMember = place(false, members);
    Map<String, String> batched = place(true, members);
    assertThat(batched).isEqualTo(perMember);
    // g-03 (other requests, so another signature) and g-04 (back to the first signature, but
    // the batch is g-03's now) flush the batch and run full passes; g-01, g-02, g-05 reuse
    assertThat(flushed(OpportunisticBatch.FLUSH_POD_INCOMPATIBLE)).isEqualTo(2);
    assertThat(batch().batchedPods()).isEqualTo(3);
    assertThat(filterCalls.get()).isEqualTo(3 * NODES + 2 * 3);
  }
}
