package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.Status;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.informer.ResourceEventHandler;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.queue.QueueProfile;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member entering activeQ releases its group's members that PreEnqueue held while the group was
 * short, through the scheduler's pod handler over a real queue and framework runner.
 */
class GroupSiblingsTest {
  private static final int MIN_MEMBER = 4;

  /**
   * Groups by the "group" label (minMember 4); PreEnqueue holds a member until 4 without gates exist; binds in
   * memory (a profile needs a binder).
   */
  final class HoldingGang implements PodGroupPlugin, PreEnqueuePlugin, BindPlugin {
    @Override
    public Status bind(CycleState state, Pod pod, String nodeName) {
      return Status.SUCCESS;
    }

    @Override
    public String name() {
      return "HoldingGang";
    }

    @Override
    public Optional<PodGroupRef> podGroupOf(Pod pod) {
      String g = pod.getMetadata().getLabels().get("group");
      return g == null ? Optional.empty() : Optional.of(new PodGroupRef("ns", g, MIN_MEMBER));
    }

    @Override
    public List<Pod> members(PodGroupRef group) {
      return informer.stream().filter(p -> group.name().equals(p.getMetadata().getLabels().get("group")))
          .toList();
    }

    @Override
    public Status preEnqueue(Pod pod) {
      Optional<PodGroupRef> g = podGroupOf(pod);
      return g.isEmpty() || members(g.get()).stream().filter(p -> p.getSpec().getSchedulingGates() == null
          || p.getSpec().getSchedulingGates().isEmpty()).count() >= MIN_MEMBER ? Status.SUCCESS
          : Status.unresolvable("too few members").withPlugin(name());
    }
  }

  private final List<Pod> informer = new CopyOnWriteArrayList<>();
  private SchedulingQueue queue;
  private ResourceEventHandler<Pod> handler;

  private void start() {
    HoldingGang gang = new HoldingGang();
    Registry registry = InTreeRegistry.create().register("HoldingGang", (a, h) -> gang);
    ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
        new PluginSet(List.of(PluginRef.of("PrioritySort"), PluginRef.of("HoldingGang")), List.of()),
        Map.of(), OptionalInt.of(100));
    Framework fw = FrameworkRuntime.builder(registry, profile).build();
    queue = SchedulingQueue.builder(fw.queueSortPlugin(), Map.of("default-scheduler", QueueProfile.of(fw))).build();
    handler = new SchedulerEventHandlers(queue, new SchedulerCache(Duration.ZERO),
        Map.of("default-scheduler", fw)).podHandler();
  }

  @AfterEach
  void close() {
    if (queue != null) {
      queue.close();
    }
  }

  private static Pod member(String group, int i) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(group + "-" + i)
        .withUid(group + "-" + i).addToLabels("group", group).endMetadata().withNewSpec()
        .withSchedulerName("default-scheduler").addNewContainer().withName("c").withImage("pause").endContainer()
        .endSpec().build();
  }

  /** As the informer: the store holds the pod before its handlers hear of it. */
  private void add(Pod pod) {
    informer.add(pod);
    handler.onAdd(pod, false);
  }

  @Test
  void theMemberThatCompletesTheGroupReleasesTheGatedOnes() {
    start();
    for (int i = 0; i < MIN_MEMBER - 1; i++) {
      add(member("g", i));
    }
    add(member("other", 0));
    assertThat(queue.gatedSize()).isEqualTo(MIN_MEMBER);
    assertThat(queue.activeSize()).isZero();

    add(member("g", MIN_MEMBER - 1));
    assertThat(queue.activeSize()).as("the whole group in activeQ").isEqualTo(MIN_MEMBER);
    assertThat(queue.gatedSize()).as("the other group, still short, stays held").isEqualTo(1);
    assertThat(queue.queueOf("ns", "other-0")).contains(io.berth.scheduler.queue.QueueName.GATED);
  }

  @Test
  void aMemberWhoseGatesAreLiftedByAnUpdateReleasesTheOthersToo() {
    start();
    Pod gated = new PodBuilder(member("g", 0)).editMetadata().withResourceVersion("1").endMetadata().editSpec()
        .addNewSchedulingGate().withName("wait").endSchedulingGate().endSpec().build();
    add(gated);
    for (int i = 1; i < MIN_MEMBER; i++) {
      add(member("g", i));
    }
    assertThat(queue.gatedSize()).as("three short of ungated members, one by its gate").isEqualTo(MIN_MEMBER);

    Pod lifted = new PodBuilder(gated).editMetadata().withResourceVersion("2").endMetadata().editSpec()
        .withSchedulingGates(List.of()).endSpec().build();
    informer.set(0, lifted);
    handler.onUpdate(gated, lifted);
    assertThat(queue.activeSize()).isEqualTo(MIN_MEMBER);
    assertThat(queue.gatedSize()).isZero();
  }

  /** Members of many groups added from several threads in shuffled order: none is left held once all exist. */
  @Test
  void concurrentAddsLeaveNoCompleteGroupsMemberHeld() throws Exception {
    start();
    int groups = 30;
    List<Pod> all = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      for (int i = 0; i < MIN_MEMBER; i++) {
        all.add(member("g" + g, i));
      }
    }
    Collections.shuffle(all, new java.util.Random(42));
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int from = t;
      done.add(pool.submit(() -> {
        go.await();
        for (int i = from; i < all.size(); i += threads) {
          add(all.get(i));
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(queue.gatedSize()).isZero();
    assertThat(queue.activeSize()).isEqualTo(groups * MIN_MEMBER);
  }
}
