package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.PermitPlugin;
import io.berth.framework.PermitResult;
import io.berth.framework.PodApi;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.framework.PodStatusPatch;
import io.berth.framework.ReservePlugin;
import io.berth.framework.Status;
import io.berth.framework.runtime.DefaultParallelizer;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.plugins.noderesources.NodeResourcesFit;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.queue.QueueProfile;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group scheduling cycle over a real queue, cache, snapshot and framework runner (no API
 * server): a group is placed in one cycle or not at all, and a discarded or failed commit leaves
 * nothing in the cache, the snapshot, the Reserve plugins, Permit or the nominator.
 */
class GroupSchedulingCycleTest {
  private static final String GROUP_LABEL = "group";

  /** Groups by the "group" label; counts Reserve/Unreserve; Permit as told; binds in memory. */
  final class TestGang implements PodGroupPlugin, ReservePlugin, PermitPlugin, BindPlugin {
    final Set<String> reserved = ConcurrentHashMap.newKeySet();
    final Map<String, String> bound = new ConcurrentHashMap<>();
    final Set<String> rejectAtPermit = ConcurrentHashMap.newKeySet();
    volatile boolean waitAtPermit;
    // when set: Permit waits until minMember members of the group are reserved, then allows all
    volatile boolean gangPermit;
    volatile int maxGroupCycleMembers = Integer.MAX_VALUE;

    @Override
    public int maxGroupCycleMembers() {
      return maxGroupCycleMembers;
    }

    @Override
    public String name() {
      return "TestGang";
    }

    @Override
    public Optional<PodGroupRef> podGroupOf(Pod pod) {
      String g = pod.getMetadata().getLabels() == null ? null
          : pod.getMetadata().getLabels().get(GROUP_LABEL);
      return g == null ? Optional.empty()
          : Optional.of(new PodGroupRef(pod.getMetadata().getNamespace(), g, minMember.get(g)));
    }

    @Override
    public List<Pod> members(PodGroupRef group) {
      return informer.stream().filter(p -> group.name().equals(p.getMetadata().getLabels()
          .get(GROUP_LABEL))).toList();
    }

    @Override
    public Status reserve(CycleState state, Pod pod, String nodeName) {
      reserved.add(pod.getMetadata().getName());
      return Status.SUCCESS;
    }

    @Override
    public void unreserve(CycleState state, Pod pod, String nodeName) {
      reserved.remove(pod.getMetadata().getName());
    }

    @Override
    public PermitResult permit(CycleState state, Pod pod, String nodeName) {
      if (rejectAtPermit.contains(pod.getMetadata().getName())) {
        return PermitResult.of(Status.unschedulable("told to reject " + pod.getMetadata().getName()));
      }
      if (gangPermit) {
        String g = pod.getMetadata().getLabels().get(GROUP_LABEL);
        long reservedInGroup = reserved.stream().filter(n -> n.startsWith(g + "-")).count();
        if (reservedInGroup < minMember.get(g)) {
          return PermitResult.waitFor(Duration.ofMinutes(1));
        }
        fw.iterateOverWaitingPods(w -> w.allow(name()));
        return PermitResult.ALLOW;
      }
      return waitAtPermit ? PermitResult.waitFor(Duration.ofMinutes(1)) : PermitResult.ALLOW;
    }

    @Override
    public Status bind(CycleState state, Pod pod, String nodeName) {
      bound.put(pod.getMetadata().getName(), nodeName);
      return Status.SUCCESS;
    }
  }

  private final List<Pod> informer = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> minMember = new ConcurrentHashMap<>();
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private final TestGang gang = new TestGang();
  private final SchedulerCache cache = new SchedulerCache(Duration.ZERO);
  private final Snapshot snapshot = new Snapshot();
  private final ExecutorService bindingPool = Executors.newSingleThreadExecutor();
  private Framework fw;
  private SchedulingQueue queue;
  private Scheduler scheduler;

  @AfterEach
  void stop() throws Exception {
    scheduler.stop(Duration.ofSeconds(5));
    queue.close();
  }

  private final Set<String> deleted = ConcurrentHashMap.newKeySet();
  // pod name -> the status.nominatedNodeName the scheduler last wrote ("" clears)
  private final Map<String, String> nominatedInApi = new ConcurrentHashMap<>();
  private boolean withPreemption;
  private boolean withVolumeRestrictions;

  private void start(int nodes, String cpuPerNode) {
    for (int i = 0; i < nodes; i++) {
      cache.addNode(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata()
          .withNewStatus().addToAllocatable("cpu", new Quantity(cpuPerNode))
          .addToAllocatable("memory", new Quantity("8Gi"))
          .addToAllocatable("pods", new Quantity("110")).endStatus().build());
    }
    Registry registry = InTreeRegistry.create().register("TestGang", (a, h) -> gang);
    List<PluginRef> refs = new ArrayList<>(List.of(PluginRef.of("PrioritySort"),
        PluginRef.of(NodeResourcesFit.NAME), PluginRef.of("TestGang")));
    if (withPreemption) {
      refs.add(PluginRef.of("DefaultPreemption"));
    }
    if (withVolumeRestrictions) {
      refs.add(PluginRef.of(io.berth.plugins.volumerestrictions.VolumeRestrictions.NAME));
    }
    ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
        new PluginSet(refs, List.of()), Map.of(), OptionalInt.of(100));
    PodApi api = new PodApi() {
      @Override
      public boolean patchStatus(Pod pod, PodStatusPatch patch) {
        patch.nominatedNodeName().ifPresent(n -> nominatedInApi.put(pod.getMetadata().getName(), n));
        return true;
      }

      @Override
      public boolean delete(Pod pod) {
        deleted.add(pod.getMetadata().getName());
        return true;
      }
    };
    fw = FrameworkRuntime.builder(registry, profile).podApi(api).listers(rwopClaimLister())
        .parallelizer(new DefaultParallelizer(1)).snapshot(() -> snapshot)
        .eventRecorder((obj, type, reason, action, message) -> {
          if (reason.equals("FailedScheduling")) {
            failures.add(obj.getMetadata().getName() + ": " + message);
          }
        }).build();
    queue = SchedulingQueue.builder(fw.queueSortPlugin(),
        Map.of("default-scheduler", QueueProfile.of(fw))).build();
    scheduler = new Scheduler(queue, cache, snapshot, Map.of("default-scheduler", fw),
        new SchedulingAlgorithm(100, RandomGenerator.of("L64X128MixRandom")),
        new PodStatusUpdater(api), p -> informer.stream().filter(i -> i.getMetadata().getUid()
            .equals(p.getMetadata().getUid())).findFirst(), new SchedulerMetrics(new SimpleMeterRegistry()),
        Clock.systemUTC(), bindingPool);
  }

  /** No objects but one PVC, default/data, ReadWriteOncePod. */
  private static io.berth.framework.runtime.ListerProvider rwopClaimLister() {
    io.fabric8.kubernetes.api.model.PersistentVolumeClaim claim =
        new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder().withNewMetadata()
            .withNamespace("default").withName("data").endMetadata().withNewSpec()
            .withAccessModes("ReadWriteOncePod").endSpec().build();
    io.berth.framework.runtime.ListerProvider empty = InformerListers.empty();
    return new io.berth.framework.runtime.ListerProvider() {
      @Override
      @SuppressWarnings("unchecked")
      public <T extends io.fabric8.kubernetes.api.model.HasMetadata>
          io.berth.framework.ObjectLister<T> lister(Class<T> type) {
        if (type != io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class) {
          return empty.lister(type);
        }
        return (io.berth.framework.ObjectLister<T>) new io.berth.framework.ObjectLister<
            io.fabric8.kubernetes.api.model.PersistentVolumeClaim>() {
          @Override
          public List<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> list() {
            return List.of(claim);
          }

          @Override
          public List<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> list(String ns) {
            return ns.equals("default") ? List.of(claim) : List.of();
          }

          @Override
          public Optional<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> get(String ns,
              String name) {
            return ns.equals("default") && name.equals("data") ? Optional.of(claim)
                : Optional.empty();
          }
        };
      }
    };
  }

  private void group(String name, int min, int size) {
    group(name, min, size, 0);
  }

  private void group(String name, int min, int size, int priority) {
    minMember.put(name, min);
    for (int i = 0; i < size; i++) {
      Pod pod = new PodBuilder(SchedulerIT.pod(name + "-" + i, "1", "default-scheduler"))
          .editMetadata().withUid(name + "-" + i).addToLabels(GROUP_LABEL, name).endMetadata()
          .editSpec().withPriority(priority).endSpec().build();
      informer.add(pod);
      queue.add(pod);
    }
  }

  /** A running pod on {@code node}, in {@code group} if not null. */
  private void running(String name, String group, String node, int priority) {
    PodBuilder b = new PodBuilder(SchedulerIT.pod(name, "1", "default-scheduler")).editMetadata()
        .withUid(name).endMetadata().editSpec().withNodeName(node).withPriority(priority).endSpec();
    if (group != null) {
      minMember.putIfAbsent(group, 2);
      b.editMetadata().addToLabels(GROUP_LABEL, group).endMetadata();
    }
    Pod pod = b.build();
    informer.add(pod);
    cache.addPod(pod);
  }

  private int waitingPods() {
    AtomicInteger n = new AtomicInteger();
    fw.iterateOverWaitingPods(w -> n.incrementAndGet());
    return n.get();
  }

  private void assertNothingLeftBehind() {
    for (Pod p : informer) {
      assertThat(cache.isAssumedPod(p)).as("assumed %s", p.getMetadata().getName()).isFalse();
    }
    assertThat(cache.podCount()).isZero();
    assertThat(gang.reserved).as("still reserved").isEmpty();
    assertThat(waitingPods()).as("parked in Permit").isZero();
    assertThat(queue.inFlightSize()).as("in flight").isZero();
    for (int i = 0; i < snapshot.numNodes(); i++) {
      assertThat(snapshot.get("n" + i).orElseThrow().pods()).as("snapshot of n%d", i).isEmpty();
      assertThat(queue.nominatedPodsForNode("n" + i)).isEmpty();
    }
  }

  @Test
  void aGroupThatFitsIsPlacedInOneCycleAndBindsTogether() throws Exception {
    start(2, "2");
    group("g", 4, 4);
    scheduler.scheduleOne();
    // one pop took the whole group: nothing left to pop
    assertThat(queue.activeSize()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> gang.bound.size() == 4);
    assertThat(gang.bound.values().stream().filter("n0"::equals).count()).isEqualTo(2);
    assertThat(gang.bound.values().stream().filter("n1"::equals).count()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.inFlightSize() == 0);
    assertThat(failures).isEmpty();
  }

  @Test
  void aGroupThatDoesNotFitIsDiscardedLeavingNothingBehindAndEveryMemberSaysWhy() throws Exception {
    start(2, "2");
    group("g", 5, 5);
    scheduler.scheduleOne();
    assertNothingLeftBehind();
    assertThat(gang.bound).isEmpty();
    assertThat(queue.unschedulableSize() + queue.backoffSize()).isEqualTo(5);
    assertThat(failures).hasSize(5).allMatch(m -> m.contains("PodGroup \"default/g\"")
        && m.contains("only 4 of the 5 members it needs"));
  }

  @Test
  void eachMemberIsFilteredAgainstTheMembersPlacedBeforeIt() throws Exception {
    // one node with room for two: without the amended snapshot all three would be placed there
    start(1, "2");
    group("g", 2, 3);
    scheduler.scheduleOne();
    await().atMost(Duration.ofSeconds(10)).until(() -> gang.bound.size() == 2);
    assertThat(failures).hasSize(1).allMatch(m -> m.contains("Insufficient cpu"));
    assertThat(queue.unschedulableSize() + queue.backoffSize()).isEqualTo(1);
  }

  @Test
  void aPermitRejectionAtCommitUndoesEveryAssumeAndEveryParkedMember() throws Exception {
    start(2, "2");
    gang.waitAtPermit = true;
    gang.rejectAtPermit.add("g-3");
    group("g", 4, 4);
    scheduler.scheduleOne();
    assertNothingLeftBehind();
    assertThat(gang.bound).isEmpty();
    assertThat(failures).hasSize(4).allMatch(m -> m.contains("PodGroup \"default/g\""));
  }

  @Test
  void aHigherPriorityGangPreemptsAWholeLowerGangRatherThanHalfOfItOrAPodItDoesNotNeed()
      throws Exception {
    withPreemption = true;
    start(2, "2");
    running("low-0", "low", "n0", 0);
    running("low-1", "low", "n0", 0);
    running("solo", null, "n1", 0);
    group("hi", 3, 3, 100);
    scheduler.scheduleOne();
    // one free cpu: the gang needs two more; evicting solo gives one, the low gang two: the whole
    // low gang goes and solo is reprieved
    assertThat(deleted).containsExactlyInAnyOrder("low-0", "low-1");
    assertThat(failures).hasSize(3).allMatch(m -> m.contains("PodGroup \"default/hi\"")
        && m.contains("preemption: lower-priority pods are being evicted"));
    assertNothingAssumed();
    // as upstream's preemption: each member is nominated to the node the what-if put it on, in
    // the queue's nominator and in status.nominatedNodeName, within what the eviction frees
    Map<String, Long> perNode = new java.util.HashMap<>();
    for (int i = 0; i < 3; i++) {
      String name = "hi-" + i;
      String node = queue.nominatedNodeName(name).orElseThrow(() -> new AssertionError(
          "no nomination for " + name));
      assertThat(nominatedInApi).containsEntry(name, node);
      perNode.merge(node, 1L, Long::sum);
    }
    assertThat(perNode.getOrDefault("n0", 0L)).isLessThanOrEqualTo(2);
    assertThat(perNode.getOrDefault("n1", 0L)).isLessThanOrEqualTo(1);
  }

  @Test
  void aGroupThatFailsWithoutPreemptionLeavesNominationsAlone() throws Exception {
    start(2, "2");
    group("g", 5, 5);
    scheduler.scheduleOne();
    for (int i = 0; i < 5; i++) {
      assertThat(queue.nominatedNodeName("g-" + i)).isEmpty();
    }
    assertThat(nominatedInApi).isEmpty();
  }

  @Test
  void aFailedCommitClearsTheMembersNominations() throws Exception {
    start(2, "2");
    gang.rejectAtPermit.add("g-3");
    group("g", 4, 4);
    scheduler.scheduleOne();
    // as the per-pod path after a Reserve or Permit failure (upstream's clearNominatedNode): the
    // status write clears status.nominatedNodeName
    for (int i = 0; i < 4; i++) {
      assertThat(queue.nominatedNodeName("g-" + i)).isEmpty();
    }
    assertThat(nominatedInApi).hasSize(4).allSatisfy((pod, node) -> assertThat(node).isEmpty());
  }

  @Test
  void aLowerGangWithOneMemberThatMayNotBePreemptedIsKeptWhole() throws Exception {
    withPreemption = true;
    start(2, "2");
    running("low-0", "low", "n0", 0);
    running("low-1", "low", "n0", 100); // as high as the preemptor: the gang is no candidate
    running("solo", null, "n1", 0);
    group("hi", 3, 3, 100);
    scheduler.scheduleOne();
    assertThat(deleted).isEmpty();
    assertThat(failures).hasSize(3).allMatch(m -> m.contains("does not fit even without"));
    assertNothingAssumed();
  }

  private void assertNothingAssumed() {
    for (Pod p : informer) {
      assertThat(cache.isAssumedPod(p)).as("assumed %s", p.getMetadata().getName()).isFalse();
    }
    assertThat(gang.reserved).isEmpty();
    assertThat(waitingPods()).isZero();
  }

  @Test
  void tooFewQueuedMembersTakeThePerPodCycle() throws Exception {
    start(2, "2");
    group("g", 3, 2);
    scheduler.scheduleOne();
    // the per-pod cycle took one pod; the other is still queued
    assertThat(queue.activeSize()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> gang.bound.size() == 1);
  }

  @Test
  void aGroupLargerThanOneCyclePlacesIsPlacedInChunksTheFirstWaitingAtPermit() throws Exception {
    start(3, "2");
    gang.gangPermit = true;
    gang.maxGroupCycleMembers = 4;
    group("g", 6, 6);
    scheduler.scheduleOne();
    // the first chunk: four members assumed, parked at Permit; the other two still queued
    assertThat(queue.activeSize()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> waitingPods() == 4);
    assertThat(gang.bound).isEmpty();
    scheduler.scheduleOne();
    // the second chunk completes minMember: every member is allowed and binds
    assertThat(queue.activeSize()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> gang.bound.size() == 6);
    assertThat(failures).isEmpty();
  }

  @Test
  void aChunkThatDoesNotFitWhollyIsDiscarded() throws Exception {
    start(1, "3");
    gang.gangPermit = true;
    gang.maxGroupCycleMembers = 4;
    group("g", 6, 6);
    scheduler.scheduleOne();
    assertThat(waitingPods()).isZero();
    assertThat(gang.reserved).isEmpty();
    assertThat(failures).hasSize(4).allMatch(m -> m.contains("maxGroupCycleMembers"));
    assertThat(queue.activeSize()).isEqualTo(2);
  }

  @Test
  void aMemberPlacedEarlierInTheCycleHoldsItsReadWriteOncePodClaimAgainstTheNext() throws Exception {
    withVolumeRestrictions = true;
    start(2, "4");
    minMember.put("g", 2);
    for (int i = 0; i < 2; i++) {
      Pod pod = new PodBuilder(SchedulerIT.pod("g-" + i, "1", "default-scheduler"))
          .editMetadata().withUid("g-" + i).addToLabels(GROUP_LABEL, "g").endMetadata()
          .editSpec().addNewVolume().withName("data").withNewPersistentVolumeClaim()
          .withClaimName("data").endPersistentVolumeClaim().endVolume().endSpec().build();
      informer.add(pod);
      queue.add(pod);
    }
    scheduler.scheduleOne();
    // without the claim in the amended snapshot both would be placed (room for eight)
    assertNothingLeftBehind();
    assertThat(gang.bound).isEmpty();
    assertThat(failures).hasSize(2).allMatch(m -> m.contains("only 1 of the 2 members"));
    assertThat(failures).anyMatch(m -> m.contains("ReadWriteOncePod"));
  }
}
