package io.berth.plugins.interpodaffinity;

import static io.berth.plugins.interpodaffinity.Fixtures.in;
import static io.berth.plugins.interpodaffinity.Fixtures.labels;
import static io.berth.plugins.interpodaffinity.Fixtures.node;
import static io.berth.plugins.interpodaffinity.Fixtures.nodeInfos;
import static io.berth.plugins.interpodaffinity.Fixtures.notIn;
import static io.berth.plugins.interpodaffinity.Fixtures.plugin;
import static io.berth.plugins.interpodaffinity.Fixtures.pod;
import static io.berth.plugins.interpodaffinity.Fixtures.term;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * AddPod/RemovePod: translated from upstream's TestPreFilterStateAddRemovePod. Adding a pod to the
 * state of a snapshot without it must give the state PreFilter computes with it, and removing it
 * again must restore the original state.
 */
class InterPodAffinityAddRemovePodTest {
  private static final Map<String, String> FOO_BAR = labels("foo", "bar");
  private static final List<Node> NODES = List.of(
      node("nodeA", "region", "r1", "zone", "z11"),
      node("nodeB", "region", "r1", "zone", "z12"),
      node("nodeC", "region", "r2", "zone", "z21"));
  private static final PodAffinityTerm[] ANTI_FOO_BAR = {term("region", in("foo", "bar"))};
  private static final PodAffinityTerm[] COMPLEX = {
      term("region", in("foo", "bar", "buzz")),
      term("zone", notIn("service", "bar", "security", "test"))};

  record Case(String name, Pod pending, List<Pod> existing, Pod added,
      Map<TopologyPair, Long> wantAntiAffinity, Map<TopologyPair, Long> wantAffinity) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static TopologyPair tp(String key, String value) {
    return new TopologyPair(key, value);
  }

  static Stream<Arguments> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(new Case("anti-affinity counts follow an added pod with the same anti-affinity",
        pod().name("pending").labels(FOO_BAR).antiAffinity(ANTI_FOO_BAR).obj(),
        List.of(pod().name("p1").labels(FOO_BAR).node("nodeA").obj(),
            pod().name("p2").node("nodeC").antiAffinity(ANTI_FOO_BAR).obj()),
        pod().name("addedPod").labels(FOO_BAR).node("nodeB").antiAffinity(ANTI_FOO_BAR).obj(),
        Map.of(tp("region", "r1"), 2L), Map.of()));
    cases.add(new Case("anti-affinity counts with several terms",
        pod().name("pending").labels(FOO_BAR).antiAffinity(COMPLEX).obj(),
        List.of(pod().name("p1").labels(FOO_BAR).node("nodeA").obj(),
            pod().name("p2").node("nodeC").antiAffinity(ANTI_FOO_BAR).obj()),
        pod().name("addedPod").labels(FOO_BAR).node("nodeA").antiAffinity(COMPLEX).obj(),
        Map.of(tp("region", "r1"), 2L, tp("zone", "z11"), 2L, tp("zone", "z21"), 1L), Map.of()));
    cases.add(new Case("affinity counts follow an added pod matching all terms",
        pod().name("pending").labels(FOO_BAR).affinity(COMPLEX).obj(),
        List.of(pod().name("p1").labels(FOO_BAR).node("nodeA").obj(),
            pod().name("p2").node("nodeC").antiAffinity(ANTI_FOO_BAR).affinity(COMPLEX).obj()),
        pod().name("addedPod").labels(FOO_BAR).node("nodeA").antiAffinity(COMPLEX).obj(),
        Map.of(), Map.of(tp("region", "r1"), 2L, tp("zone", "z11"), 2L)));
    return cases.stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void addPodMatchesFreshPreFilterAndRemovePodRestoresTheState(Case c) {
    List<Pod> all = new ArrayList<>(c.existing());
    all.add(c.added());
    PreFilterState withAdded = preFilter(c.pending(), nodeInfos(NODES, all)).state;

    Run before = preFilter(c.pending(), nodeInfos(NODES, c.existing()));
    PreFilterState original = before.state.copy();
    NodeInfo addedNode = before.infos.stream()
        .filter(n -> n.nodeName().equals(c.added().getSpec().getNodeName())).findFirst()
        .orElseThrow();
    PodInfo added = PodInfo.of(c.added());

    Status addStatus = before.plugin.addPod(before.cycle, c.pending(), added, addedNode);

    assertThat(addStatus.isSuccess()).isTrue();
    PreFilterState updated = before.cycle.readOrFail(PreFilterState.KEY, PreFilterState.class);
    assertThat(updated.antiAffinityCounts.asMap()).isEqualTo(c.wantAntiAffinity());
    assertThat(updated.affinityCounts.asMap()).isEqualTo(c.wantAffinity());
    assertCountsEqual(updated, withAdded);

    Status removeStatus = before.plugin.removePod(before.cycle, c.pending(), added, addedNode);

    assertThat(removeStatus.isSuccess()).isTrue();
    assertCountsEqual(before.cycle.readOrFail(PreFilterState.KEY, PreFilterState.class), original);
  }

  @Test
  void removingAnExistingPodMatchesPreFilterWithoutIt() {
    Pod pending = pod().labels(FOO_BAR).antiAffinity(COMPLEX).affinity(ANTI_FOO_BAR).obj();
    Pod victim = pod().labels(FOO_BAR).node("nodeB").antiAffinity(ANTI_FOO_BAR).obj();
    List<Pod> others = List.of(pod().labels(FOO_BAR).node("nodeA").obj(),
        pod().label("service", "x").node("nodeC").obj());
    List<Pod> all = new ArrayList<>(others);
    all.add(victim);
    Run withVictim = preFilter(pending, nodeInfos(NODES, all));
    PreFilterState without = preFilter(pending, nodeInfos(NODES, others)).state;

    withVictim.plugin.removePod(withVictim.cycle, pending, PodInfo.of(victim),
        withVictim.infos.get(1));

    assertCountsEqual(withVictim.cycle.readOrFail(PreFilterState.KEY, PreFilterState.class),
        without);
  }

  @Test
  void addPodOnACopiedStateLeavesTheOriginalUntouched() {
    Pod pending = pod().labels(FOO_BAR).antiAffinity(ANTI_FOO_BAR).obj();
    Run run = preFilter(pending, nodeInfos(NODES, List.of()));
    CycleState copy = run.cycle.copy();
    Pod added = pod().labels(FOO_BAR).node("nodeC").antiAffinity(ANTI_FOO_BAR).obj();

    run.plugin.addPod(copy, pending, PodInfo.of(added), run.infos.get(2));

    PreFilterState original = run.cycle.readOrFail(PreFilterState.KEY, PreFilterState.class);
    PreFilterState copied = copy.readOrFail(PreFilterState.KEY, PreFilterState.class);
    assertThat(original.antiAffinityCounts.isEmpty()).isTrue();
    assertThat(original.existingAntiAffinityCounts.isEmpty()).isTrue();
    assertThat(copied.antiAffinityCounts.asMap()).isEqualTo(Map.of(tp("region", "r2"), 1L));
    assertThat(copied.existingAntiAffinityCounts.asMap())
        .isEqualTo(Map.of(tp("region", "r2"), 1L));
    assertThat(run.plugin.filter(run.cycle, pending, run.infos.get(2)).isSuccess()).isTrue();
    assertThat(run.plugin.filter(copy, pending, run.infos.get(2)).isSuccess()).isFalse();
  }

  @Test
  void addPodWithoutPreFilterStateIsAnError() {
    List<NodeInfo> infos = nodeInfos(NODES, List.of());
    InterPodAffinity plugin = plugin(infos, Map.of());

    Status status = plugin.addPod(new CycleState(), pod().obj(),
        PodInfo.of(pod().node("nodeA").obj()), infos.get(0));

    assertThat(status).isEqualTo(Status.error(
        "error reading \"PreFilterInterPodAffinity\" from cycleState: not found"));
  }

  private static void assertCountsEqual(PreFilterState actual, PreFilterState expected) {
    assertThat(actual.existingAntiAffinityCounts).as("existingAntiAffinityCounts")
        .isEqualTo(expected.existingAntiAffinityCounts);
    assertThat(actual.affinityCounts).as("affinityCounts").isEqualTo(expected.affinityCounts);
    assertThat(actual.antiAffinityCounts).as("antiAffinityCounts")
        .isEqualTo(expected.antiAffinityCounts);
  }

  private record Run(InterPodAffinity plugin, CycleState cycle, List<NodeInfo> infos,
      PreFilterState state) {}

  private static Run preFilter(Pod pending, List<NodeInfo> infos) {
    InterPodAffinity plugin = plugin(infos, Map.of());
    CycleState cycle = new CycleState();
    Status status = plugin.preFilter(cycle, pending, infos).status();
    assertThat(status.isSuccess()).as("PreFilter %s", status).isTrue();
    return new Run(plugin, cycle, infos, cycle.readOrFail(PreFilterState.KEY,
        PreFilterState.class));
  }
}
