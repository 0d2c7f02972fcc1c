package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HONOR;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.IGNORE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.UNSCHEDULABLE_TAINT;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.barSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.matchLabels;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** PreFilter's counts and critical paths, translated from upstream's TestPreFilterState. */
class PreFilterStateTest {

  /** Expected counts and critical paths of one constraint. */
  record Want(String key, Map<String, Integer> counts, String v0, int n0, String v1, int n1) {}

  record Case(String name, Pod pod, List<Node> nodes, List<Pod> existing,
      List<Map<String, Object>> defaults, List<HasMetadata> objs, Status wantStatus,
      List<Want> want) {}

  static Want want(String key, Map<String, Integer> counts, String v0, int n0, String v1,
      int n1) {
    return new Want(key, counts, v0, n0, v1, n1);
  }

  static Want emptyWant(String key) {
    return new Want(key, Map.of(), "", Integer.MAX_VALUE, "", Integer.MAX_VALUE);
  }

  static List<Node> fourNodes() {
    return List.of(
        node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
        node("node-b").label("zone", "zone1").label("node", "node-b").obj(),
        node("node-x").label("zone", "zone2").label("node", "node-x").obj(),
        node("node-y").label("zone", "zone2").label("node", "node-y").obj());
  }

  static List<Node> threeNodesAby() {
    return List.of(
        node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
        node("node-b").label("zone", "zone1").label("node", "node-b").obj(),
        node("node-y").label("zone", "zone2").label("node", "node-y").obj());
  }

  static Pod foo(String name, String node) {
    return pod(name).node(node).label("foo", "").obj();
  }

  static List<Pod> sevenPods() {
    return List.of(foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b"),
        foo("p-y1", "node-y"), foo("p-y2", "node-y"), foo("p-y3", "node-y"),
        foo("p-y4", "node-y"));
  }

  static Case simple(String name, Pod pod, List<Node> nodes, List<Pod> existing, Want... want) {
    return new Case(name, pod, nodes, existing, List.of(), List.of(), Status.SUCCESS,
        List.of(want));
  }

  static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(simple("clean cluster with one spreadConstraint",
        pod("p").label("foo", "").spread(5, "zone", DNS, matchLabels("foo", "bar")).obj(),
        fourNodes(), List.of(),
        want("zone", Map.of("zone1", 0, "zone2", 0), "zone1", 0, "zone2", 0)));
    List<Pod> fivePods = List.of(foo("p-a1", "node-a"), foo("p-a2", "node-a"),
        foo("p-b1", "node-b"), foo("p-y1", "node-y"), foo("p-y2", "node-y"));
    cases.add(simple("normal case with one spreadConstraint",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector()).obj(), fourNodes(),
        fivePods, want("zone", Map.of("zone1", 3, "zone2", 2), "zone2", 2, "zone1", 3)));
    cases.add(simple("normal case with null label selector",
        pod("p").label("foo", "").spread(1, "zone", DNS, null).obj(), fourNodes(), fivePods,
        want("zone", Map.of("zone1", 0, "zone2", 0), "zone2", 0, "zone1", 0)));
    List<Node> sixNodes = new ArrayList<>(fourNodes());
    sixNodes.add(node("node-o").label("zone", "zone3").label("node", "node-o").obj());
    sixNodes.add(node("node-p").label("zone", "zone3").label("node", "node-p").obj());
    cases.add(simple("normal case with one spreadConstraint, on a 3-zone cluster",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector()).obj(), sixNodes,
        fivePods,
        want("zone", Map.of("zone1", 3, "zone2", 2, "zone3", 0), "zone3", 0, "zone2", 2)));
    cases.add(simple("namespace mismatch doesn't count",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector()).obj(), fourNodes(),
        List.of(foo("p-a1", "node-a"),
            pod("p-a2").namespace("ns1").node("node-a").label("foo", "").obj(),
            foo("p-b1", "node-b"),
            pod("p-y1").namespace("ns2").node("node-y").label("foo", "").obj(),
            foo("p-y2", "node-y")),
        want("zone", Map.of("zone1", 2, "zone2", 1), "zone2", 1, "zone1", 2)));
    cases.add(simple("normal case with two spreadConstraints",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, fooSelector()).obj(),
        fourNodes(), sevenPods(),
        want("zone", Map.of("zone1", 3, "zone2", 4), "zone1", 3, "zone2", 4),
        want("node", Map.of("node-a", 2, "node-b", 1, "node-x", 0, "node-y", 4),
            "node-x", 0, "node-b", 1)));
    cases.add(simple("soft spreadConstraints should be bypassed",
        pod("p").label("foo", "").spread(1, "zone", ANYWAY, fooSelector())
            .spread(1, "zone", DNS, fooSelector()).spread(1, "node", ANYWAY, fooSelector())
            .spread(1, "node", DNS, fooSelector()).obj(),
        threeNodesAby(), sevenPods(),
        want("zone", Map.of("zone1", 3, "zone2", 4), "zone1", 3, "zone2", 4),
        want("node", Map.of("node-a", 2, "node-b", 1, "node-y", 4), "node-b", 1, "node-a", 2)));
    cases.add(simple("different labelSelectors - simple version",
        pod("p").label("foo", "").label("bar", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, barSelector()).obj(),
        threeNodesAby(),
        List.of(foo("p-a", "node-a"), pod("p-b").node("node-b").label("bar", "").obj()),
        want("zone", Map.of("zone1", 1, "zone2", 0), "zone2", 0, "zone1", 1),
        want("node", Map.of("node-a", 0, "node-b", 1, "node-y", 0), "node-a", 0, "node-y", 0)));
    cases.add(simple("different labelSelectors - complex pods",
        pod("p").label("foo", "").label("bar", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, barSelector()).obj(),
        threeNodesAby(),
        List.of(foo("p-a1", "node-a"),
            pod("p-a2").node("node-a").label("foo", "").label("bar", "").obj(),
            foo("p-b1", "node-b"), foo("p-y1", "node-y"),
            pod("p-y2").node("node-y").label("foo", "").label("bar", "").obj(),
            foo("p-y3", "node-y"),
            pod("p-y4").node("node-y").label("foo", "").label("bar", "").obj()),
        want("zone", Map.of("zone1", 3, "zone2", 4), "zone1", 3, "zone2", 4),
        want("node", Map.of("node-a", 1, "node-b", 0, "node-y", 2), "node-b", 0, "node-a", 1)));
    cases.add(simple("two spreadConstraints, and with podAffinity",
        pod("p").label("foo", "").nodeAffinity("node", "NotIn", "node-x")
            .spread(1, "zone", DNS, fooSelector()).spread(1, "node", DNS, fooSelector()).obj(),
        fourNodes(), sevenPods(),
        want("zone", Map.of("zone1", 3, "zone2", 4), "zone1", 3, "zone2", 4),
        want("node", Map.of("node-a", 2, "node-b", 1, "node-y", 4), "node-b", 1, "node-a", 2)));
    Service fooBar = new ServiceBuilder().withNewMetadata().withName("svc")
        .withNamespace("default").endMetadata().withNewSpec().addToSelector("foo", "bar")
        .endSpec().build();
    cases.add(new Case("default constraints and a service",
        pod("p").label("foo", "bar").label("baz", "kar").obj(), List.of(), List.of(),
        List.of(constraint(3, "node", DNS), constraint(2, "node", ANYWAY),
            constraint(5, "rack", DNS)),
        List.of(fooBar), Status.SUCCESS, List.of(emptyWant("node"), emptyWant("rack"))));
    cases.add(new Case("default constraints and a service that doesn't match",
        pod("p").label("foo", "bar").obj(), List.of(), List.of(),
        List.of(constraint(3, "node", DNS)),
        List.of(new ServiceBuilder().withNewMetadata().withName("svc").withNamespace("default")
            .endMetadata().withNewSpec().addToSelector("baz", "kep").endSpec().build()),
        Status.skip(), List.of()));
    cases.add(new Case("default constraints and a service, but pod has constraints",
        pod("p").label("foo", "bar").label("baz", "tar")
            .spread(1, "zone", DNS, matchLabels("baz", "tar"))
            .spread(2, "planet", ANYWAY, matchLabels("fot", "rok")).obj(),
        List.of(), List.of(), List.of(constraint(2, "node", DNS)), List.of(fooBar),
        Status.SUCCESS, List.of(emptyWant("zone"))));
    cases.add(new Case("default soft constraints and a service",
        pod("p").label("foo", "bar").obj(), List.of(), List.of(),
        List.of(constraint(2, "node", ANYWAY)), List.of(fooBar), Status.skip(), List.of()));
    List<Node> affinityNodes = List.of(
        node("node-a").label("node", "node-a").label("foo", "").obj(),
        node("node-b").label("node", "node-b").label("foo", "").obj(),
        node("node-c").label("node", "node-c").label("bar", "").obj());
    List<Pod> barPods = List.of(pod("p-a").node("node-a").label("bar", "").obj(),
        pod("p-b").node("node-b").label("bar", "").obj(),
        pod("p-c").node("node-b").label("bar", "").obj(), pod("p-d").node("node-c").obj());
    cases.add(simple("NodeAffinityPolicy honored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "").spread(1, "node", DNS, barSelector())
            .obj(), affinityNodes, barPods,
        want("node", Map.of("node-a", 1, "node-b", 2), "node-a", 1, "node-b", 2)));
    cases.add(simple("NodeAffinityPolicy ignored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "node", DNS, barSelector(), null, IGNORE, null).obj(), affinityNodes,
        barPods,
        want("node", Map.of("node-a", 1, "node-b", 2, "node-c", 0), "node-c", 0, "node-a", 1)));
    cases.add(simple("NodeAffinityPolicy honored with nodeAffinity",
        pod("p").label("foo", "").nodeAffinity("foo", "In", "")
            .spread(1, "node", DNS, barSelector()).obj(), affinityNodes, barPods,
        want("node", Map.of("node-a", 1, "node-b", 2), "node-a", 1, "node-b", 2)));
    cases.add(simple("NodeAffinityPolicy ignored with nodeAffinity",
        pod("p").label("foo", "").nodeAffinity("foo", "In", "")
            .spread(1, "node", DNS, barSelector(), null, IGNORE, null).obj(), affinityNodes,
        barPods,
        want("node", Map.of("node-a", 1, "node-b", 2, "node-c", 0), "node-c", 0, "node-a", 1)));
    List<Node> taintNodes = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj(),
        node("node-c").label("node", "node-c").taint(UNSCHEDULABLE_TAINT).label("bar", "").obj());
    cases.add(simple("NodeTaintsPolicy ignored",
        pod("p").label("foo", "").spread(1, "node", DNS, barSelector()).obj(), taintNodes,
        barPods,
        want("node", Map.of("node-a", 1, "node-b", 2, "node-c", 0), "node-c", 0, "node-a", 1)));
    cases.add(simple("NodeTaintsPolicy honored",
        pod("p").label("foo", "").spread(1, "node", DNS, barSelector(), null, null, HONOR)
            .obj(), taintNodes, barPods,
        want("node", Map.of("node-a", 1, "node-b", 2), "node-a", 1, "node-b", 2)));
    cases.add(simple("NodeTaintsPolicy honored with tolerated taints",
        pod("p").label("foo", "").toleration("node.kubernetes.io/unschedulable")
            .spread(1, "node", DNS, barSelector(), null, null, HONOR).obj(), taintNodes, barPods,
        want("node", Map.of("node-a", 1, "node-b", 2, "node-c", 0), "node-c", 0, "node-a", 1)));
    cases.add(simple("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        pod("p").label("foo", "").nodeSelector("foo", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, fooSelector(), null, IGNORE, null).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "")
                .obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b").obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "")
                .obj()),
        List.of(foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-x1", "node-x")),
        want("zone", Map.of("zone1", 0, "zone2", 1), "zone1", 0, "zone2", 1),
        want("node", Map.of("node-a", 0, "node-b", 2, "node-x", 1), "node-a", 0, "node-x", 1)));
    cases.add(simple("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector(), null, null, HONOR)
            .spread(1, "node", DNS, fooSelector()).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "")
                .obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b")
                .taint(UNSCHEDULABLE_TAINT).obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "")
                .obj()),
        List.of(foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-x1", "node-x")),
        want("zone", Map.of("zone1", 0, "zone2", 1), "zone1", 0, "zone2", 1),
        want("node", Map.of("node-a", 0, "node-b", 2, "node-x", 1), "node-a", 0, "node-x", 1)));
    cases.add(simple("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        pod("p").label("foo", "").nodeSelector("foo", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "node", DNS, fooSelector()).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "")
                .taint(UNSCHEDULABLE_TAINT).obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "")
                .obj(),
            node("node-y").label("zone", "zone2").label("node", "node-y").obj()),
        List.of(foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-x1", "node-x"),
            foo("p-y1", "node-y")),
        want("zone", Map.of("zone1", 0, "zone2", 1), "zone1", 0, "zone2", 1),
        want("node", Map.of("node-b", 0, "node-x", 1), "node-b", 0, "node-x", 1)));
    cases.add(simple("two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "zone", DNS, fooSelector(), null, IGNORE, null)
            .spread(1, "node", DNS, fooSelector(), null, null, HONOR).obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").obj(),
            node("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "")
                .taint(UNSCHEDULABLE_TAINT).obj(),
            node("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "")
                .obj(),
            node("node-y").label("zone", "zone2").label("node", "node-y").label("foo", "")
                .obj()),
        List.of(foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-x1", "node-x"),
            foo("p-x2", "node-x"), foo("p-y1", "node-y")),
        want("zone", Map.of("zone1", 2, "zone2", 3), "zone1", 2, "zone2", 3),
        want("node", Map.of("node-x", 2, "node-y", 1), "node-y", 1, "node-x", 2)));
    cases.add(simple("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        pod("p").label("foo", "").label("bar", "a")
            .spread(1, "zone", DNS, fooSelector(), null, null, null, "bar").obj(),
        fourNodes(),
        List.of(foo("p-a1", "node-a"),
            pod("p-a2").node("node-a").label("foo", "").label("bar", "a").obj(),
            foo("p-b1", "node-b"),
            pod("p-y1").node("node-y").label("foo", "").label("bar", "a").obj(),
            pod("p-y2").node("node-y").label("bar", "").obj()),
        want("zone", Map.of("zone1", 1, "zone2", 1), "zone2", 1, "zone1", 1)));
    List<Pod> fooA = List.of(pod("p-a1").node("node-a").label("foo", "a").obj(),
        pod("p-a2").node("node-a").label("foo", "a").obj(),
        pod("p-b1").node("node-b").label("foo", "a").obj(),
        pod("p-y1").node("node-y").label("foo", "a").obj(),
        pod("p-y2").node("node-y").label("foo", "a").obj());
    cases.add(simple("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        pod("p").label("foo", "a")
            .spread(1, "zone", DNS, new LabelSelectorBuilder().build(), null, null, null, "foo")
            .obj(), fourNodes(), fooA,
        want("zone", Map.of("zone1", 3, "zone2", 2), "zone2", 2, "zone1", 3)));
    cases.add(simple("key in matchLabelKeys is ignored when LabelSelector is nil",
        pod("p").label("foo", "").spread(1, "zone", DNS, null, null, null, null, "bar").obj(),
        fourNodes(), fooA,
        want("zone", Map.of("zone1", 0, "zone2", 0), "zone2", 0, "zone1", 0)));
    cases.add(simple("a nil LabelSelector selects nothing even with matchLabelKeys the pod carries",
        pod("p").label("foo", "a").spread(1, "zone", DNS, null, null, null, null, "foo").obj(),
        fourNodes(), fooA,
        want("zone", Map.of("zone1", 0, "zone2", 0), "zone2", 0, "zone1", 0)));
    cases.add(simple("an empty LabelSelector counts no existing pod, as countPodsMatchSelector",
        pod("p").label("foo", "a").spread(1, "zone", DNS, new LabelSelectorBuilder().build()).obj(),
        fourNodes(), fooA,
        want("zone", Map.of("zone1", 0, "zone2", 0), "zone2", 0, "zone1", 0)));
    cases.add(simple("key in matchLabelKeys is ignored when it isn't exist in pod.labels",
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector(), null, null, null, "bar")
            .obj(), fourNodes(), fooA,
        want("zone", Map.of("zone1", 3, "zone2", 2), "zone2", 2, "zone1", 3)));
    cases.add(simple("two spreadConstraints with the same topologyKey",
        pod("p").label("foo", "").label("bar", "").spread(1, "zone", DNS, fooSelector())
            .spread(1, "zone", DNS, barSelector()).obj(), fourNodes(),
        List.of(pod("p-a1").node("node-a").label("foo", "").label("bar", "").obj(),
            foo("p-b1", "node-b"), pod("p-x1").node("node-x").label("bar", "").obj(),
            pod("p-y1").node("node-y").label("foo", "").label("bar", "").obj(),
            pod("p-y2").node("node-y").label("bar", "").obj()),
        want("zone", Map.of("zone1", 2, "zone2", 1), "zone2", 1, "zone1", 2),
        want("zone", Map.of("zone1", 1, "zone2", 3), "zone1", 1, "zone2", 3)));
    cases.add(new Case("skip if not specified", pod("p").label("foo", "").obj(),
        List.of(node("node-a").label("zone", "zone1").label("node", "node-a").obj()), List.of(),
        List.of(), List.of(), Status.skip(), List.of()));
    return cases;
  }

  static Map<String, Object> constraint(int maxSkew, String key, String action) {
    return Map.of("maxSkew", maxSkew, "topologyKey", key, "whenUnsatisfiable", action);
  }

  @TestFactory
  Stream<DynamicTest> preFilterComputesCountsAndCriticalPaths() {
    return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
      List<NodeInfo> infos = nodeInfos(c.nodes(), c.existing());
      TestHandle handle = new TestHandle().withNodes(infos)
          .withObjects(c.objs().toArray(HasMetadata[]::new));
      PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
          Map.of("defaultingType", "List", "defaultConstraints", c.defaults()), handle);
      CycleState state = new CycleState();
      PreFilterResult result = plugin.preFilter(state, c.pod(), infos);
      assertThat(result.status()).isEqualTo(c.wantStatus());
      assertThat(result.allNodes()).isTrue();
      if (!c.wantStatus().isSuccess()) {
        assertThat(state.read(PreFilterState.KEY, PreFilterState.class)).isEmpty();
        return;
      }
      PreFilterState s = state.readOrFail(PreFilterState.KEY, PreFilterState.class);
      assertState(s, c.want());
    }));
  }

  static void assertState(PreFilterState s, List<Want> want) {
    assertThat(s.constraints()).extracting(SpreadConstraint::topologyKey)
        .containsExactlyElementsOf(want.stream().map(Want::key).toList());
    for (int i = 0; i < want.size(); i++) {
      Want w = want.get(i);
      assertThat(s.matchNums(i)).as("counts of constraint %d", i).isEqualTo(w.counts());
      assertPaths(s.criticalPaths(i), w);
    }
  }

  /** Compares critical paths; values with equal counts may come in either order (as upstream). */
  static void assertPaths(CriticalPaths p, Want w) {
    assertThat(p.minMatchNum()).as("min match num").isEqualTo(w.n0());
    assertThat(p.secondMatchNum()).as("second match num").isEqualTo(w.n1());
    if (w.n0() == w.n1()) {
      assertThat(List.of(p.minValue(), p.secondValue()))
          .containsExactlyInAnyOrder(w.v0(), w.v1());
    } else {
      assertThat(p.minValue()).isEqualTo(w.v0());
      assertThat(p.secondValue()).isEqualTo(w.v1());
    }
  }
}
