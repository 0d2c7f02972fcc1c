package io.berth.plugins.interpodaffinity;

import static io.berth.plugins.interpodaffinity.Fixtures.doesNotExist;
import static io.berth.plugins.interpodaffinity.Fixtures.exists;
import static io.berth.plugins.interpodaffinity.Fixtures.in;
import static io.berth.plugins.interpodaffinity.Fixtures.labels;
import static io.berth.plugins.interpodaffinity.Fixtures.node;
import static io.berth.plugins.interpodaffinity.Fixtures.nodeInfos;
import static io.berth.plugins.interpodaffinity.Fixtures.notIn;
import static io.berth.plugins.interpodaffinity.Fixtures.plugin;
import static io.berth.plugins.interpodaffinity.Fixtures.pod;
import static io.berth.plugins.interpodaffinity.Fixtures.selector;
import static io.berth.plugins.interpodaffinity.Fixtures.term;
import static io.berth.plugins.interpodaffinity.InterPodAffinity.ERR_REASON_AFFINITY_RULES_NOT_MATCH;
import static io.berth.plugins.interpodaffinity.InterPodAffinity.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH;
import static io.berth.plugins.interpodaffinity.InterPodAffinity.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PreFilter + Filter, with cases translated from upstream's filtering_test.go
 * (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes) and Berth's own edge cases.
 */
class InterPodAffinityFilterTest {
  private static final Status OK = Status.SUCCESS;
  private static final Status AFFINITY = Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH);
  private static final Status ANTI = Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
  private static final Status EXISTING =
      Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);

  private static final Map<String, String> POD_LABEL = labels("service", "securityscan");
  private static final Map<String, String> POD_LABEL2 = labels("security", "S1");
  private static final Node NODE1 = node("node1", "region", "r1", "zone", "z11");
  private static final LabelSelector TEAM1 = selector(in("team", "team1"));

  /** A case: the incoming pod, the cluster, PreFilter's status and each node's Filter status. */
  record Case(String name, Pod pod, List<Pod> pods, List<Node> nodes, Status preFilter,
      List<Status> filter) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case single(String name, Pod pod, List<Pod> pods, Status preFilter,
      Status filter) {
    return new Case(name, pod, pods, List.of(NODE1), preFilter, List.of(filter));
  }

  private static Case multi(String name, Pod pod, List<Pod> pods, List<Node> nodes,
      Status... filter) {
    return new Case(name, pod, pods, nodes, OK, List.of(filter));
  }

  private static Pod existing() {
    return pod().labels(POD_LABEL).node("node1").obj();
  }

  static Stream<Arguments> singleNodeCases() {
    Status skip = Status.skip();
    List<Case> cases = new ArrayList<>();
    cases.add(single("no required rules and no pods: PreFilter skips",
        pod().obj(), List.of(), skip, OK));
    cases.add(single("In operator matches the existing pod",
        pod().labels(POD_LABEL2).affinity(term("region", in("service", "securityscan", "value2")))
            .obj(), List.of(existing()), OK, OK));
    cases.add(single("NotIn operator matches the existing pod",
        pod().labels(POD_LABEL2).affinity(term("region", notIn("service", "securityscan3",
            "value3"))).obj(), List.of(existing()), OK, OK));
    cases.add(single("affinity fails because the matching pod is in another namespace",
        pod().labels(POD_LABEL2).affinity(term("region", List.of("DiffNameSpace"), null,
            in("service", "securityscan", "value2"))).obj(),
        List.of(pod().ns("ns").labels(POD_LABEL).node("node1").obj()), OK, AFFINITY));
    cases.add(single("affinity fails because the selector matches no existing pod",
        pod().labels(POD_LABEL).affinity(term("region", in("service", "antivirusscan", "value2")))
            .obj(), List.of(existing()), OK, AFFINITY));
    cases.add(single("different operators in several terms are all satisfied",
        pod().labels(POD_LABEL2).affinity(
            term("region", exists("service"), doesNotExist("wrongkey")),
            term("region", in("service", "securityscan"), notIn("service", "WrongValue"))).obj(),
        List.of(existing()), OK, OK));
    cases.add(single("requirements of one selector are ANDed: one unmatched fails",
        pod().labels(POD_LABEL2).affinity(
            term("region", exists("service"), doesNotExist("wrongkey")),
            term("region", in("service", "securityscan2"), notIn("service", "WrongValue"))).obj(),
        List.of(existing()), OK, AFFINITY));
    cases.add(single("affinity and anti-affinity both satisfied",
        pod().labels(POD_LABEL2)
            .affinity(term("region", in("service", "securityscan", "value2")))
            .antiAffinity(term("node", in("service", "antivirusscan", "value2"))).obj(),
        List.of(existing()), OK, OK));
    cases.add(single("affinity, anti-affinity and the existing pod's anti-affinity satisfied",
        pod().labels(POD_LABEL2)
            .affinity(term("region", in("service", "securityscan", "value2")))
            .antiAffinity(term("node", in("service", "antivirusscan", "value2"))).obj(),
        List.of(pod().labels(POD_LABEL).node("node1")
            .antiAffinity(term("node", in("service", "antivirusscan", "value2"))).obj()),
        OK, OK));
    cases.add(single("affinity satisfied but anti-affinity violated",
        pod().labels(POD_LABEL2)
            .affinity(term("region", in("service", "securityscan", "value2")))
            .antiAffinity(term("zone", in("service", "securityscan", "value2"))).obj(),
        List.of(existing()), OK, ANTI));
    cases.add(single("the existing pod's anti-affinity rejects the incoming pod",
        pod().labels(POD_LABEL)
            .affinity(term("region", in("service", "securityscan", "value2")))
            .antiAffinity(term("node", in("service", "antivirusscan", "value2"))).obj(),
        List.of(pod().labels(POD_LABEL).node("node1")
            .antiAffinity(term("zone", in("service", "securityscan", "value2"))).obj()),
        OK, EXISTING));
    cases.add(single("pod matches its own NotIn term but no existing pod does",
        pod().labels(POD_LABEL).affinity(term("region", notIn("service", "securityscan",
            "value2"))).obj(),
        List.of(pod().labels(POD_LABEL).node("node2").obj()), OK, AFFINITY));
    cases.add(single("existing anti-affinity applies to a pod without terms",
        pod().labels(POD_LABEL).obj(),
        List.of(pod().labels(POD_LABEL).node("node1")
            .antiAffinity(term("zone", in("service", "securityscan", "value2"))).obj()),
        OK, EXISTING));
    cases.add(single("existing anti-affinity that does not match: PreFilter skips",
        pod().labels(POD_LABEL).obj(),
        List.of(pod().labels(POD_LABEL).node("node1")
            .antiAffinity(term("zone", notIn("service", "securityscan", "value2"))).obj()),
        skip, OK));
    cases.add(single("incoming anti-affinity rejects although the existing one would not",
        pod().labels(POD_LABEL).antiAffinity(term("region", exists("service")),
            term("region", exists("security"))).obj(),
        List.of(pod().labels(POD_LABEL2).node("node1")
            .antiAffinity(term("zone", exists("security"))).obj()),
        OK, ANTI));
    cases.add(single("symmetry a1: partial mutual match rejects by the incoming terms",
        pod().labels(POD_LABEL).antiAffinity(term("zone", exists("service")),
            term("zone", exists("security"))).obj(),
        List.of(pod().labels(POD_LABEL2).node("node1")
            .antiAffinity(term("zone", exists("security"))).obj()),
        OK, ANTI));
    cases.add(single("symmetry a2: partial mutual match rejects by the existing terms",
        pod().labels(POD_LABEL2).antiAffinity(term("zone", exists("security"))).obj(),
        List.of(pod().labels(POD_LABEL).node("node1")
            .antiAffinity(term("zone", exists("service")), term("zone", exists("security")))
            .obj()),
        OK, EXISTING));
    cases.add(single("symmetry b1",
        pod().labels(labels("abc", "", "xyz", "")).antiAffinity(term("zone", exists("abc")),
            term("zone", exists("def"))).obj(),
        List.of(pod().labels(labels("def", "", "xyz", "")).node("node1")
            .antiAffinity(term("zone", exists("abc")), term("zone", exists("def"))).obj()),
        OK, ANTI));
    cases.add(single("symmetry b2",
        pod().labels(labels("def", "", "xyz", "")).antiAffinity(term("zone", exists("abc")),
            term("zone", exists("def"))).obj(),
        List.of(pod().labels(labels("abc", "", "xyz", "")).node("node1")
            .antiAffinity(term("zone", exists("abc")), term("zone", exists("def"))).obj()),
        OK, ANTI));
    cases.add(single("affinity with a namespaceSelector matching the pod's namespace",
        pod().labels(POD_LABEL2).affinity(term("region", null, TEAM1,
            in("service", "securityscan", "value2"))).obj(),
        List.of(pod().ns("subteam1.team1").labels(POD_LABEL).node("node1").obj()), OK, OK));
    cases.add(single("affinity with a namespaceSelector not matching the pod's namespace",
        pod().labels(POD_LABEL2).affinity(term("region", null, TEAM1,
            in("service", "securityscan", "value2"))).obj(),
        List.of(pod().ns("subteam1.team2").labels(POD_LABEL).node("node1").obj()), OK, AFFINITY));
    cases.add(single("anti-affinity with a matching namespaceSelector",
        pod().ns("subteam1.team1").labels(POD_LABEL2).antiAffinity(term("zone", null, TEAM1,
            in("service", "securityscan", "value2"))).obj(),
        List.of(pod().ns("subteam2.team1").labels(POD_LABEL).node("node1").obj()), OK, ANTI));
    cases.add(single("anti-affinity with an empty namespaceSelector matches all namespaces",
        pod().ns("subteam1.team1").labels(POD_LABEL2).antiAffinity(term("zone", null,
            new LabelSelector(), in("service", "securityscan", "value2"))).obj(),
        List.of(pod().ns("subteam2.team1").labels(POD_LABEL).node("node1").obj()), OK, ANTI));
    cases.add(single("anti-affinity with a non-matching namespaceSelector",
        pod().ns("subteam1.team1").labels(POD_LABEL2).antiAffinity(term("zone", null, TEAM1,
            in("service", "securityscan", "value2"))).obj(),
        List.of(pod().ns("subteam1.team2").labels(POD_LABEL).node("node1").obj()), OK, OK));
    return cases.stream().map(Arguments::of);
  }

  static Stream<Arguments> multipleNodeCases() {
    Node china = node("node1", "region", "China");
    Node chinaAz1 = node("node2", "region", "China", "az", "az1");
    Node india = node("node3", "region", "India");
    Node nodeA = node("nodeA", "region", "r1", "zone", "z1", "hostname", "nodeA");
    Node nodeBSameZone = node("nodeB", "region", "r1", "zone", "z1", "hostname", "nodeB");
    Node nodeB = node("nodeB", "region", "r1", "zone", "z2", "hostname", "nodeB");
    List<Case> cases = new ArrayList<>();
    cases.add(multi("every node in the matching pod's region fits",
        pod().affinity(term("region", in("foo", "bar"))).obj(),
        List.of(pod().labels(labels("foo", "bar")).node("node1").obj()),
        List.of(china, chinaAz1, india), OK, OK, AFFINITY));
    cases.add(multi("the first pod of a self-affine collection may go anywhere",
        pod().labels(labels("foo", "bar", "service", "securityscan"))
            .affinity(term("zone", in("foo", "bar")), term("zone", in("service", "securityscan")))
            .obj(),
        List.of(pod().labels(labels("foo", "bar")).node("nodeA").obj()),
        List.of(node("nodeA", "zone", "az1", "hostname", "h1"),
            node("nodeB", "zone", "az2", "hostname", "h2")), OK, OK));
    cases.add(multi("the first pod of a collection needs the topology keys on the node",
        pod().labels(labels("foo", "bar", "service", "securityscan"))
            .affinity(term("zone", in("foo", "bar")), term("zone", in("service", "securityscan")))
            .obj(),
        List.of(pod().labels(labels("foo", "bar")).node("nodeA").obj()),
        List.of(node("nodeA", "zoneLabel", "az1", "hostname", "h1"),
            node("nodeB", "zoneLabel", "az2", "hostname", "h2")), AFFINITY, AFFINITY));
    cases.add(multi("anti-affinity rejects every node sharing the matching pod's region",
        pod().antiAffinity(term("region", in("foo", "abc"))).obj(),
        List.of(pod().labels(labels("foo", "abc")).node("nodeA").obj()),
        List.of(node("nodeA", "region", "r1", "hostname", "nodeA"),
            node("nodeB", "region", "r1", "hostname", "nodeB")), ANTI, ANTI));
    cases.add(multi("anti-affinity rejects when any of its terms matches",
        pod().antiAffinity(term("region", in("foo", "abc")),
            term("zone", in("service", "securityscan"))).obj(),
        List.of(pod().labels(labels("foo", "abc", "service", "securityscan")).node("nodeA")
            .obj()),
        List.of(nodeA, nodeB), ANTI, ANTI));
    cases.add(multi("anti-affinity leaves nodes of another region",
        pod().antiAffinity(term("region", in("foo", "abc"))).obj(),
        List.of(pod().labels(labels("foo", "abc")).node("node1").obj()),
        List.of(china, chinaAz1, india), ANTI, ANTI, OK));
    cases.add(multi("existing anti-affinity only covers its own namespace",
        pod().ns("NS1").labels(labels("foo", "123")).antiAffinity(term("region", in("foo", "bar")))
            .obj(),
        List.of(pod().ns("NS1").labels(labels("foo", "bar")).node("node1").obj(),
            pod().ns("NS2").node("node3").antiAffinity(term("region", in("foo", "123"))).obj()),
        List.of(china, chinaAz1, india), ANTI, ANTI, OK));
    cases.add(new Case("existing anti-affinity with a topology key no node has: skip",
        pod().label("foo", "").obj(),
        List.of(pod().node("nodeA").antiAffinity(term("invalid-node-label", exists("foo"))).obj()),
        List.of(nodeA, nodeBSameZone), Status.skip(), List.of(OK, OK)));
    cases.add(multi("incoming anti-affinity needs the topology key as well as a matching pod",
        pod().antiAffinity(term("invalid-node-label", exists("foo"))).obj(),
        List.of(pod().label("foo", "").node("nodeA").obj()),
        List.of(nodeA, nodeBSameZone), OK, OK));
    cases.add(multi("existing pods' anti-affinity rejects the pod on every node",
        pod().label("foo", "").label("bar", "").obj(),
        List.of(pod().node("nodeA").antiAffinity(term("zone", exists("foo"))).obj(),
            pod().node("nodeA").antiAffinity(term("region", exists("bar"))).obj()),
        List.of(nodeA, nodeB), EXISTING, EXISTING));
    cases.add(multi("incoming anti-affinity violated on every node",
        pod().antiAffinity(term("zone", exists("foo")), term("region", exists("bar"))).obj(),
        List.of(pod().label("foo", "").node("nodeA").obj(),
            pod().label("bar", "").node("nodeB").obj()),
        List.of(nodeA, nodeB), ANTI, ANTI));
    cases.add(multi("existing anti-affinity: a term counts only with its topology key",
        pod().label("foo", "").label("bar", "").obj(),
        List.of(pod().node("nodeA").antiAffinity(term("invalid-node-label", exists("foo")),
            term("zone", exists("bar"))).obj()),
        List.of(nodeA, nodeB), EXISTING, OK));
    cases.add(multi("incoming anti-affinity: a term counts only with its topology key",
        pod().antiAffinity(term("invalid-node-label", exists("foo")), term("zone", exists("bar")))
            .obj(),
        List.of(pod().label("foo", "").label("bar", "").node("nodeA").obj()),
        List.of(nodeA, nodeB), ANTI, OK));
    cases.add(multi("existing anti-affinity with all topology keys present",
        pod().label("foo", "").label("bar", "").obj(),
        List.of(pod().node("nodeA").antiAffinity(term("region", exists("foo")),
            term("zone", exists("bar"))).obj()),
        List.of(nodeA, nodeB), EXISTING, EXISTING));
    cases.add(multi("incoming anti-affinity with all topology keys present",
        pod().antiAffinity(term("region", exists("foo")), term("zone", exists("bar"))).obj(),
        List.of(pod().label("foo", "").label("bar", "").node("nodeA").obj()),
        List.of(nodeA, nodeB), ANTI, ANTI));
    cases.add(multi("existing pods on two zones leave only the third",
        pod().label("foo", "").label("bar", "").obj(),
        List.of(pod().node("nodeA").antiAffinity(term("zone", exists("foo")),
                term("zone", exists("labelA"))).obj(),
            pod().node("nodeB").antiAffinity(term("zone", exists("bar")),
                term("zone", exists("labelB"))).obj()),
        List.of(nodeA, nodeB, node("nodeC", "region", "r1", "zone", "z3", "hostname", "nodeC")),
        EXISTING, EXISTING, OK));
    cases.add(multi("incoming affinity: one pod matching all terms satisfies both domains",
        pod().affinity(term("region", exists("foo")), term("zone", exists("bar"))).obj(),
        List.of(pod().label("foo", "").label("bar", "").node("nodeA").obj()),
        List.of(nodeA, nodeBSameZone), OK, OK));
    cases.add(multi("incoming affinity: terms must be matched by the same pod",
        pod().affinity(term("region", exists("foo")), term("zone", exists("bar"))).obj(),
        List.of(pod().label("foo", "").node("nodeA").obj(),
            pod().label("bar", "").node("nodeB").obj()),
        List.of(nodeA, nodeB), AFFINITY, AFFINITY));
    return cases.stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"singleNodeCases", "multipleNodeCases"})
  void filterStatusesMatchUpstream(Case c) {
    List<NodeInfo> infos = nodeInfos(c.nodes(), c.pods());
    InterPodAffinity plugin = plugin(infos, Map.of());
    CycleState state = new CycleState();

    PreFilterResult result = plugin.preFilter(state, c.pod(), infos);

    assertThat(result.status()).isEqualTo(c.preFilter());
    assertThat(result.allNodes()).isTrue();
    if (!result.status().isSuccess()) {
      return;
    }
    for (int i = 0; i < infos.size(); i++) {
      assertThat(plugin.filter(state, c.pod(), infos.get(i)))
          .as("Filter on %s", infos.get(i).nodeName()).isEqualTo(c.filter().get(i));
    }
  }

  @Test
  void selfAffineExceptionEndsOnceAnyPodMatchesTheTerms() {
    Pod incoming = pod().label("app", "db").affinity(term("zone", in("app", "db"))).obj();
    List<Node> nodes = List.of(node("a", "zone", "z1"), node("b", "zone", "z2"));
    List<NodeInfo> empty = nodeInfos(nodes, List.of());
    List<NodeInfo> withPeer = nodeInfos(nodes,
        List.of(pod().label("app", "db").node("a").obj()));

    assertThat(filterAll(incoming, empty)).containsExactly(OK, OK);
    assertThat(filterAll(incoming, withPeer)).containsExactly(OK, AFFINITY);
  }

  @Test
  void firstPodThatDoesNotMatchItsOwnTermsIsRejected() {
    Pod incoming = pod().label("app", "web").affinity(term("zone", in("app", "db"))).obj();
    List<NodeInfo> infos = nodeInfos(List.of(node("a", "zone", "z1")), List.of());

    assertThat(filterAll(incoming, infos)).containsExactly(AFFINITY);
  }

  @Test
  void existingAntiAffinityNamespaceSelectorUsesTheIncomingPodsNamespaceLabels() {
    Pod guard = pod().ns("subteam2.team2").node("a")
        .antiAffinity(term("zone", null, TEAM1, exists("app"))).obj();
    List<NodeInfo> infos = nodeInfos(List.of(node("a", "zone", "z1")), List.of(guard));

    Pod fromTeam1 = pod().ns("subteam1.team1").label("app", "x").obj();
    Pod fromTeam2 = pod().ns("subteam1.team2").label("app", "x").obj();

    assertThat(filterAll(fromTeam1, infos)).containsExactly(EXISTING);
    assertThat(runPreFilter(fromTeam2, infos, new CycleState()).isSkip()).isTrue();
  }

  @Test
  void namespaceSelectorIsResolvedAgainstTheNamespacesKnownAtPreFilter() {
    LabelSelector tier = selector(in("tier", "gold"));
    Pod incoming = pod().antiAffinity(term("zone", null, tier, exists("app"))).obj();
    Pod peer = pod().ns("gold-1").label("app", "x").node("a").obj();
    List<NodeInfo> infos = nodeInfos(List.of(node("a", "zone", "z1")), List.of(peer));
    TestHandle handle = new TestHandle().withNodes(infos);
    InterPodAffinity plugin = (InterPodAffinity) InterPodAffinity.create(Map.of(), handle);

    CycleState before = new CycleState();
    plugin.preFilter(before, incoming, infos);
    assertThat(plugin.filter(before, incoming, infos.get(0))).isEqualTo(OK);

    handle.withObjects(Fixtures.namespace("gold-1", "tier", "gold"));
    CycleState after = new CycleState();
    plugin.preFilter(after, incoming, infos);
    assertThat(plugin.filter(after, incoming, infos.get(0))).isEqualTo(ANTI);
  }

  @Test
  void preFilterRejectsMalformedSelectorNamingTheField() {
    LabelSelectorRequirement bad = new LabelSelectorRequirement("app", "Near", List.of("x"));
    Pod incoming = pod().antiAffinity(term("zone", bad)).obj();
    List<NodeInfo> infos = nodeInfos(List.of(NODE1), List.of());

    Status status = runPreFilter(incoming, infos, new CycleState());

    assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(status.message()).contains("spec.affinity.podAntiAffinity."
        + "requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0]"
        + ".operator").contains("\"Near\"");
  }

  @Test
  void preFilterRejectsMissingTopologyKeyNamingTheField() {
    Pod incoming = pod().affinity(term("", exists("app"))).obj();
    List<NodeInfo> infos = nodeInfos(List.of(NODE1), List.of());

    Status status = runPreFilter(incoming, infos, new CycleState());

    assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(status.message()).contains(
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey");
  }

  @Test
  void filterWithoutPreFilterStateIsAnError() {
    List<NodeInfo> infos = nodeInfos(List.of(NODE1), List.of());
    InterPodAffinity plugin = plugin(infos, Map.of());

    Status status = plugin.filter(new CycleState(), pod().obj(), infos.get(0));

    assertThat(status).isEqualTo(Status.error(
        "error reading \"PreFilterInterPodAffinity\" from cycleState: not found"));
  }

  @Test
  void skippedPreFilterWritesNoState() {
    List<NodeInfo> infos = nodeInfos(List.of(NODE1), List.of(existing()));
    CycleState state = new CycleState();

    assertThat(runPreFilter(pod().obj(), infos, state).isSkip()).isTrue();
    assertThat(state.read(PreFilterState.KEY, PreFilterState.class)).isEmpty();
  }

  private static Status runPreFilter(Pod pod, List<NodeInfo> infos, CycleState state) {
    return plugin(infos, Map.of()).preFilter(state, pod, infos).status();
  }

  private static List<Status> filterAll(Pod pod, List<NodeInfo> infos) {
    InterPodAffinity plugin = plugin(infos, Map.of());
    CycleState state = new CycleState();
    Status pre = plugin.preFilter(state, pod, infos).status();
    assertThat(pre.isSuccess()).as("PreFilter %s", pre).isTrue();
    return infos.stream().map(n -> plugin.filter(state, pod, n)).toList();
  }
}
