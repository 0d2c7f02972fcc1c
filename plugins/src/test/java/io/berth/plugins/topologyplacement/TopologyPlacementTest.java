package io.berth.plugins.topologyplacement;

import static io.berth.plugins.topologyplacement.Zones.ZONE;
import static io.berth.plugins.topologyplacement.Zones.bound;
import static io.berth.plugins.topologyplacement.Zones.gang;
import static io.berth.plugins.topologyplacement.Zones.info;
import static io.berth.plugins.topologyplacement.Zones.member;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.testing.TestHandle;
import io.berth.plugins.coscheduling.GroupResolver;
import io.berth.plugins.coscheduling.PodGroup;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.berth.plugins.coscheduling.WorkloadPodGroups;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** TopologyPlacement's PreFilter, Filter, Score and Unreserve over a TestHandle's pods and zoned nodes. */
class TopologyPlacementTest {

  private final Map<String, GenericKubernetesResource> workloadGroups = new HashMap<>();
  private final Map<String, GenericKubernetesResource> pluginGroups = new HashMap<>();
  private final TestHandle handle = new TestHandle();

  private TopologyPlacement plugin(Pod... pods) {
    handle.withObjects(pods);
    PodGroupLister lister = new GroupResolver(
        (ns, name) -> Optional.ofNullable(pluginGroups.get(ns + "/" + name)).map(PodGroup::from),
        (ns, name) -> Optional.ofNullable(workloadGroups.get(ns + "/" + name)).map(WorkloadPodGroups::from));
    return new TopologyPlacement(lister, handle.lister(Pod.class));
  }

  private void group(GenericKubernetesResource g) {
    workloadGroups.put("ns/" + g.getMetadata().getName(), g);
  }

  private static List<Pod> members(String group, int n, String cpu) {
    List<Pod> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(member(group + "-" + i, group, cpu));
    }
    return out;
  }

  private static List<NodeInfo> zones() {
    // zone a: 3 nodes of 4 cpu (12); zone b: 2 nodes of 4 cpu (8)
    return List.of(info("a1", "a", "4"), info("a2", "a", "4"), info("a3", "a", "4"), info("b1", "b", "4"),
        info("b2", "b", "4"));
  }

  @Test
  void theGangGetsTheTightestZoneAndEveryMemberTheSameOne() {
    group(gang("train", 3, ZONE));
    List<Pod> m = members("train", 3, "2");
    TopologyPlacement p = plugin(m.toArray(Pod[]::new));
    List<NodeInfo> nodes = zones();
    for (Pod pod : m) {
      CycleState state = new CycleState();
      PreFilterResult r = p.preFilter(state, pod, nodes);
      assertThat(r.status().isSuccess()).isTrue();
      assertThat(r.nodeNames()).as(pod.getMetadata().getName()).contains(Set.of("b1", "b2"));
      assertThat(p.filter(state, pod, nodes.get(0)).code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
      assertThat(p.filter(state, pod, nodes.get(0)).message()).contains("outside the " + ZONE + " domain \"b\"")
          .contains("PodGroup \"ns/train\"");
      assertThat(p.filter(state, pod, nodes.get(3)).isSuccess()).isTrue();
    }
  }

  @Test
  void placedMembersDecideTheDomain() {
    group(gang("train", 3, ZONE));
    List<Pod> m = members("train", 3, "2");
    TopologyPlacement p = plugin(m.toArray(Pod[]::new));
    // one member already assumed in zone a, although b would be the tighter fit for the three
    List<NodeInfo> nodes = List.of(info("a1", "a", "4", bound(m.get(0), "a1")), info("a2", "a", "4"),
        info("a3", "a", "4"), info("b1", "b", "4"), info("b2", "b", "4"));
    CycleState state = new CycleState();
    assertThat(p.preFilter(state, m.get(1), nodes).nodeNames()).contains(Set.of("a1", "a2", "a3"));
  }

  @Test
  void aGangLargerThanAnyZoneWaitsNamingTheLargestZone() {
    group(gang("huge", 7, ZONE));
    List<Pod> m = members("huge", 7, "2");
    TopologyPlacement p = plugin(m.toArray(Pod[]::new));
    PreFilterResult r = p.preFilter(new CycleState(), m.get(0), zones());
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(r.status().message()).isEqualTo("PodGroup \"ns/huge\" needs one " + ZONE + " domain for 7 of its "
        + "7 pods to place, and none can hold them: the largest, \"a\" (3 nodes, cpu 12, memory 192Gi free), holds 6");
  }

  @Test
  void noLabelledNodeIsUnresolvable() {
    group(gang("train", 1, "example.com/rack"));
    Pod pod = member("train-0", "train", "1");
    PreFilterResult r = plugin(pod).preFilter(new CycleState(), pod, zones());
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(r.status().message()).contains("no schedulable node has the label example.com/rack");
  }

  @Test
  void podsWithoutATopologyGroupAreSkipped() {
    workloadGroups.put("ns/plain", new GenericKubernetesResourceBuilder()
        .withApiVersion("scheduling.k8s.io/v1alpha2").withKind("PodGroup").withNewMetadata().withNamespace("ns")
        .withName("plain").endMetadata().addToAdditionalProperties("spec", Map.of("schedulingPolicy",
            Map.of("gang", Map.of("minCount", 1)))).build());
    Pod loner = new PodBuilder(member("x", "g", "1")).editSpec().withSchedulingGroup(null).endSpec().build();
    Pod plain = member("y", "plain", "1");
    TopologyPlacement p = plugin(loner, plain);
    for (Pod pod : List.of(loner, plain)) {
      CycleState state = new CycleState();
      assertThat(p.preFilter(state, pod, zones()).status().code()).isEqualTo(Code.SKIP);
      assertThat(p.filter(state, pod, zones().get(0)).isSuccess()).isTrue();
      assertThat(p.score(state, pod, zones().get(0))).isZero();
      assertThat(p.signPod(pod).status().isSuccess()).isTrue();
    }
  }

  @Test
  void schedulerPluginsGroupsNameTheirKeyInAnAnnotation() {
    pluginGroups.put("ns/pg", new GenericKubernetesResourceBuilder().withApiVersion("scheduling.x-k8s.io/v1alpha1")
        .withKind("PodGroup").withNewMetadata().withNamespace("ns").withName("pg")
        .addToAnnotations(PodGroup.TOPOLOGY_KEY_ANNOTATION, ZONE).endMetadata()
        .addToAdditionalProperties("spec", Map.of("minMember", 2)).build());
    List<Pod> m = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      m.add(new PodBuilder().withNewMetadata().withNamespace("ns").withName("pg-" + i).withUid("u" + i)
          .addToLabels(PodGroup.LABEL, "pg").endMetadata().withNewSpec().addNewContainer().withName("c")
          .withImage("pause").withNewResources().addToRequests("cpu", new io.fabric8.kubernetes.api.model
              .Quantity("3")).endResources().endContainer().endSpec().build());
    }
    TopologyPlacement p = plugin(m.toArray(Pod[]::new));
    assertThat(p.preFilter(new CycleState(), m.get(0), zones()).nodeNames()).contains(Set.of("b1", "b2"));
    assertThat(p.signPod(m.get(0)).status().isSuccess()).as("topology groups are not batched").isFalse();
  }

  @Test
  void aFailedAttemptMovesTheNextAttemptToAnotherFeasibleZone() {
    group(gang("train", 3, ZONE));
    List<Pod> m = members("train", 3, "2");
    TopologyPlacement p = plugin(m.toArray(Pod[]::new));
    CycleState first = new CycleState();
    assertThat(p.preFilter(first, m.get(0), zones()).nodeNames()).contains(Set.of("b1", "b2"));
    p.unreserve(first, m.get(0), "b1");
    assertThat(p.preFilter(new CycleState(), m.get(0), zones()).nodeNames()).as("b was tried")
        .contains(Set.of("a1", "a2", "a3"));
    p.unreserve(first, m.get(0), "a1");
    CycleState third = new CycleState();
    assertThat(p.preFilter(third, m.get(0), zones()).nodeNames()).as("every zone was tried: start again")
        .contains(Set.of("b1", "b2"));
  }

  @Test
  void scorePacksTheGroup() {
    group(gang("train", 2, ZONE));
    List<Pod> m = members("train", 2, "1");
    Pod other = new PodBuilder(member("o", "g", "2")).editSpec().withSchedulingGroup(null).endSpec().build();
    TopologyPlacement p = plugin(m.toArray(Pod[]::new));
    NodeInfo withSibling = info("b1", "b", "4", bound(m.get(0), "b1"));
    NodeInfo busier = info("b2", "b", "4", bound(other, "b2"));
    NodeInfo empty = info("b3", "b", "4");
    CycleState state = new CycleState();
    p.preFilter(state, m.get(1), List.of(withSibling, busier, empty));
    long sibling = p.score(state, m.get(1), withSibling);
    long packed = p.score(state, m.get(1), busier);
    long idle = p.score(state, m.get(1), empty);
    assertThat(sibling).isGreaterThan(packed);
    assertThat(packed).isGreaterThan(idle);
    assertThat(sibling).isLessThanOrEqualTo(100);
  }

  @Test
  void concurrentGroupsKeepTheirOwnChoices() throws Exception {
    PlacementChoices choices = new PlacementChoices();
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        start.await();
        var ref = new io.berth.plugins.coscheduling.GroupRef(io.berth.plugins.coscheduling.GroupRef.Api.WORKLOAD,
            "ns", "g" + id);
        for (int i = 0; i < 1000; i++) {
          choices.choose(ref, "d" + id);
          assertThat(choices.chosen(ref)).contains("d" + id);
          choices.attemptFailed(ref);
          assertThat(choices.failed(ref)).containsExactly("d" + id);
          choices.settled(ref);
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
  }
}
