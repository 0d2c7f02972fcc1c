package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.CycleState;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Framework;
import io.berth.framework.NodeInfo;
import io.berth.framework.Plugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.berth.framework.runtime.DefaultParallelizer;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.framework.testing.ListNodeInfoLister;
import io.berth.plugins.defaultbinder.DefaultBinder;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

class SchedulingAlgorithmTest {
  private final Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ns")
      .withUid("u").endMetadata().withNewSpec().endSpec().build();
  private final Set<String> filtered = Collections.synchronizedSet(new HashSet<>());

  private Framework framework(Function<NodeInfo, Status> filter, ToLongFunction<NodeInfo> score,
      int percentage) {
    FilterPlugin f = new FilterPlugin() {
      @Override
      public String name() {
        return "F";
      }

      @Override
      public Status filter(CycleState state, Pod p, NodeInfo nodeInfo) {
        filtered.add(nodeInfo.nodeName());
        return filter.apply(nodeInfo);
      }
    };
    ScorePlugin s = new ScorePlugin() {
      @Override
      public String name() {
        return "S";
      }

      @Override
      public long score(CycleState state, Pod p, NodeInfo nodeInfo) {
        return score.applyAsLong(nodeInfo);
      }
    };
    Registry registry = new Registry().register("F", (a, h) -> f).register("S", (a, h) -> s)
        .register(PrioritySort.NAME, PrioritySort::create)
        .register(DefaultBinder.NAME, DefaultBinder::create);
    ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
        PluginSet.enabled(PluginRef.of(PrioritySort.NAME), PluginRef.of("F"), PluginRef.of("S"),
            PluginRef.of(DefaultBinder.NAME)),
        Map.of(), percentage > 0 ? OptionalInt.of(percentage) : OptionalInt.empty());
    return FrameworkRuntime.builder(registry, profile).parallelizer(new DefaultParallelizer(4)).build();
  }

  private static List<NodeInfo> nodes(int n) {
    List<NodeInfo> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Node node = new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata().build();
      out.add(NodeInfo.of(node));
    }
    return out;
  }

  private static int index(NodeInfo n) {
    return Integer.parseInt(n.nodeName().substring(1));
  }

  @Test
  void numFeasibleNodesToFindFollowsTheAdaptiveRule() {
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(0, 50)).isEqualTo(50);
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(0, 1000)).isEqualTo(420); // 42%
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(0, 5000)).isEqualTo(500); // 10%
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(0, 6000)).isEqualTo(300); // 5% floor
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(0, 150)).isEqualTo(100); // 100 floor
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(30, 1000)).isEqualTo(300);
    assertThat(SchedulingAlgorithm.numFeasibleNodesToFind(100, 1000)).isEqualTo(1000);
  }

  @Test
  void highestScoreWins() {
    Framework fw = framework(n -> Status.SUCCESS, SchedulingAlgorithmTest::index, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(1));
    ScheduleResult r = algo.schedulePod(fw, new CycleState(), pod, new ListNodeInfoLister(nodes(10)));
    assertThat(r.suggestedHost()).isEqualTo("n9");
    assertThat(r.feasibleNodes()).isEqualTo(10);
  }

  @Test
  void tiesAreBrokenUniformlyAtRandom() {
    Framework fw = framework(n -> Status.SUCCESS, n -> index(n) < 4 ? 10 : 1, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(7));
    Map<String, Integer> counts = new HashMap<>();
    var lister = new ListNodeInfoLister(nodes(8));
    for (int i = 0; i < 4000; i++) {
      counts.merge(algo.schedulePod(fw, new CycleState(), pod, lister).suggestedHost(), 1, Integer::sum);
    }
    assertThat(counts).containsOnlyKeys("n0", "n1", "n2", "n3");
    // each of 4 tied nodes ~1000 times; 6 sigma is about 165
    assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween(830, 1170));
  }

  @Test
  void filteringStopsOnceEnoughFeasibleNodesAreFoundAndResumesWhereItStopped() {
    Framework fw = framework(n -> Status.SUCCESS, n -> 0, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(1));
    var lister = new ListNodeInfoLister(nodes(1000));
    ScheduleResult first = algo.schedulePod(fw, new CycleState(), pod, lister);
    assertThat(first.feasibleNodes()).isEqualTo(420);
    // parallel workers may test a few nodes past the stop point, but far fewer than all of them
    assertThat(filtered.size()).isLessThan(1000);
    Set<String> firstRound = new HashSet<>(filtered);
    filtered.clear();
    algo.schedulePod(fw, new CycleState(), pod, lister);
    // the second cycle starts after the first one's evaluated nodes: little overlap
    Set<String> overlap = new HashSet<>(filtered);
    overlap.retainAll(firstRound);
    assertThat(overlap.size()).isLessThan(firstRound.size() / 2);
  }

  @Test
  void aCycleSeesNoneOfThePreviousCyclesFilterResults() {
    // Filter's per-node result arrays are reused from cycle to cycle: rejections, feasible nodes
    // and an error of one cycle must not leak into the next
    int[] cycle = {0};
    Framework fw = framework(n -> switch (cycle[0]) {
      case 0 -> index(n) % 2 == 0 ? Status.unschedulable("Insufficient cpu") : Status.SUCCESS;
      case 1 -> index(n) == 3 ? Status.error("boom") : Status.SUCCESS;
      default -> index(n) < 7 ? Status.SUCCESS : Status.unschedulable("Insufficient memory");
    }, SchedulingAlgorithmTest::index, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(1));
    var lister = new ListNodeInfoLister(nodes(10));
    ScheduleResult first = algo.schedulePod(fw, new CycleState(), pod, lister);
    assertThat(first.suggestedHost()).isEqualTo("n9");
    assertThat(first.feasibleNodes()).isEqualTo(5);
    assertThat(first.evaluatedNodes()).isEqualTo(10);
    cycle[0] = 1;
    assertThatThrownBy(() -> algo.schedulePod(fw, new CycleState(), pod, lister))
        .isInstanceOf(io.berth.framework.StatusException.class).hasMessageContaining("boom");
    cycle[0] = 2;
    ScheduleResult third = algo.schedulePod(fw, new CycleState(), pod, lister);
    assertThat(third.suggestedHost()).isEqualTo("n6");
    assertThat(third.feasibleNodes()).isEqualTo(7);
    assertThat(third.evaluatedNodes()).isEqualTo(10);
    cycle[0] = 0;
    ScheduleResult fourth = algo.schedulePod(fw, new CycleState(), pod, new ListNodeInfoLister(nodes(4)));
    assertThat(fourth.suggestedHost()).isEqualTo("n3");
    assertThat(fourth.feasibleNodes()).isEqualTo(2);
    assertThat(fourth.evaluatedNodes()).isEqualTo(4);
  }

  @Test
  void noFeasibleNodeGivesTheUpstreamFitErrorMessage() {
    Framework fw = framework(n -> index(n) % 3 == 0 ? Status.unschedulable("Insufficient cpu")
        : Status.unresolvable("node(s) had untolerated taint {dedicated: gpu}"), n -> 0, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(1));
    assertThatThrownBy(() -> algo.schedulePod(fw, new CycleState(), pod,
        new ListNodeInfoLister(nodes(5))))
        .isInstanceOf(FitError.class)
        .hasMessage("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint"
            + " {dedicated: gpu}.")
        .satisfies(e -> assertThat(((FitError) e).diagnosis().unschedulablePlugins())
            .containsExactly("F"));
  }

  @Test
  void anEmptyClusterHasNoNodesAvailable() {
    Framework fw = framework(n -> Status.SUCCESS, n -> 0, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(1));
    assertThatThrownBy(() -> algo.schedulePod(fw, new CycleState(), pod,
        new ListNodeInfoLister(List.of())))
        .isInstanceOf(SchedulingAlgorithm.NoNodesAvailableException.class)
        .hasMessage("no nodes available to schedule pods");
  }

  @Test
  void aNominatedNodeThatStillFitsIsChosenWithoutLookingElsewhere() {
    Framework fw = framework(n -> Status.SUCCESS, SchedulingAlgorithmTest::index, 0);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(0, new SplittableRandom(1));
    Pod nominated = new PodBuilder(pod).withNewStatus().withNominatedNodeName("n3").endStatus().build();
    ScheduleResult r = algo.schedulePod(fw, new CycleState(), nominated,
        new ListNodeInfoLister(nodes(10)));
    assertThat(r.suggestedHost()).isEqualTo("n3");
    assertThat(filtered).containsExactly("n3");
  }

  @Test
  void fitErrorMessageIncludesPreFilterAndPostFilterMessages() {
    Diagnosis d = new Diagnosis();
    d.setPreFilterMsg("pod has unbound immediate PersistentVolumeClaims");
    d.setPostFilterMsg("preemption: 0/3 nodes are available: 3 Preemption is not helpful for"
        + " scheduling");
    assertThat(new FitError(pod, 3, d).getMessage()).isEqualTo("0/3 nodes are available: pod has"
        + " unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3"
        + " Preemption is not helpful for scheduling.");
  }

  @Test
  void fitErrorCountsSharedAndDistinctStatusesAndAbsentNodes() {
    Diagnosis d = new Diagnosis();
    Status shared = Status.unschedulable("Insufficient cpu").withPlugin("NodeResourcesFit");
    d.nodeToStatus().reserve(20);
    for (int i = 0; i < 3; i++) {
      d.nodeToStatus().set("n" + i, shared);
    }
    d.nodeToStatus().set("n3", Status.unschedulable("Insufficient cpu", "Too many pods"));
    d.nodeToStatus().set("n4", Status.unresolvable("node(s) had untolerated taint {a: b}"));
    d.nodeToStatus().setAbsentNodesStatus(Status.unresolvable("node(s) didn't match Pod's node"
        + " affinity/selector"));
    FitError e = new FitError(pod, 7, d);
    String expected = "0/7 nodes are available: 1 Too many pods, 1 node(s) had untolerated taint"
        + " {a: b}, 2 node(s) didn't match Pod's node affinity/selector, 4 Insufficient cpu.";
    assertThat(e.getMessage()).isEqualTo(expected);
    d.setPostFilterMsg("preemption: not eligible due to preemptionPolicy=Never.");
    assertThat(e.getMessage()).isEqualTo(expected + " preemption: not eligible due to"
        + " preemptionPolicy=Never.."); // upstream appends "." to the PostFilter message too
  }

  @Test
  void aStatusNamedForOnePluginStaysOneInstance() {
    Status shared = Status.unschedulable("Insufficient cpu");
    Status named = shared.withPlugin("NodeResourcesFit");
    assertThat(shared.withPlugin("NodeResourcesFit")).isSameAs(named);
    assertThat(named.withPlugin("NodeResourcesFit")).isSameAs(named);
    Status other = shared.withPlugin("Other");
    assertThat(other.plugin()).isEqualTo("Other");
    assertThat(other).isNotEqualTo(named);
    assertThat(shared.plugin()).isEmpty();
  }
}
