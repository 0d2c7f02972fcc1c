package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.PreFilterStateTest.assertState;
import static io.berth.plugins.podtopologyspread.PreFilterStateTest.want;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.UNSCHEDULABLE_TAINT;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.barSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.find;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.listPlugin;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.berth.plugins.podtopologyspread.PreFilterStateTest.Want;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** AddPod/RemovePod, from upstream's TestPreFilterStateAddPod and TestPreFilterStateRemovePod. */
class PodTopologySpreadAddRemovePodTest {

  record Case(String name, Pod preemptor, Pod changed, List<Pod> existing, String nodeName,
      List<Node> nodes, List<Want> want) {}

  static Pod foo(String name, String node) {
    return pod(name).node(node).label("foo", "").obj();
  }

  static Pod fooZone(String name, String node, String zone) {
    return pod(name).node(node).label("foo", "").label("zone", zone).obj();
  }

  static Node zoneNode(String name, String zone) {
    return node(name).label("zone", zone).label("node", name).obj();
  }

  static Pod nodePreemptor() {
    return pod("p").label("foo", "").spread(1, "node", DNS, fooSelector()).obj();
  }

  static Pod zonePreemptor() {
    return pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector()).obj();
  }

  static Pod zoneNodePreemptor() {
    return pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector())
        .spread(1, "node", DNS, fooSelector()).obj();
  }

  static List<Case> addCases() {
    List<Case> cases = new ArrayList<>();
    List<Node> ab = List.of(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"));
    cases.add(new Case("node a and b both impact current min match", nodePreemptor(),
        foo("p-a1", "node-a"), List.of(), "node-a", ab,
        List.of(want("node", Map.of("node-a", 1, "node-b", 0), "node-b", 0, "node-a", 1))));
    cases.add(new Case("only node a impacts current min match", nodePreemptor(),
        foo("p-a1", "node-a"), List.of(foo("p-b1", "node-b")), "node-a", ab,
        List.of(want("node", Map.of("node-a", 1, "node-b", 1), "node-a", 1, "node-b", 1))));
    cases.add(new Case("add a pod in a different namespace doesn't change counts",
        nodePreemptor(), pod("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(),
        List.of(foo("p-b1", "node-b")), "node-a", ab,
        List.of(want("node", Map.of("node-a", 0, "node-b", 1), "node-a", 0, "node-b", 1))));
    cases.add(new Case("add pod on non-critical node won't trigger re-calculation",
        nodePreemptor(), foo("p-b2", "node-b"), List.of(foo("p-b1", "node-b")), "node-b", ab,
        List.of(want("node", Map.of("node-a", 0, "node-b", 2), "node-a", 0, "node-b", 2))));
    List<Node> ax = List.of(zoneNode("node-a", "zone1"), zoneNode("node-x", "zone2"));
    cases.add(new Case("node a and x both impact the minimum on zone and node",
        zoneNodePreemptor(), foo("p-a1", "node-a"), List.of(), "node-a", ax,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 0), "zone2", 0, "zone1", 1),
            want("node", Map.of("node-a", 1, "node-x", 0), "node-x", 0, "node-a", 1))));
    cases.add(new Case("only node a impacts the minimum on zone and node", zoneNodePreemptor(),
        foo("p-a1", "node-a"), List.of(foo("p-x1", "node-x")), "node-a", ax,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 1), "zone1", 1, "zone2", 1),
            want("node", Map.of("node-a", 1, "node-x", 1), "node-a", 1, "node-x", 1))));
    List<Node> abx = List.of(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"),
        zoneNode("node-x", "zone2"));
    cases.add(new Case("node a impacts the node minimum, node x the zone minimum",
        zoneNodePreemptor(), foo("p-a1", "node-a"),
        List.of(foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-x1", "node-x")), "node-a",
        abx,
        List.of(want("zone", Map.of("zone1", 3, "zone2", 1), "zone2", 1, "zone1", 3),
            want("node", Map.of("node-a", 1, "node-b", 2, "node-x", 1), "node-a", 1, "node-x",
                1))));
    Pod fooBarPreemptor = pod("p").label("foo", "").label("bar", "")
        .spread(1, "zone", DNS, fooSelector()).spread(1, "node", DNS, barSelector()).obj();
    cases.add(new Case("different labelSelectors, node a impacts the zone minimum",
        fooBarPreemptor, foo("p-a1", "node-a"),
        List.of(pod("p-b1").node("node-b").label("foo", "").label("bar", "").obj(),
            pod("p-x1").node("node-x").label("foo", "").label("bar", "").obj(),
            pod("p-x2").node("node-x").label("bar", "").obj()),
        "node-a", abx,
        List.of(want("zone", Map.of("zone1", 2, "zone2", 1), "zone2", 1, "zone1", 2),
            want("node", Map.of("node-a", 0, "node-b", 1, "node-x", 2), "node-a", 0, "node-b",
                1))));
    cases.add(new Case("different labelSelectors, node a impacts both minimums",
        fooBarPreemptor, pod("p-a1").node("node-a").label("foo", "").label("bar", "").obj(),
        List.of(pod("p-b1").node("node-b").label("bar", "").obj(),
            pod("p-x1").node("node-x").label("foo", "").label("bar", "").obj(),
            pod("p-x2").node("node-x").label("bar", "").obj()),
        "node-a", abx,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 1), "zone1", 1, "zone2", 1),
            want("node", Map.of("node-a", 1, "node-b", 1, "node-x", 2), "node-a", 1, "node-b",
                1))));
    List<Node> fooBarNodes = List.of(
        node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
        node("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj());
    cases.add(new Case("add a pod when scheduling a node affinity unmatched pod",
        pod("p").label("foo", "").nodeAffinity("foo", "NotIn", "bar")
            .spread(1, "zone", DNS, fooSelector()).obj(),
        fooZone("p-a1", "node-a", "zone1"),
        List.of(fooZone("p-a2", "node-a", "zone1"), fooZone("p-b1", "node-b", "zone2")),
        "node-a", fooBarNodes,
        List.of(want("zone", Map.of("zone2", 1), "zone2", 1, "", Integer.MAX_VALUE))));
    cases.add(new Case("add a pod when scheduling a node affinity matched pod", zonePreemptor(),
        fooZone("p-b1", "node-b", "zone2"),
        List.of(fooZone("p-a1", "node-a", "zone1"), fooZone("p-b2", "node-b", "zone2")),
        "node-b", fooBarNodes,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 2), "zone1", 1, "zone2", 2))));
    cases.add(new Case("add a label selector not matched pod", zonePreemptor(),
        pod("p-b1").node("node-b").label("zone", "zone2").obj(),
        List.of(fooZone("p-a1", "node-a", "zone1"), fooZone("p-b2", "node-b", "zone2")),
        "node-b", fooBarNodes,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 1), "zone1", 1, "zone2", 1))));
    List<Node> taintedA = List.of(
        node("node-a").label("zone", "zone1").label("node", "node-a").taint(UNSCHEDULABLE_TAINT)
            .obj(),
        node("node-b").label("zone", "zone2").label("node", "node-b").obj());
    cases.add(new Case("add a pod when scheduling a taint tolerated pod",
        pod("p").label("foo", "").toleration("node.kubernetes.io/unschedulable")
            .spread(1, "zone", DNS, fooSelector()).obj(),
        fooZone("p-b1", "node-b", "zone2"),
        List.of(fooZone("p-a1", "node-a", "zone1"), fooZone("p-b2", "node-b", "zone2")),
        "node-b", taintedA,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 2), "zone1", 1, "zone2", 2))));
    return cases;
  }

  static List<Case> removeCases() {
    List<Case> cases = new ArrayList<>();
    List<Node> abx = List.of(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"),
        zoneNode("node-x", "zone2"));
    Pod pa1 = foo("p-a1", "node-a");
    cases.add(new Case("one spreadConstraint on zone, minimum unchanged", zonePreemptor(), pa1,
        List.of(pa1, foo("p-b1", "node-b"), foo("p-x1", "node-x")), "node-a", abx,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 1), "zone1", 1, "zone2", 1))));
    List<Node> abxy = List.of(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"),
        zoneNode("node-x", "zone2"), zoneNode("node-y", "zone2"));
    cases.add(new Case("one spreadConstraint on zone, minimum changed", zonePreemptor(), pa1,
        List.of(pa1, foo("p-b1", "node-b"), foo("p-x1", "node-x"), foo("p-y1", "node-y")),
        "node-a", abxy,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 2), "zone1", 1, "zone2", 2))));
    Pod pa0 = pod("p-a0").node("node-a").label("bar", "").obj();
    cases.add(new Case("delete an irrelevant pod won't help", zonePreemptor(), pa0,
        List.of(pa0, pa1, foo("p-b1", "node-b"), foo("p-x1", "node-x"), foo("p-y1", "node-y")),
        "node-a", abxy,
        List.of(want("zone", Map.of("zone1", 2, "zone2", 2), "zone1", 2, "zone2", 2))));
    cases.add(new Case("delete a non-existing pod won't help", zonePreemptor(), pa0,
        List.of(pa1, foo("p-b1", "node-b"), foo("p-x1", "node-x"), foo("p-y1", "node-y")),
        "node-a", abxy,
        List.of(want("zone", Map.of("zone1", 2, "zone2", 2), "zone1", 2, "zone2", 2))));
    Pod px1 = foo("p-x1", "node-x");
    cases.add(new Case("two spreadConstraints", zoneNodePreemptor(), px1,
        List.of(pa1, foo("p-a2", "node-a"), foo("p-b1", "node-b"), px1, foo("p-x2", "node-x")),
        "node-x", abx,
        List.of(want("zone", Map.of("zone1", 3, "zone2", 1), "zone2", 1, "zone1", 3),
            want("node", Map.of("node-a", 2, "node-b", 1, "node-x", 1), "node-b", 1, "node-x",
                1))));
    List<Node> fooBarNodes = List.of(
        node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
        node("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj());
    cases.add(new Case("remove a pod when scheduling a node affinity unmatched pod",
        pod("p").label("foo", "").nodeAffinity("foo", "NotIn", "bar")
            .spread(1, "zone", DNS, fooSelector()).obj(),
        fooZone("p-a1", "node-a", "zone1"),
        List.of(fooZone("p-a2", "node-a", "zone1"), fooZone("p-b1", "node-b", "zone2")),
        "node-a", fooBarNodes,
        List.of(want("zone", Map.of("zone2", 1), "zone2", 1, "", Integer.MAX_VALUE))));
    cases.add(new Case("remove a pod when scheduling a node affinity matched pod",
        zonePreemptor(), fooZone("p-b1", "node-b", "zone2"),
        List.of(fooZone("p-a1", "node-a", "zone1"), fooZone("p-b2", "node-b", "zone2")),
        "node-b", fooBarNodes,
        List.of(want("zone", Map.of("zone1", 1, "zone2", 0), "zone2", 0, "zone1", 1))));
    return cases;
  }

  @TestFactory
  Stream<DynamicTest> addPodUpdatesCountsAndCriticalPaths() {
    return addCases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c, true)));
  }

  @TestFactory
  Stream<DynamicTest> removePodUpdatesCountsAndCriticalPaths() {
    return removeCases().stream()
        .map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c, false)));
  }

  private static void run(Case c, boolean add) {
    List<NodeInfo> infos = nodeInfos(c.nodes(), c.existing());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, c.preemptor(), infos).status().isSuccess()).isTrue();
    PreFilterExtensions ext = plugin.preFilterExtensions().orElseThrow();
    NodeInfo nodeInfo = find(infos, c.nodeName());
    Status status = add ? ext.addPod(state, c.preemptor(), PodInfo.of(c.changed()), nodeInfo)
        : ext.removePod(state, c.preemptor(), PodInfo.of(c.changed()), nodeInfo);
    assertThat(status).isEqualTo(Status.SUCCESS);
    assertState(state.readOrFail(PreFilterState.KEY, PreFilterState.class), c.want());
  }

  @Test
  void removingTheBlockingPodsMakesTheNodeFeasibleAgain() {
    // Preemption's view: node-a holds 2 matching pods while node-b holds none.
    Pod a1 = foo("p-a1", "node-a");
    Pod a2 = foo("p-a2", "node-a");
    List<NodeInfo> infos = nodeInfos(List.of(zoneNode("node-a", "zone1"),
        zoneNode("node-b", "zone2")), List.of(a1, a2));
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Pod pod = nodePreemptor();
    CycleState state = new CycleState();
    plugin.preFilter(state, pod, infos);
    NodeInfo nodeA = find(infos, "node-a");
    assertThat(plugin.filter(state, pod, nodeA).code()).isEqualTo(Code.UNSCHEDULABLE);

    CycleState simulated = state.copy();
    PreFilterExtensions ext = plugin.preFilterExtensions().orElseThrow();
    ext.removePod(simulated, pod, PodInfo.of(a1), nodeA);
    ext.removePod(simulated, pod, PodInfo.of(a2), nodeA);
    assertThat(plugin.filter(simulated, pod, nodeA)).isEqualTo(Status.SUCCESS);
    // The original cycle state is untouched by the simulation on its copy.
    assertThat(plugin.filter(state, pod, nodeA).code()).isEqualTo(Code.UNSCHEDULABLE);
  }

  @Test
  void addPodWithoutPreFilterStateIsAnError() {
    List<NodeInfo> infos = nodeInfos(List.of(zoneNode("node-a", "zone1")), List.of());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Status status = plugin.preFilterExtensions().orElseThrow().addPod(new CycleState(),
        nodePreemptor(), PodInfo.of(foo("x", "node-a")), infos.get(0));
    assertThat(status.code()).isEqualTo(Code.ERROR);
  }
}
