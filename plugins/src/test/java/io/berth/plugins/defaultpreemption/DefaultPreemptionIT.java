package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LARGE;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LOW;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MEDIUM;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MID;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.NEG;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.ONE_POD;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.SMALL;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_LARGE;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.node;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pdb;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.topologyNodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.framework.Code;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.PodStatusPatch;
import io.berth.framework.PostFilterResult;
import io.berth.framework.runtime.ClientPodApi;
import io.berth.framework.Status;
import io.berth.plugins.defaultpreemption.TestFilters.ErrorOnLabelPlugin;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * DefaultPreemption's PostFilter against the embedded API server. First upstream's
 * {@code TestPostFilter} and {@code TestPreempt}, translated: each case runs in its own namespace,
 * its pods exist in the cluster, and the check covers the status (code and exact message), the
 * nomination, and which pods were preempted (marked {@code DisruptionTarget} and gracefully
 * deleted); the extender cases are left out, Berth has no scheduler extenders. Then
 * prepareCandidate's other duties: Preempted events, skipping victims already being deleted, and
 * clearing lower-priority nominations to the node.
 */
class DefaultPreemptionIT {
  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  record Case(String name, Consumer<PreemptionRuntime.Builder> plugins, Pod pod, List<Pod> pods,
      List<Node> nodes, List<PodDisruptionBudget> pdbs, Map<String, Code> statuses,
      Status wantStatus, NominatingInfo wantNomination, Set<String> wantVictims) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final Consumer<PreemptionRuntime.Builder> FIT_AND_TEST_PLUGIN =
      b -> b.fit().plugin(ErrorOnLabelPlugin.NAME, ErrorOnLabelPlugin.factory());
  private static final Map<String, String> NODE_RES = Map.of("cpu", "200m", "memory", "400");

  private static Case postFilter(String name, Pod pod, List<Pod> pods, List<Node> nodes,
      Map<String, Code> statuses, Status want, NominatingInfo nomination, Set<String> victims) {
    return new Case(name, FIT_AND_TEST_PLUGIN, pod, pods, nodes, List.of(), statuses, want,
        nomination, victims);
  }

  static Stream<Case> cases() {
    Code u = Code.UNSCHEDULABLE;
    Code uu = Code.UNSCHEDULABLE_AND_UNRESOLVABLE;
    List<Case> cases = new ArrayList<>();
    cases.add(postFilter("pod with higher priority can be made schedulable",
        pod("p").priority(HIGH).obj(), List.of(pod("p1").node("node1").obj()),
        List.of(node("node1", ONE_POD)), Map.of("node1", u), Status.SUCCESS,
        NominatingInfo.override("node1"), Set.of("p1")));
    cases.add(postFilter("pod with tied priority is still unschedulable", pod("p").obj(),
        List.of(pod("p1").node("node1").obj()), List.of(node("node1", ONE_POD)),
        Map.of("node1", u), Status.unschedulable("preemption: 0/1 nodes are available: 1 No"
            + " preemption victims found for incoming pod."),
        NominatingInfo.override(""), Set.of()));
    cases.add(postFilter("preemption should respect filteredNodesStatuses",
        pod("p").priority(HIGH).obj(), List.of(pod("p1").node("node1").obj()),
        List.of(node("node1", ONE_POD)), Map.of("node1", uu),
        Status.unschedulable("preemption: 0/1 nodes are available: 1 Preemption is not helpful"
            + " for scheduling."), NominatingInfo.override(""), Set.of()));
    cases.add(postFilter("preemption should respect absent NodeToStatus entry meaning"
        + " UnschedulableAndUnresolvable", pod("p").priority(HIGH).obj(),
        List.of(pod("p1").node("node1").obj()), List.of(node("node1", ONE_POD)), Map.of(),
        Status.unschedulable("preemption: 0/1 nodes are available: 1 Preemption is not helpful"
            + " for scheduling."), NominatingInfo.override(""), Set.of()));
    cases.add(postFilter("pod can be made schedulable on one node",
        pod("p").priority(MID).obj(),
        List.of(pod("p1").priority(HIGH).node("node1").obj(),
            pod("p2").priority(LOW).node("node2").obj()),
        List.of(node("node1", ONE_POD), node("node2", ONE_POD)),
        Map.of("node1", u, "node2", u), Status.SUCCESS, NominatingInfo.override("node2"),
        Set.of("p2")));
    cases.add(new Case("pod can be made schedulable on minHighestPriority node",
        FIT_AND_TEST_PLUGIN, pod("p").priority(VERY_HIGH).obj(),
        List.of(pod("p1").label("pdb", "non-violating").priority(HIGH).node("node1").obj(),
            pod("p2").label("pdb", "violating").priority(LOW).node("node1").obj(),
            pod("p3").label("pdb", "violating").priority(MID).node("node2").obj()),
        List.of(node("node1", ONE_POD), node("node2", ONE_POD)),
        List.of(pdb("NS", "pdb", "violating", 0),
            pdb("NS", "pdb", "non-violating", Integer.MAX_VALUE)),
        Map.of("node1", u, "node2", u), Status.SUCCESS, NominatingInfo.override("node2"),
        Set.of("p3")));
    cases.add(postFilter("no candidate nodes found, no enough resource after removing low"
        + " priority pods", pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1").node("node1").obj(), pod("p2").node("node2").obj()),
        List.of(node("node1", NODE_RES), node("node2", NODE_RES)),
        Map.of("node1", u, "node2", u),
        Status.unschedulable("preemption: 0/2 nodes are available: 2 Insufficient cpu."),
        NominatingInfo.override(""), Set.of()));
    cases.add(postFilter("no candidate nodes found with mixed reasons, no lower priority pod and"
        + " no enough CPU resource", pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1").node("node1").priority(HIGH).obj(), pod("p2").node("node2").obj(),
            pod("p3").node("node3").priority(HIGH).obj()),
        List.of(node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)),
        Map.of("node1", u, "node2", u, "node3", u),
        Status.unschedulable("preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No"
            + " preemption victims found for incoming pod."),
        NominatingInfo.override(""), Set.of()));
    cases.add(postFilter("no candidate nodes found with mixed reason, 2"
        + " UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource",
        pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1").node("node1").obj(), pod("p2").node("node2").obj()),
        List.of(node("node1", NODE_RES), node("node2", NODE_RES), node("node3", NODE_RES),
            node("node4", NODE_RES)),
        Map.of("node1", u, "node2", u, "node4", uu),
        Status.unschedulable("preemption: 0/4 nodes are available: 2 Insufficient cpu, 2"
            + " Preemption is not helpful for scheduling."),
        NominatingInfo.override(""), Set.of()));
    cases.add(postFilter("only one node but failed with TestPlugin",
        pod("p").priority(HIGH).req(LARGE).obj(), List.of(pod("p1").node("node1").obj()),
        List.of(node("node1", LARGE, Map.of("error", "true"))), Map.of("node1", u),
        Status.error("preemption: running RemovePod on PreFilter plugin \"test-plugin\": failed"
            + " to remove pod: p"), NominatingInfo.NOOP, Set.of()));
    cases.add(postFilter("one failed with TestPlugin and the other pass",
        pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1").node("node1").obj(), pod("p2").node("node2").req(MEDIUM).obj()),
        List.of(node("node1", LARGE, Map.of("error", "true")), node("node2", LARGE)),
        Map.of("node1", u, "node2", u), Status.SUCCESS, NominatingInfo.override("node2"),
        Set.of("p2")));
    // upstream TestPreempt: every node Unschedulable, NodeResourcesFit or PodTopologySpread
    List<Node> threeNodes = topologyNodes("node1", "node2", "node3");
    Map<String, Code> allThree = Map.of("node1", u, "node2", u, "node3", u);
    List<Pod> basic = List.of(pod("p1.1").node("node1").priority(LOW).req(SMALL).obj(),
        pod("p1.2").node("node1").priority(LOW).req(SMALL).obj(),
        pod("p2.1").node("node2").priority(HIGH).req(LARGE).obj(),
        pod("p3.1").node("node3").priority(MID).req(MEDIUM).obj());
    cases.add(new Case("basic preemption logic", PreemptionRuntime.Builder::fit,
        pod("p").priority(HIGH).req(VERY_LARGE).preemptionPolicy("PreemptLowerPriority").obj(),
        basic, threeNodes, List.of(), allThree, Status.SUCCESS, NominatingInfo.override("node1"),
        Set.of("p1.1", "p1.2")));
    cases.add(new Case("preemption for topology spread constraints",
        PreemptionRuntime.Builder::podTopologySpread,
        pod("p").label("foo", "").priority(HIGH).spreadConstraint(1, "zone", "foo")
            .spreadConstraint(1, "hostname", "foo").obj(),
        List.of(pod("p-a1").node("node-a").label("foo", "").priority(HIGH).obj(),
            pod("p-a2").node("node-a").label("foo", "").priority(HIGH).obj(),
            pod("p-b1").node("node-b").label("foo", "").priority(LOW).obj(),
            pod("p-x1").node("node-x").label("foo", "").priority(HIGH).obj(),
            pod("p-x2").node("node-x").label("foo", "").priority(HIGH).obj()),
        topologyNodes("node-a/zone1", "node-b/zone1", "node-x/zone2"), List.of(),
        Map.of("node-a", u, "node-b", u, "node-x", u), Status.SUCCESS,
        NominatingInfo.override("node-b"), Set.of("p-b1")));
    cases.add(new Case("no preempting in pod", PreemptionRuntime.Builder::fit,
        pod("p").priority(HIGH).req(VERY_LARGE).preemptionPolicy("Never").obj(), basic,
        threeNodes, List.of(), allThree,
        Status.unschedulable("preemption: not eligible due to preemptionPolicy=Never."),
        NominatingInfo.NOOP, Set.of()));
    cases.add(new Case("PreemptionPolicy is nil", PreemptionRuntime.Builder::fit,
        pod("p").priority(HIGH).req(VERY_LARGE).obj(), basic, threeNodes, List.of(), allThree,
        Status.SUCCESS, NominatingInfo.override("node1"), Set.of("p1.1", "p1.2")));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void postFilterAsUpstream(Case tc) {
    KubernetesClient client = CLUSTER.client();
    String ns = newNamespace(client, "postfilter");
    List<Pod> pods = tc.pods().stream().map(p -> client.resource(inNamespace(p, ns)).create())
        .toList();
    Pod preemptor = new PodBuilder(tc.pod()).editMetadata().withNamespace(ns).endMetadata()
        .build();
    List<PodDisruptionBudget> pdbs = tc.pdbs().stream().map(p -> new PodDisruptionBudgetBuilder(p)
        .editMetadata().withNamespace(ns).endMetadata().build()).toList();
    PreemptionRuntime.Builder b = PreemptionRuntime.builder();
    tc.plugins().accept(b);
    PreemptionRuntime rt = b.nodes(nodeInfos(tc.nodes(), pods)).objects(pdbs).client(client)
        .build();
    NodeToStatus statuses = new NodeToStatus();
    tc.statuses().forEach((node, code) -> statuses.set(node, Status.of(code)));

    PostFilterResult r = rt.plugin.postFilter(rt.preFiltered(preemptor), preemptor, statuses);

    assertThat(r.status().code()).isEqualTo(tc.wantStatus().code());
    assertThat(r.status().message()).isEqualTo(tc.wantStatus().message());
    assertThat(r.nominatingInfo()).isEqualTo(tc.wantNomination());
    assertThat(preempted(client, ns)).isEqualTo(tc.wantVictims());
    for (Pod p : client.pods().inNamespace(ns).list().getItems()) {
      boolean victim = tc.wantVictims().contains(p.getMetadata().getName());
      assertThat(hasDisruptionTarget(p)).as("DisruptionTarget on %s", p.getMetadata().getName())
          .isEqualTo(victim);
    }
    if (r.status().isSuccess()) {
      // upstream: preempting again while the victims terminate must not preempt anything more
      Pod nominated = new PodBuilder(preemptor).editOrNewStatus()
          .withNominatedNodeName(r.nominatingInfo().nominatedNodeName()).endStatus().build();
      List<Pod> now = client.pods().inNamespace(ns).list().getItems();
      PreemptionRuntime again = PreemptionRuntime.builder().fit().nodes(nodeInfos(tc.nodes(), now))
          .objects(pdbs).client(client).build();
      PostFilterResult second = again.plugin.postFilter(again.preFiltered(nominated), nominated,
          statuses);
      assertThat(second.status().message()).isEqualTo(
          "preemption: not eligible due to a terminating pod on the nominated node.");
      assertThat(preempted(client, ns)).isEqualTo(tc.wantVictims());
    }
  }

  private static String newNamespace(KubernetesClient client, String prefix) {
    String ns = prefix + "-" + NAMESPACES.incrementAndGet();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns)
        .endMetadata().build()).create();
    return ns;
  }

  @Test
  void preparingTheCandidateEvictsRecordsEventsAndClearsLowerNominations() {
    KubernetesClient client = CLUSTER.client();
    String ns = newNamespace(client, "prepare");
    Pod preemptor = client.resource(inNamespace(
        pod("p").priority(HIGH).req(VERY_LARGE).obj(), ns)).create();
    Pod v1 = client.resource(inNamespace(
        pod("v1").node("node1").priority(LOW).req(LARGE).startTime(1).obj(), ns)).create();
    Pod v2 = client.resource(inNamespace(
        pod("v2").node("node1").priority(LOW).req(LARGE).startTime(2).obj(), ns)).create();
    Pod lowNominated = nominate(client, client.resource(inNamespace(
        pod("n-low").priority(LOW).obj(), ns)).create(), "node1");
    Pod highNominated = nominate(client, client.resource(inNamespace(
        pod("n-high").priority(VERY_HIGH).obj(), ns)).create(), "node1");
    // the scheduler's cache already saw v2's deletion start: no second API call for it
    Pod v2Terminating = new PodBuilder(v2).editMetadata()
        .withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata().build();
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    Map<String, String> nodeRes = Map.of("cpu", "700m", "memory", "700", "pods", "10");
    PreemptionRuntime rt = PreemptionRuntime.builder().fit()
        .nodes(nodeInfos(List.of(node("node1", nodeRes)), List.of(v1, v2Terminating)))
        .nominator(node -> node.equals("node1")
            ? List.of(PodInfo.of(lowNominated), PodInfo.of(highNominated)) : List.of())
        .events((regarding, type, reason, action, message) -> events.add(type + " " + reason
            + " " + action + " " + regarding.getMetadata().getName() + ": " + message))
        .client(client).build();
    NodeToStatus statuses = new NodeToStatus();
    statuses.set("node1", Status.unschedulable("Insufficient cpu"));

    PostFilterResult r = rt.plugin.postFilter(rt.preFiltered(preemptor), preemptor, statuses);

    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.override("node1"));
    Pod v1Now = client.pods().inNamespace(ns).withName("v1").get();
    assertThat(v1Now.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(hasDisruptionTarget(v1Now)).isTrue();
    Pod v2Now = client.pods().inNamespace(ns).withName("v2").get();
    assertThat(v2Now.getMetadata().getDeletionTimestamp()).isNull();
    assertThat(hasDisruptionTarget(v2Now)).isFalse();
    assertThat(events).containsExactly("Normal Preempted Preempting v1: Preempted by pod "
        + preemptor.getMetadata().getUid() + " on node node1");
    assertThat(client.pods().inNamespace(ns).withName("n-low").get().getStatus()
        .getNominatedNodeName()).isNull();
    assertThat(client.pods().inNamespace(ns).withName("n-high").get().getStatus()
        .getNominatedNodeName()).isEqualTo("node1");
  }

  @Test
  void victimAlreadyGoneIsNotAnError() {
    KubernetesClient client = CLUSTER.client();
    String ns = newNamespace(client, "gone");
    // never created in the cluster: the status patch answers 404
    Pod ghost = new PodBuilder(pod("ghost").node("node1").priority(LOW).obj()).editMetadata()
        .withNamespace(ns).endMetadata().build();
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    PreemptionRuntime rt = PreemptionRuntime.builder().fit()
        .nodes(nodeInfos(List.of(node("node1", ONE_POD)), List.of(ghost)))
        .events((regarding, type, reason, action, message) -> events.add(reason))
        .client(client).build();
    Pod preemptor = new PodBuilder(pod("p").priority(HIGH).obj()).editMetadata()
        .withNamespace(ns).endMetadata().build();
    NodeToStatus statuses = new NodeToStatus();
    statuses.set("node1", Status.unschedulable("Too many pods"));

    PostFilterResult r = rt.plugin.postFilter(rt.preFiltered(preemptor), preemptor, statuses);

    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.override("node1"));
    assertThat(events).isEmpty();
  }

  @Test
  void refusedVictimWritesAreThrownWithTheServersCode() {
    KubernetesClient client = CLUSTER.client();
    String ns = newNamespace(client, "refused");
    Pod victim = client.resource(inNamespace(pod("v").node("node1").priority(LOW).obj(), ns))
        .create();
    ClientPodApi api = new ClientPodApi(client);
    PodStatusPatch patch = PodStatusPatch.nominatedNodeName("node1");
    CLUSTER.cluster().faults().failNext("patch", "pods/status", 1, 409);
    assertThatThrownBy(() -> api.patchStatus(victim, patch))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(409);
          assertThat(e.getMessage()).contains(ns + "/v").contains("injected fault: 409");
        });
    CLUSTER.cluster().faults().failNext("delete", "pods", 1, 422);
    assertThatThrownBy(() -> api.delete(victim))
        .isInstanceOfSatisfying(KubernetesClientException.class,
            e -> assertThat(e.getCode()).isEqualTo(422));
    // nothing was written by the refused calls; the next ones go through
    assertThat(client.pods().inNamespace(ns).withName("v").get().getMetadata()
        .getDeletionTimestamp()).isNull();
    assertThat(api.patchStatus(victim, patch)).isTrue();
    assertThat(client.pods().inNamespace(ns).withName("v").get().getStatus()
        .getNominatedNodeName()).isEqualTo("node1");
    assertThat(api.delete(victim)).isTrue();
    assertThat(client.pods().inNamespace(ns).withName("v").get().getMetadata()
        .getDeletionTimestamp()).isNotNull();
  }

  private static Pod nominate(KubernetesClient client, Pod pod, String nodeName) {
    return client.pods().inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName()).subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"nominatedNodeName\":\"" + nodeName + "\"}}");
  }

  @BeforeAll
  static void priorityClasses() {
    for (int value : List.of(NEG, LOW, MID, HIGH, VERY_HIGH)) {
      CLUSTER.client().resource(new PriorityClassBuilder().withNewMetadata()
          .withName(priorityClassName(value)).endMetadata().withValue(value).build()).create();
    }
  }

  /** The PriorityClass the fixtures' priorities map to (admission resolves it back). */
  static String priorityClassName(int value) {
    return "prio-" + (value < 0 ? "m" + -value : value);
  }

  /**
   * The pod as a user would submit it in {@code ns}: the API server assigns the uid and, from
   * its PriorityClass, the priority.
   */
  static Pod inNamespace(Pod pod, String ns) {
    Integer priority = pod.getSpec().getPriority();
    return new PodBuilder(pod).editMetadata().withNamespace(ns).withUid(null).endMetadata()
        .editSpec().withPriority(null)
        .withPriorityClassName(priority == null ? null : priorityClassName(priority)).endSpec()
        .build();
  }

  /** Names of the pods being (or already) deleted in {@code ns}. */
  static Set<String> preempted(KubernetesClient client, String ns) {
    return client.pods().inNamespace(ns).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() != null)
        .map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
  }

  static boolean hasDisruptionTarget(Pod p) {
    return p.getStatus() != null && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream().anyMatch(c ->
            "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus())
                && "PreemptionByScheduler".equals(c.getReason())
                && "default-scheduler: preempting to accommodate a higher priority pod"
                    .equals(c.getMessage()));
  }
}
