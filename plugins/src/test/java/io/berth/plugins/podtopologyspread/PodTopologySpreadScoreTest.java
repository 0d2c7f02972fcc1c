package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HONOR;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HOSTNAME;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.IGNORE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.UNSCHEDULABLE_TAINT;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.barSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.find;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.systemPlugin;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * PreScore/Score/NormalizeScore, from upstream's TestPodTopologySpreadScore (the plugin runs with
 * System defaulting there too). {@code nodes} are the feasible nodes, {@code failed} the others.
 */
class PodTopologySpreadScoreTest {

  record Case(String name, Pod pod, List<Pod> existing, List<Node> nodes, List<Node> failed,
      List<HasMetadata> objs, Map<String, Long> want) {}

  static Map<String, Long> scores(Object... kv) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
    }
    return m;
  }

  static Pod foo(String name, String node) {
    return pod(name).node(node).label("foo", "").obj();
  }

  static Node host(String name) {
    return node(name).label(HOSTNAME, name).obj();
  }

  static Node zoneHost(String name, String zone) {
    return node(name).label("zone", zone).label(HOSTNAME, name).obj();
  }

  static Pod hostFoo(int maxSkew) {
    return pod("p").label("foo", "").spread(maxSkew, HOSTNAME, ANYWAY, fooSelector()).obj();
  }

  static List<Pod> pods(String node, int n) {
    List<Pod> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(foo("p-" + node.substring(5) + i, node));
    }
    return out;
  }

  @SafeVarargs
  static List<Pod> concat(List<Pod>... lists) {
    List<Pod> out = new ArrayList<>();
    for (List<Pod> l : lists) {
      out.addAll(l);
    }
    return out;
  }

  static Case c(String name, Pod pod, List<Pod> existing, List<Node> nodes, List<Node> failed,
      Map<String, Long> want) {
    return new Case(name, pod, existing, nodes, failed, List.of(), want);
  }

  static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    List<Node> abcd = List.of(host("node-a"), host("node-b"), host("node-c"), host("node-d"));
    List<Pod> spread2103 = concat(pods("node-a", 2), pods("node-b", 1), pods("node-d", 3));
    List<Pod> spread4321 = concat(pods("node-a", 4), pods("node-b", 3), pods("node-c", 2),
        pods("node-d", 1));
    cases.add(c("one constraint on node, no existing pods", hostFoo(1), List.of(),
        List.of(host("node-a"), host("node-b")), List.of(),
        scores("node-a", 100, "node-b", 100)));
    cases.add(c("one constraint on node, only one node is candidate", hostFoo(1),
        concat(pods("node-a", 2), pods("node-b", 1)), List.of(host("node-a")),
        List.of(host("node-b")), scores("node-a", 100)));
    cases.add(c("one constraint on node, all nodes have the same number of matching pods",
        hostFoo(1), concat(pods("node-a", 1), pods("node-b", 1)),
        List.of(host("node-a"), host("node-b")), List.of(),
        scores("node-a", 100, "node-b", 100)));
    cases.add(c("one constraint on node, all 4 nodes are candidates", hostFoo(1), spread2103,
        abcd, List.of(), scores("node-a", 20, "node-b", 60, "node-c", 100, "node-d", 0)));
    cases.add(c("one constraint on node, null selector",
        pod("p").label("foo", "").spread(1, HOSTNAME, ANYWAY, null).obj(), spread2103, abcd,
        List.of(), scores("node-a", 100, "node-b", 100, "node-c", 100, "node-d", 100)));
    cases.add(c("one constraint on node, all 4 nodes are candidates, maxSkew=2", hostFoo(2),
        spread2103, abcd, List.of(),
        scores("node-a", 33, "node-b", 66, "node-c", 100, "node-d", 16)));
    cases.add(c("one constraint on node, all 4 nodes are candidates, maxSkew=3", hostFoo(3),
        spread4321, abcd, List.of(),
        scores("node-a", 44, "node-b", 66, "node-c", 77, "node-d", 100)));
    cases.add(new Case("system defaulting, nodes don't have zone, pods match service",
        pod("p").label("foo", "").obj(), spread4321, abcd, List.of(),
        List.of(new ServiceBuilder().withNewMetadata().withName("svc").withNamespace("default")
            .endMetadata().withNewSpec().addToSelector("foo", "").endSpec().build()),
        scores("node-a", 44, "node-b", 66, "node-c", 77, "node-d", 100)));
    List<Pod> spread4213 = concat(pods("node-a", 4), pods("node-b", 2), pods("node-x", 1),
        pods("node-y", 3));
    cases.add(c("one constraint on node, 3 out of 4 nodes are candidates", hostFoo(1),
        spread4213, List.of(host("node-a"), host("node-b"), host("node-x")),
        List.of(host("node-y")), scores("node-a", 33, "node-b", 83, "node-x", 100)));
    cases.add(c("one constraint on node, 3 of 4 candidates, one node doesn't match topology key",
        hostFoo(1), spread4213,
        List.of(host("node-a"), node("node-b").label("n", "node-b").obj(), host("node-x")),
        List.of(host("node-y")), scores("node-a", 16, "node-b", 0, "node-x", 100)));
    cases.add(c("one constraint on zone, 3 out of 4 nodes are candidates",
        pod("p").label("foo", "").spread(1, "zone", ANYWAY, fooSelector()).obj(), spread4213,
        List.of(zoneHost("node-a", "zone1"), zoneHost("node-b", "zone1"),
            zoneHost("node-x", "zone2")),
        List.of(zoneHost("node-y", "zone2")),
        scores("node-a", 75, "node-b", 75, "node-x", 100)));
    Pod zoneHostFoo = pod("p").label("foo", "").spread(1, "zone", ANYWAY, fooSelector())
        .spread(1, HOSTNAME, ANYWAY, fooSelector()).obj();
    cases.add(c("two Constraints on zone and node, 2 out of 4 nodes are candidates", zoneHostFoo,
        concat(pods("node-a", 2), pods("node-b", 1), pods("node-x", 2), pods("node-y", 4)),
        List.of(zoneHost("node-a", "zone1"), zoneHost("node-x", "zone2")),
        List.of(zoneHost("node-b", "zone1"), zoneHost("node-y", "zone2")),
        scores("node-a", 100, "node-x", 63)));
    cases.add(c("two Constraints on zone, 2 out of 4 nodes are candidates",
        pod("p").label("foo", "").label("bar", "").spread(1, "zone", ANYWAY, fooSelector())
            .spread(1, "zone", ANYWAY, barSelector()).obj(),
        List.of(fooBar("p-a1", "node-a"), foo("p-a2", "node-a"), fooBar("p-b1", "node-b"),
            foo("p-y1", "node-y"), fooBar("p-y2", "node-y"), foo("p-y3", "node-y")),
        List.of(node("node-a").label("zone", "zone1").obj(),
            node("node-x").label("zone", "zone2").obj()),
        List.of(node("node-b").label("zone", "zone1").obj(),
            node("node-y").label("zone", "zone2").obj()),
        scores("node-a", 85, "node-x", 100)));
    Pod zoneFooHostBar = pod("p").label("foo", "").label("bar", "")
        .spread(1, "zone", ANYWAY, fooSelector()).spread(1, HOSTNAME, ANYWAY, barSelector())
        .obj();
    List<Node> fourZoneHosts = List.of(zoneHost("node-a", "zone1"), zoneHost("node-b", "zone1"),
        zoneHost("node-x", "zone2"), zoneHost("node-y", "zone2"));
    List<Pod> mixed = List.of(foo("p-a1", "node-a"), fooBar("p-b1", "node-b"),
        foo("p-y1", "node-y"), pod("p-y2").node("node-y").label("bar", "").obj());
    cases.add(c("two Constraints on zone and node, with different labelSelectors",
        zoneFooHostBar, mixed, fourZoneHosts, List.of(),
        scores("node-a", 60, "node-b", 20, "node-x", 100, "node-y", 60)));
    cases.add(c("two Constraints on zone and node, different labelSelectors, some nodes 0 pods",
        zoneFooHostBar,
        List.of(pod("p-b1").node("node-b").label("bar", "").obj(), foo("p-x1", "node-x"),
            fooBar("p-y1", "node-y")),
        fourZoneHosts, List.of(),
        scores("node-a", 100, "node-b", 60, "node-x", 40, "node-y", 0)));
    cases.add(c("two Constraints on zone and node, different labelSelectors, 3 of 4 candidates",
        zoneFooHostBar, mixed, fourZoneHosts.subList(0, 3), List.of(fourZoneHosts.get(3)),
        scores("node-a", 50, "node-b", 25, "node-x", 100)));
    cases.add(c("existing pods in a different namespace do not count", hostFoo(1),
        List.of(pod("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(),
            foo("p-a2", "node-a"), foo("p-b1", "node-b"), foo("p-b2", "node-b")),
        List.of(host("node-a"), host("node-b")), List.of(),
        scores("node-a", 100, "node-b", 33)));
    cases.add(c("terminating Pods should be excluded", hostFoo(1),
        List.of(pod("p-a").node("node-a").label("foo", "").terminating().obj(),
            foo("p-b", "node-b")),
        List.of(host("node-a"), host("node-b")), List.of(), scores("node-a", 100, "node-b", 0)));
    List<Node> abcNode = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj(), node("node-c").label("node", "node-c")
            .obj());
    List<Pod> spread221 = concat(pods("node-a", 2), pods("node-b", 2), pods("node-c", 1));
    cases.add(c("minDomains has no effect when ScheduleAnyway",
        pod("p").label("foo", "").spread(2, "node", ANYWAY, fooSelector(), 10, null, null).obj(),
        spread221, abcNode, List.of(), scores("node-a", 75, "node-b", 75, "node-c", 100)));
    List<Node> abFooC = List.of(node("node-a").label("node", "node-a").label("foo", "").obj(),
        node("node-b").label("node", "node-b").label("foo", "").obj(),
        node("node-c").label("node", "node-c").obj());
    List<Pod> spread211 = concat(pods("node-a", 2), pods("node-b", 1), pods("node-c", 1));
    cases.add(c("NodeAffinityPolicy honored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "node", ANYWAY, fooSelector()).obj(), spread211, abFooC, List.of(),
        scores("node-a", 0, "node-b", 33, "node-c", 100)));
    cases.add(c("NodeAffinityPolicy ignored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "node", ANYWAY, fooSelector(), null, IGNORE, null).obj(), spread211,
        abFooC, List.of(), scores("node-a", 66, "node-b", 100, "node-c", 100)));
    cases.add(c("NodeAffinityPolicy honored with nodeAffinity",
        pod("p").label("foo", "").nodeAffinity("foo", "In", "")
            .spread(1, "node", ANYWAY, fooSelector()).obj(), spread211, abFooC, List.of(),
        scores("node-a", 0, "node-b", 33, "node-c", 100)));
    cases.add(c("NodeAffinityPolicy ignored with nodeAffinity",
        pod("p").label("foo", "").nodeAffinity("foo", "In", "")
            .spread(1, "node", ANYWAY, fooSelector(), null, IGNORE, null).obj(), spread211,
        abFooC, List.of(), scores("node-a", 66, "node-b", 100, "node-c", 100)));
    List<Node> taintedC = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj(),
        node("node-c").label("node", "node-c").taint(UNSCHEDULABLE_TAINT).obj());
    cases.add(c("NodeTaintsPolicy honored",
        pod("p").label("foo", "").spread(1, "node", ANYWAY, fooSelector(), null, null, HONOR)
            .obj(), spread211, taintedC, List.of(),
        scores("node-a", 0, "node-b", 33, "node-c", 100)));
    cases.add(c("NodeTaintsPolicy ignored",
        pod("p").label("foo", "").spread(1, "node", ANYWAY, fooSelector()).obj(), spread211,
        taintedC, List.of(), scores("node-a", 66, "node-b", 100, "node-c", 100)));
    List<Node> abcdZones = List.of(zoneHost("node-a", "zone1"), zoneHost("node-b", "zone1"),
        zoneHost("node-c", "zone2"), zoneHost("node-d", "zone2"));
    cases.add(c("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        pod("p").label("foo", "").label("bar", "")
            .spread(1, "zone", ANYWAY, new LabelSelectorBuilder().build(), null, null, null,
                "foo")
            .spread(1, HOSTNAME, ANYWAY, new LabelSelectorBuilder().build(), null, null, null,
                "bar").obj(),
        List.of(foo("p-a1", "node-a"), fooBar("p-b1", "node-b"), foo("p-y1", "node-c"),
            pod("p-y2").node("node-c").label("bar", "").obj()),
        abcdZones, List.of(),
        scores("node-a", 60, "node-b", 20, "node-c", 60, "node-d", 100)));
    cases.add(c("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        pod("p").label("foo", "").label("bar", "").label("baz", "")
            .spread(1, "zone", ANYWAY, fooSelector())
            .spread(1, HOSTNAME, ANYWAY, barSelector(), null, null, null, "baz").obj(),
        List.of(foo("p-a1", "node-a"),
            pod("p-b1").node("node-b").label("foo", "").label("bar", "").label("baz", "").obj(),
            foo("p-c1", "node-c"), pod("p-c2").node("node-c").label("bar", "").obj(),
            pod("p-d3").node("node-c").label("bar", "").label("baz", "").obj()),
        abcdZones, List.of(),
        scores("node-a", 60, "node-b", 20, "node-c", 60, "node-d", 100)));
    return cases;
  }

  static Pod fooBar(String name, String node) {
    return pod(name).node(node).label("foo", "").label("bar", "").obj();
  }

  @TestFactory
  Stream<DynamicTest> scoresAndNormalizesLikeUpstream() {
    return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
      List<Node> all = new ArrayList<>(c.nodes());
      all.addAll(c.failed());
      List<NodeInfo> allInfos = nodeInfos(all, c.existing());
      List<NodeInfo> feasible = c.nodes().stream()
          .map(n -> find(allInfos, n.getMetadata().getName())).toList();
      TestHandle handle = new TestHandle().withNodes(allInfos)
          .withObjects(c.objs().toArray(HasMetadata[]::new));
      PodTopologySpread plugin = systemPlugin(handle);
      CycleState state = new CycleState();
      assertThat(plugin.preScore(state, c.pod(), feasible)).isEqualTo(Status.SUCCESS);
      List<NodeScore> got = new ArrayList<>();
      for (NodeInfo n : feasible) {
        got.add(new NodeScore(n.nodeName(), plugin.score(state, c.pod(), n)));
      }
      Status normalized = plugin.scoreExtensions().orElseThrow()
          .normalizeScore(state, c.pod(), got);
      assertThat(normalized).isEqualTo(Status.SUCCESS);
      Map<String, Long> actual = new LinkedHashMap<>();
      got.forEach(s -> actual.put(s.name(), s.score()));
      assertThat(actual).isEqualTo(c.want());
    }));
  }
}
