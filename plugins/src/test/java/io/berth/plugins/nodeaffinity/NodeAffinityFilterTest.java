package io.berth.plugins.nodeaffinity;

import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.addedRequired;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.exprs;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.fields;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.nameIn;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.node;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.pod;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.req;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.reqMap;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.required;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.term;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.withSelector;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class NodeAffinityFilterTest {
  private static final Status POD = Status.unresolvable(NodeAffinity.ERR_REASON_POD);
  private static final Status OK = Status.SUCCESS;
  private static final Status SKIP = Status.skip();
  private static final Optional<Set<String>> ALL = Optional.empty();

  /** One row of upstream's TestNodeAffinity. */
  private record Case(String name, Pod pod, Map<String, String> labels, String nodeName,
      Map<String, Object> args, boolean runPreFilter, Status wantPreFilter,
      Optional<Set<String>> wantNodes, Status wantFilter) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case c(String name, Pod pod, Map<String, String> labels, Status wantFilter) {
    return new Case(name, pod, labels, "", Map.of(), true, OK, ALL, wantFilter);
  }

  private static Case c(String name, Pod pod, Map<String, String> labels, String nodeName,
      Status wantPreFilter, Optional<Set<String>> wantNodes, Status wantFilter) {
    return new Case(name, pod, labels, nodeName, Map.of(), true, wantPreFilter, wantNodes,
        wantFilter);
  }

  private static Case added(String name, Pod pod, Map<String, String> labels,
      Map<String, Object> args, Status wantFilter) {
    return new Case(name, pod, labels, "node2", args, true, OK, ALL, wantFilter);
  }

  private static Case noPreFilter(String name, Pod pod, Map<String, String> labels,
      Status wantFilter) {
    return new Case(name, pod, labels, "", Map.of(), false, OK, ALL, wantFilter);
  }

  static Stream<Case> upstreamCases() {
    Map<String, String> fooBar = Map.of("foo", "bar");
    Map<String, Object> node2Pinned = addedRequired(Map.of("matchFields",
        List.of(reqMap("metadata.name", "In", "node2"))));
    return Stream.of(
        c("missing labels", withSelector(pod(), fooBar), Map.of(), POD),
        c("same labels", withSelector(pod(), fooBar), fooBar, OK),
        c("node labels are superset", withSelector(pod(), fooBar),
            Map.of("foo", "bar", "baz", "blah"), OK),
        c("node labels are subset", withSelector(pod(), Map.of("foo", "bar", "baz", "blah")),
            fooBar, POD),
        c("matchExpressions In matches", required(exprs(req("foo", "In", "bar", "value2"))),
            fooBar, OK),
        c("matchExpressions Gt matches", required(exprs(req("kernel-version", "Gt", "0204"))),
            Map.of("kernel-version", "0206"), OK),
        c("matchExpressions NotIn matches", required(exprs(req("mem-type", "NotIn", "DDR",
            "DDR2"))), Map.of("mem-type", "DDR3"), OK),
        c("matchExpressions Exists matches", required(exprs(req("GPU", "Exists"))),
            Map.of("GPU", "NVIDIA-GRID-K1"), OK),
        c("affinity that doesn't match node's labels",
            required(exprs(req("foo", "In", "value1", "value2"))), fooBar, POD),
        c("empty MatchExpressions match no objects", required(exprs()), fooBar, POD),
        c("no affinity", pod(), fooBar, "", SKIP, ALL, OK),
        c("affinity with nil required NodeSelector",
            NodeAffinityFixtures.preferring(), fooBar, "", SKIP, ALL, OK),
        c("multiple matchExpressions ANDed that match", required(exprs(req("GPU", "Exists"),
            req("GPU", "NotIn", "AMD", "INTER"))), Map.of("GPU", "NVIDIA-GRID-K1"), OK),
        c("multiple matchExpressions ANDed that don't match", required(exprs(req("GPU", "Exists"),
            req("GPU", "In", "AMD", "INTER"))), Map.of("GPU", "NVIDIA-GRID-K1"), POD),
        c("multiple NodeSelectorTerms ORed", required(exprs(req("foo", "In", "bar", "value2")),
            exprs(req("diffkey", "In", "wrong", "value2"))), fooBar, OK),
        c("affinity and nodeSelector both satisfied",
            withSelector(required(exprs(req("foo", "Exists"))), fooBar), fooBar, OK),
        c("affinity matches but nodeSelector doesn't",
            withSelector(required(exprs(req("foo", "Exists"))), fooBar),
            Map.of("foo", "barrrrrr"), POD),
        c("matchFields In matches the node", required(fields(nameIn("node1"))), Map.of(),
            "node1", OK, Optional.of(Set.of("node1")), OK),
        c("matchFields In doesn't match the node", required(fields(nameIn("node1"))), Map.of(),
            "node2", OK, Optional.of(Set.of("node1")), POD),
        c("two terms: matchFields doesn't match, matchExpressions does",
            required(fields(nameIn("node1"), nameIn("node2")), exprs(req("foo", "In", "bar"))),
            fooBar, "node2", OK, ALL, OK),
        c("one term: matchFields doesn't match, matchExpressions does",
            required(term(List.of(req("foo", "In", "bar")), List.of(nameIn("node1")))), fooBar,
            "node2", OK, Optional.of(Set.of("node1")), POD),
        c("one term: both matchFields and matchExpressions match",
            required(term(List.of(req("foo", "In", "bar")), List.of(nameIn("node1")))), fooBar,
            "node1", OK, Optional.of(Set.of("node1")), OK),
        c("two terms: neither matchFields nor matchExpressions match",
            required(fields(nameIn("node1")), exprs(req("foo", "In", "not-match-to-bar"))),
            fooBar, "node2", OK, ALL, POD),
        c("two terms of node.Name affinity",
            required(fields(nameIn("node1")), fields(nameIn("node2"))), Map.of(), "node2", OK,
            Optional.of(Set.of("node1", "node2")), OK),
        c("two conflicting match field requirements",
            required(fields(nameIn("node1"), nameIn("node2"))), fooBar, "node2",
            Status.unresolvable("pod affinity terms conflict"), ALL, POD),
        added("matches added affinity and Pod's node affinity",
            required(exprs(req("zone", "In", "foo"))), Map.of("zone", "foo"), node2Pinned, OK),
        added("matches added affinity but not Pod's node affinity",
            required(exprs(req("zone", "In", "bar"))), Map.of("zone", "foo"), node2Pinned, POD),
        added("doesn't match added affinity", pod(), Map.of("zone", "foo"),
            addedRequired(Map.of("matchExpressions", List.of(reqMap("zone", "In", "bar")))),
            Status.unresolvable(NodeAffinity.ERR_REASON_ENFORCED)),
        noPreFilter("matches node selector correctly even if PreFilter is not called",
            withSelector(pod(), fooBar), Map.of("foo", "bar", "baz", "blah"), OK),
        noPreFilter("matches node affinity correctly even if PreFilter is not called",
            required(exprs(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER"))),
            Map.of("GPU", "NVIDIA-GRID-K1"), OK),
        // edge cases beyond upstream's table
        c("matchFields NotIn excludes the named node only", required(fields(
            req("metadata.name", "NotIn", "node1"))), Map.of(), "node2", OK, ALL, OK),
        c("Lt compares integers", required(exprs(req("cores", "Lt", "8"))),
            Map.of("cores", "16"), POD),
        c("Gt on a non-integer label does not match", required(exprs(req("cores", "Gt", "1"))),
            Map.of("cores", "many"), POD),
        c("DoesNotExist matches nodes without the label",
            required(exprs(req("spot", "DoesNotExist"))), fooBar, OK),
        c("required selector with no terms matches nothing", required(), fooBar, POD));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamCases")
  void preFilterAndFilter(Case tc) {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(tc.args(), null);
    NodeInfo nodeInfo = NodeInfo.of(node(tc.nodeName(), tc.labels()));
    CycleState state = new CycleState();

    if (tc.runPreFilter()) {
      PreFilterResult result = plugin.preFilter(state, tc.pod(), List.of(nodeInfo));
      assertThat(result.status()).isEqualTo(tc.wantPreFilter());
      assertThat(result.nodeNames()).isEqualTo(tc.wantNodes());
    }
    assertThat(plugin.filter(state, tc.pod(), nodeInfo)).isEqualTo(tc.wantFilter());
  }

  @Test
  void reasonsAreUpstreams() {
    assertThat(NodeAffinity.ERR_REASON_POD)
        .isEqualTo("node(s) didn't match Pod's node affinity/selector");
    assertThat(NodeAffinity.ERR_REASON_ENFORCED)
        .isEqualTo("node(s) didn't match scheduler-enforced node affinity");
    assertThat(NodeAffinity.ERR_REASON_CONFLICT).isEqualTo("pod affinity terms conflict");
  }

  @Test
  void invalidLabelValueRejectsThePodNamingTheField() {
    // upstream drops the unparsable term and reports ErrReasonPod; Berth names the field instead
    Pod pod = required(exprs(req("foo", "NotIn", "invalid value: ___@#$%^")));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);
    NodeInfo nodeInfo = NodeInfo.of(node("n", Map.of("foo", "bar")));
    String field = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        + ".nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "
        + "\"invalid value: ___@#$%^\"";

    Status pre = plugin.preFilter(new CycleState(), pod, List.of(nodeInfo)).status();
    Status filter = plugin.filter(new CycleState(), pod, nodeInfo);

    for (Status s : List.of(pre, filter)) {
      assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
      assertThat(s.message()).startsWith(field);
    }
  }

  @Test
  void unknownOperatorRejectsThePodNamingTheField() {
    Pod pod = required(exprs(req("foo", "In", "bar")), exprs(req("foo", "Near", "bar")));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);

    Status status = plugin.preFilter(new CycleState(), pod, List.of()).status();

    assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(status.message()).startsWith("spec.affinity.nodeAffinity"
        + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1]"
        + ".matchExpressions[0].operator: Unsupported value: \"Near\"");
  }

  @Test
  void invalidLabelKeyRejectsThePodNamingTheField() {
    Pod pod = required(exprs(req("bad key!", "Exists")));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);

    Status status = plugin.filter(new CycleState(), pod, NodeInfo.of(node("n", Map.of())));

    assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(status.message()).contains("nodeSelectorTerms[0].matchExpressions[0].key: "
        + "Invalid value: \"bad key!\"");
  }

  @Test
  void prefixedLabelKeysAreValid() {
    Pod pod = required(exprs(req("topology.kubernetes.io/zone", "In", "us-east-1a")));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);
    NodeInfo nodeInfo = NodeInfo.of(node("n", Map.of("topology.kubernetes.io/zone",
        "us-east-1a")));
    CycleState state = new CycleState();

    assertThat(plugin.preFilter(state, pod, List.of(nodeInfo))).isEqualTo(PreFilterResult.SUCCESS);
    assertThat(plugin.filter(state, pod, nodeInfo)).isEqualTo(Status.SUCCESS);
  }

  @Test
  void concurrentFiltersOnSharedCycleStateAgreeWithSequential() throws Exception {
    Pod pod = withSelector(required(exprs(req("zone", "In", "a", "b")),
        exprs(req("gpu", "Exists"))), Map.of("tier", "web"));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(addedRequired(
        Map.of("matchExpressions", List.of(reqMap("pool", "NotIn", "batch")))), null);
    List<NodeInfo> nodes = new ArrayList<>();
    String[] zones = {"a", "b", "c"};
    for (int i = 0; i < 60; i++) {
      Map<String, String> labels = new java.util.HashMap<>();
      labels.put("zone", zones[i % 3]);
      labels.put("tier", i % 4 == 0 ? "db" : "web");
      labels.put("pool", i % 5 == 0 ? "batch" : "main");
      if (i % 7 == 0) {
        labels.put("gpu", "yes");
      }
      nodes.add(NodeInfo.of(node("n" + i, labels)));
    }
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, nodes)).isEqualTo(PreFilterResult.SUCCESS);
    List<Status> expected = nodes.stream().map(n -> plugin.filter(state, pod, n)).toList();

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<List<Status>>> tasks = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        tasks.add(() -> nodes.stream().map(n -> plugin.filter(state, pod, n)).toList());
      }
      for (Future<List<Status>> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(expected).contains(Status.SUCCESS, POD,
        Status.unresolvable(NodeAffinity.ERR_REASON_ENFORCED));
  }
}
