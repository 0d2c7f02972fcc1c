package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HONOR;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.IGNORE;
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
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Filter outcomes per node, from upstream's TestSingleConstraint and TestMultipleConstraints. */
class PodTopologySpreadFilterTest {
  private static final Code OK = Code.SUCCESS;
  private static final Code NO = Code.UNSCHEDULABLE;
  private static final Code NEVER = Code.UNSCHEDULABLE_AND_UNRESOLVABLE;

  record Case(String name, Pod pod, List<Node> nodes, List<Pod> existing, Map<String, Code> want) {
  }

  static Map<String, Code> codes(Object... kv) {
    Map<String, Code> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Code) kv[i + 1]);
    }
    return m;
  }

  static Pod foo(String name, String node) {
    return pod(name).node(node).label("foo", "").obj();
  }

  static Pod bar(String name, String node) {
    return pod(name).node(node).label("bar", "").obj();
  }

  static Pod fooBar(String name, String node) {
    return pod(name).node(node).label("foo", "").label("bar", "").obj();
  }

  static List<Node> fourNodes() {
    return PreFilterStateTest.fourNodes();
  }

  static List<Node> nodeLabelled(String... names) {
    List<Node> out = new ArrayList<>();
    for (String n : names) {
      out.add(node(n).label("node", n).obj());
    }
    return out;
  }

  static List<Pod> spread2103() {
    return List.of(foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b"),
        foo("p-y1", "node-y"), foo("p-y2", "node-y"), foo("p-y3", "node-y"));
  }

  static Pod fooPod() {
    return pod("p").label("foo", "").obj();
  }

  static List<Case> singleConstraint() {
    List<Case> cases = new ArrayList<>();
    Pod zoneFoo = pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector()).obj();
    cases.add(new Case("no existing pods", zoneFoo, fourNodes(), List.of(),
        codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", OK)));
    cases.add(new Case("no existing pods, incoming pod doesn't match itself",
        pod("p").label("foo", "").spread(1, "zone", DNS, barSelector()).obj(), fourNodes(),
        List.of(), codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", OK)));
    cases.add(new Case("existing pods in a different namespace do not count", zoneFoo,
        fourNodes(),
        List.of(pod("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(),
            pod("p-b1").namespace("ns2").node("node-a").label("foo", "").obj(),
            foo("p-x1", "node-x"), foo("p-y1", "node-y")),
        codes("node-a", OK, "node-b", OK, "node-x", NO, "node-y", NO)));
    cases.add(new Case("existing pods do not match null selector",
        pod("p").label("foo", "").spread(1, "zone", DNS, null).obj(), fourNodes(),
        List.of(foo("p-x1", "node-x"), foo("p-y1", "node-y")),
        codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", OK)));
    cases.add(new Case("existing pods are not counted by an empty selector, so no zone is skewed",
        pod("p").label("foo", "").spread(1, "zone", DNS, new LabelSelectorBuilder().build()).obj(),
        fourNodes(),
        List.of(foo("p-x1", "node-x"), foo("p-x2", "node-x"), foo("p-y1", "node-y")),
        codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", OK)));
    cases.add(new Case("pods spread across zones as 3/3, all nodes fit", zoneFoo, fourNodes(),
        spread2103(), codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", OK)));
    cases.add(new Case("pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        zoneFoo,
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
            node("node-b").label("zon", "zone1").label("node", "node-b").obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").obj(),
            node("node-y").label("zone", "zone2").label("node", "node-y").obj()),
        List.of(foo("p-a1", "node-a"), foo("p-b1", "node-b"), foo("p-x1", "node-x"),
            foo("p-y1", "node-y")),
        codes("node-a", OK, "node-b", NEVER, "node-x", NO, "node-y", NO)));
    cases.add(new Case("pod cannot be scheduled as all nodes don't have label 'rack'",
        pod("p").label("foo", "").spread(1, "rack", DNS, fooSelector()).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").obj()),
        List.of(), codes("node-a", NEVER, "node-x", NEVER)));
    cases.add(new Case("pods spread across nodes as 2/1/0/3, only node-x fits",
        pod("p").label("foo", "").spread(1, "node", DNS, fooSelector()).obj(), fourNodes(),
        spread2103(), codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    cases.add(new Case("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        pod("p").label("foo", "").spread(2, "node", DNS, fooSelector()).obj(), fourNodes(),
        spread2103(), codes("node-a", NO, "node-b", OK, "node-x", OK, "node-y", NO)));
    cases.add(new Case("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        pod("p").label("bar", "").spread(1, "node", DNS, fooSelector()).obj(), fourNodes(),
        spread2103(), codes("node-a", NO, "node-b", OK, "node-x", OK, "node-y", NO)));
    cases.add(new Case(
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        pod("p").label("foo", "").nodeAffinity("node", "In", "node-a", "node-y")
            .spread(1, "node", DNS, fooSelector()).obj(), fourNodes(), spread2103(),
        codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", NO)));
    cases.add(new Case("terminating Pods should be excluded",
        pod("p").label("foo", "").spread(1, "node", DNS, fooSelector()).obj(),
        nodeLabelled("node-a", "node-b"),
        List.of(pod("p-a").node("node-a").label("foo", "").terminating().obj(),
            foo("p-b", "node-b")),
        codes("node-a", OK, "node-b", NO)));
    cases.add(new Case("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        pod("p").label("foo", "").nodeAffinity("node", "NotIn", "node-b")
            .spread(1, "zone", DNS, fooSelector()).obj(), fourNodes(),
        List.of(foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-y1", "node-y")),
        codes("node-a", OK, "node-b", OK, "node-x", NO, "node-y", NO)));
    List<Pod> spread221 = List.of(foo("p-a1", "node-a"), foo("p-a2", "node-a"),
        foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-c1", "node-c"));
    cases.add(new Case("pods spread as 2/2/1, maxSkew 2, domains < minDomains: third node fits",
        pod("p").label("foo", "").spread(2, "node", DNS, fooSelector(), 4, null, null).obj(),
        nodeLabelled("node-a", "node-b", "node-c"), spread221,
        codes("node-a", NO, "node-b", NO, "node-c", OK)));
    cases.add(new Case("pods spread as 2/2/1, maxSkew 2, domains > minDomains: all nodes fit",
        pod("p").label("foo", "").spread(2, "node", DNS, fooSelector(), 2, null, null).obj(),
        nodeLabelled("node-a", "node-b", "node-c"), spread221,
        codes("node-a", OK, "node-b", OK, "node-c", OK)));
    List<Pod> zone21 = List.of(foo("p-b1", "node-a"), foo("p-b2", "node-b"),
        foo("p-y1", "node-y"));
    cases.add(new Case("zones as 2/1, maxSkew 2, domains < minDomains: zone2 nodes fit",
        pod("p").label("foo", "").spread(2, "zone", DNS, fooSelector(), 3, null, null).obj(),
        fourNodes(), zone21, codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", OK)));
    cases.add(new Case("zones as 2/1, maxSkew 2, domains > minDomains: all nodes fit",
        pod("p").label("foo", "").spread(2, "zone", DNS, fooSelector(), 1, null, null).obj(),
        fourNodes(), zone21, codes("node-a", OK, "node-b", OK, "node-x", OK, "node-y", OK)));
    List<Node> fooNodes = List.of(node("node-a").label("node", "node-a").label("foo", "").obj(),
        node("node-b").label("node", "node-b").label("foo", "").obj(),
        node("node-x").label("node", "node-x").label("foo", "").obj(),
        node("node-y").label("node", "node-y").obj());
    List<Pod> abY = List.of(foo("p-b1", "node-a"), foo("p-b2", "node-b"), foo("p-y1", "node-y"));
    cases.add(new Case("NodeAffinityPolicy honored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "").spread(1, "node", DNS, fooSelector())
            .obj(), fooNodes, abY,
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", OK)));
    cases.add(new Case("NodeAffinityPolicy ignored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "node", DNS, fooSelector(), null, IGNORE, null).obj(), fooNodes, abY,
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    cases.add(new Case("NodeAffinityPolicy honored with nodeAffinity",
        pod("p").label("foo", "").nodeAffinity("foo", "In", "")
            .spread(1, "node", DNS, fooSelector()).obj(), fooNodes, abY,
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", OK)));
    cases.add(new Case("NodeAffinityPolicy ignored with nodeAffinity",
        pod("p").label("foo", "").nodeAffinity("foo", "In", "")
            .spread(1, "node", DNS, fooSelector(), null, IGNORE, null).obj(), fooNodes, abY,
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    List<Node> taintedY = List.of(node("node-a").label("node", "node-a").label("foo", "").obj(),
        node("node-b").label("node", "node-b").label("foo", "").obj(),
        node("node-x").label("node", "node-x").label("foo", "").obj(),
        node("node-y").label("node", "node-y").taint(UNSCHEDULABLE_TAINT).obj());
    cases.add(new Case("NodeTaintsPolicy honored",
        pod("p").label("foo", "").spread(1, "node", DNS, fooSelector(), null, null, HONOR).obj(),
        taintedY, abY, codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", OK)));
    cases.add(new Case("NodeTaintsPolicy ignored",
        pod("p").label("foo", "").spread(1, "node", DNS, fooSelector()).obj(), taintedY, abY,
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    return cases;
  }

  static List<Case> multipleConstraints() {
    List<Case> cases = new ArrayList<>();
    Pod zoneNodeFoo = pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector())
        .spread(1, "node", DNS, fooSelector()).obj();
    Pod zoneFooNodeBar = pod("p").label("foo", "").label("bar", "")
        .spread(1, "zone", DNS, fooSelector()).spread(1, "node", DNS, barSelector()).obj();
    cases.add(new Case("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]", zoneNodeFoo,
        fourNodes(), spread2103(), codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    List<Pod> spread2104 = new ArrayList<>(spread2103());
    spread2104.add(foo("p-y4", "node-y"));
    cases.add(new Case("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]", zoneNodeFoo,
        fourNodes(), spread2104, codes("node-a", NO, "node-b", NO, "node-x", NO, "node-y", NO)));
    cases.add(new Case("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        zoneFooNodeBar, fourNodes(), List.of(foo("p-a1", "node-a"), bar("p-y1", "node-y")),
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    cases.add(new Case("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        zoneFooNodeBar, fourNodes(),
        List.of(foo("p-a1", "node-a"), bar("p-x1", "node-x"), bar("p-y1", "node-y")),
        codes("node-a", NO, "node-b", NO, "node-x", NO, "node-y", NO)));
    cases.add(new Case("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        zoneFooNodeBar, fourNodes(),
        List.of(foo("p-a1", "node-a"), fooBar("p-a2", "node-a"), foo("p-y1", "node-y"),
            fooBar("p-y2", "node-y"), foo("p-y3", "node-y")),
        codes("node-a", NO, "node-b", OK, "node-x", NO, "node-y", NO)));
    cases.add(new Case("different labelSelectors but pod doesn't match itself on 'zone'",
        pod("p").label("bar", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, barSelector()).obj(), fourNodes(),
        List.of(foo("p-a1", "node-a"), bar("p-x1", "node-x"), bar("p-y1", "node-y")),
        codes("node-a", OK, "node-b", OK, "node-x", NO, "node-y", NO)));
    cases.add(new Case("absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
        zoneNodeFoo,
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b").obj(),
            node("node-x").label("zone", "zone2").obj(),
            node("node-y").label("zone", "zone2").label("node", "node-y").obj()),
        List.of(foo("p-a1", "node-a"), foo("p-y3", "node-y")),
        codes("node-a", NO, "node-b", OK, "node-x", NEVER, "node-y", NO)));
    List<Pod> aby = List.of(foo("p-a1", "node-a"), foo("p-b1", "node-b"), foo("p-y1", "node-y"));
    cases.add(new Case("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        pod("p").label("foo", "").nodeSelector("foo", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, fooSelector(), null, IGNORE, null).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "")
                .obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "")
                .obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "")
                .obj(),
            node("node-y").label("zone", "zone2").label("node", "node-y").obj()),
        aby, codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    cases.add(new Case("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector(), null, null, HONOR)
            .spread(1, "node", DNS, fooSelector()).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "")
                .obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "")
                .obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "")
                .obj(),
            node("node-y").label("zone", "zone2").label("node", "node-y")
                .taint(UNSCHEDULABLE_TAINT).obj()),
        aby, codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    List<Node> mixed = List.of(
        node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(),
        node("node-b").label("zone", "zone1").label("node", "node-b").obj(),
        node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(),
        node("node-y").label("zone", "zone2").label("node", "node-y").label("foo", "")
            .taint(UNSCHEDULABLE_TAINT).obj());
    cases.add(new Case("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        pod("p").label("foo", "").nodeSelector("foo", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, fooSelector()).obj(), mixed, aby,
        codes("node-a", NO, "node-b", OK, "node-x", OK, "node-y", NO)));
    cases.add(new Case("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "zone", DNS, fooSelector(), null, null, HONOR)
            .spread(1, "node", DNS, fooSelector(), null, IGNORE, null).obj(), mixed, aby,
        codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", NO)));
    Pod twoZone = pod("p").label("foo", "").label("bar", "").spread(1, "zone", DNS, barSelector())
        .spread(1, "zone", DNS, fooSelector()).obj();
    List<Pod> zonePods = new ArrayList<>(List.of(fooBar("p-a1", "node-a"), foo("p-a2", "node-a"),
        fooBar("p-b1", "node-b"), foo("p-y1", "node-y"), fooBar("p-y2", "node-y"),
        foo("p-y3", "node-y")));
    cases.add(new Case("two Constraints on zone, spreads = [3/3, 2/1]", twoZone, fourNodes(),
        List.copyOf(zonePods), codes("node-a", NO, "node-b", NO, "node-x", OK, "node-y", OK)));
    zonePods.add(foo("p-y4", "node-y"));
    cases.add(new Case("two Constraints on zone, spreads = [3/4, 2/1]", twoZone, fourNodes(),
        zonePods, codes("node-a", NO, "node-b", NO, "node-x", NO, "node-y", NO)));
    return cases;
  }

  @TestFactory
  Stream<DynamicTest> singleConstraintFiltersEveryNode() {
    return singleConstraint().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)));
  }

  @TestFactory
  Stream<DynamicTest> multipleConstraintsFilterEveryNode() {
    return multipleConstraints().stream()
        .map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)));
  }

  private static void run(Case c) {
    List<NodeInfo> infos = nodeInfos(c.nodes(), c.existing());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, c.pod(), infos).status().isSuccess()).isTrue();
    for (Map.Entry<String, Code> e : c.want().entrySet()) {
      Status status = plugin.filter(state, c.pod(), find(infos, e.getKey()));
      assertThat(status.code()).as("node %s: %s", e.getKey(), status).isEqualTo(e.getValue());
    }
  }

  @Test
  void rejectionsCarryUpstreamReasons() {
    List<Node> nodes = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj(), node("node-c").label("zone", "z").obj());
    List<NodeInfo> infos = nodeInfos(nodes, List.of(foo("p-a1", "node-a"),
        foo("p-a2", "node-a")));
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Pod pod = pod("p").label("foo", "").spread(1, "node", DNS, fooSelector()).obj();
    CycleState state = new CycleState();
    plugin.preFilter(state, pod, infos);

    assertThat(plugin.filter(state, pod, find(infos, "node-a")))
        .isEqualTo(Status.unschedulable("node(s) didn't match pod topology spread constraints"));
    assertThat(plugin.filter(state, pod, find(infos, "node-b"))).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(state, pod, find(infos, "node-c"))).isEqualTo(Status.unresolvable(
        "node(s) didn't match pod topology spread constraints (missing required label)"));
  }

  @Test
  void filterWithoutPreFilterStateIsAnError() {
    List<NodeInfo> infos = nodeInfos(nodeLabelled("node-a"), List.of());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Status status = plugin.filter(new CycleState(), fooPod(), infos.get(0));
    assertThat(status.code()).isEqualTo(Code.ERROR);
    assertThat(status.message()).isEqualTo(
        "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  }

  @Test
  void constraintWithMissingKeyOnLaterConstraintStillFailsSkewFirst() {
    // Constraints are checked in order: the skew failure on "zone" wins over the missing "node"
    // label. node-a itself is not counted (it lacks a key) but its zone is, through node-c.
    List<Node> nodes = List.of(node("node-a").label("zone", "z1").obj(),
        node("node-b").label("zone", "z2").label("node", "node-b").obj(),
        node("node-c").label("zone", "z1").label("node", "node-c").obj());
    List<NodeInfo> infos = nodeInfos(nodes, List.of(foo("p1", "node-c"), foo("p2", "node-c")));
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Pod pod = pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector())
        .spread(1, "node", DNS, fooSelector()).obj();
    CycleState state = new CycleState();
    plugin.preFilter(state, pod, infos);
    assertThat(plugin.filter(state, pod, find(infos, "node-a")).code()).isEqualTo(NO);
  }
}
