package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HOSTNAME;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.ZONE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.find;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.matchLabels;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationControllerBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Default constraints: system defaults and listed ones, with the selector of what owns the pod. */
class DefaultConstraintsTest {

  static Pod web(String name, String node) {
    return pod(name).node(node).label("app", "web").owner("rs1", "apps/v1", "ReplicaSet").obj();
  }

  static Map<String, Long> scoreAll(PodTopologySpread plugin, Pod pod, List<NodeInfo> infos) {
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, pod, infos)).isEqualTo(Status.SUCCESS);
    List<NodeScore> scores = new ArrayList<>();
    for (NodeInfo n : infos) {
      scores.add(new NodeScore(n.nodeName(), plugin.score(state, pod, n)));
    }
    plugin.scoreExtensions().orElseThrow().normalizeScore(state, pod, scores);
    Map<String, Long> out = new LinkedHashMap<>();
    scores.forEach(s -> out.put(s.name(), s.score()));
    return out;
  }

  static Map<String, Object> listDefault(int maxSkew, String key, String action) {
    return Map.of("defaultingType", "List", "defaultConstraints",
        List.of(Map.of("maxSkew", maxSkew, "topologyKey", key, "whenUnsatisfiable", action)));
  }

  @Test
  void systemDefaultsSpreadReplicaSetPodsAcrossHostsAndZones() {
    List<Node> nodes = List.of(node("node-a").label(HOSTNAME, "node-a").label(ZONE, "z1").obj(),
        node("node-b").label(HOSTNAME, "node-b").label(ZONE, "z1").obj(),
        node("node-c").label(HOSTNAME, "node-c").label(ZONE, "z2").obj());
    List<NodeInfo> infos = nodeInfos(nodes, List.of(web("w1", "node-a"), web("w2", "node-a"),
        web("w3", "node-c"),
        // Not selected by the ReplicaSet: must not count.
        pod("db1").node("node-b").label("app", "db").obj(),
        pod("db2").node("node-b").label("app", "db").obj()));
    TestHandle handle = new TestHandle().withNodes(infos)
        .withObjects(PreScoreStateTest.replicaSet("rs1", matchLabels("app", "web")));
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(Map.of(), handle);
    Pod incoming = pod("p").label("app", "web").owner("rs1", "apps/v1", "ReplicaSet").obj();

    // Raw: a = 2*ln5+2 + 2*ln4+4 = 12, b = 0+2 + 2*ln4+4 = 9, c = ln5+2 + ln4+4 = 9.
    assertThat(scoreAll(plugin, incoming, infos))
        .isEqualTo(Map.of("node-a", 75L, "node-b", 100L, "node-c", 100L));
    // System defaults are soft only: nothing to filter.
    assertThat(plugin.preFilter(new CycleState(), incoming, infos).status().isSkip()).isTrue();
  }

  @Test
  void systemDefaultsStillScoreNodesWithoutZone() {
    List<Node> nodes = List.of(node("node-a").label(HOSTNAME, "node-a").label(ZONE, "z1").obj(),
        node("node-b").label(HOSTNAME, "node-b").obj());
    List<NodeInfo> infos = nodeInfos(nodes, List.of(web("w1", "node-a")));
    TestHandle handle = new TestHandle().withNodes(infos)
        .withObjects(PreScoreStateTest.replicaSet("rs1", matchLabels("app", "web")));
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(Map.of(), handle);
    Pod incoming = pod("p").label("app", "web").owner("rs1", "apps/v1", "ReplicaSet").obj();
    CycleState state = new CycleState();
    plugin.preScore(state, incoming, infos);
    assertThat(state.readOrFail(PreScoreState.KEY, PreScoreState.class).ignoredNodes())
        .isEmpty();
    // Zones z1 and "" (node-b): raw a = ln4+2 + ln4+4 = 9, b = 0+2 (zone not scored) = 2.
    assertThat(scoreAll(plugin, incoming, infos))
        .isEqualTo(Map.of("node-a", 22L, "node-b", 100L));
  }

  @Test
  void listedHardDefaultFollowsStatefulSetSelector() {
    List<Node> nodes = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj());
    Pod member = pod("ss-0").node("node-a").label("app", "db")
        .owner("ss", "apps/v1", "StatefulSet").obj();
    List<NodeInfo> infos = nodeInfos(nodes, List.of(member));
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(new StatefulSetBuilder()
        .withNewMetadata().withName("ss").withNamespace("default").endMetadata().withNewSpec()
        .withSelector(matchLabels("app", "db")).endSpec().build());
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
        listDefault(1, "node", DNS), handle);
    Pod incoming = pod("ss-1").label("app", "db").owner("ss", "apps/v1", "StatefulSet").obj();
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, incoming, infos).status()).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(state, incoming, find(infos, "node-a")).code())
        .isEqualTo(Code.UNSCHEDULABLE);
    assertThat(plugin.filter(state, incoming, find(infos, "node-b"))).isEqualTo(Status.SUCCESS);
  }

  @Test
  void replicationControllerSelectorIsMergedAsLabels() {
    List<Node> nodes = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj());
    Pod member = pod("rc-1").node("node-b").label("app", "legacy")
        .owner("rc", "v1", "ReplicationController").obj();
    List<NodeInfo> infos = nodeInfos(nodes, List.of(member));
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(
        new ReplicationControllerBuilder().withNewMetadata().withName("rc")
            .withNamespace("default").endMetadata().withNewSpec().addToSelector("app", "legacy")
            .endSpec().build());
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
        listDefault(1, "node", DNS), handle);
    Pod incoming = pod("rc-2").label("app", "legacy")
        .owner("rc", "v1", "ReplicationController").obj();
    CycleState state = new CycleState();
    plugin.preFilter(state, incoming, infos);
    assertThat(plugin.filter(state, incoming, find(infos, "node-a"))).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(state, incoming, find(infos, "node-b")).code())
        .isEqualTo(Code.UNSCHEDULABLE);
  }

  @Test
  void serviceAndReplicaSetSelectorsAreBothRequired() {
    List<Node> nodes = List.of(node("node-a").label("node", "node-a").obj(),
        node("node-b").label("node", "node-b").obj());
    List<NodeInfo> infos = nodeInfos(nodes, List.of(
        // Matches the ReplicaSet but not the Service: not counted.
        pod("x").node("node-a").label("app", "web").obj(),
        pod("y").node("node-b").label("app", "web").label("tier", "fe").obj()));
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(
        new ServiceBuilder().withNewMetadata().withName("fe").withNamespace("default")
            .endMetadata().withNewSpec().addToSelector("tier", "fe").endSpec().build(),
        PreScoreStateTest.replicaSet("rs1", matchLabels("app", "web")));
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
        listDefault(1, "node", DNS), handle);
    Pod incoming = pod("p").label("app", "web").label("tier", "fe")
        .owner("rs1", "apps/v1", "ReplicaSet").obj();
    CycleState state = new CycleState();
    plugin.preFilter(state, incoming, infos);
    PreFilterState s = state.readOrFail(PreFilterState.KEY, PreFilterState.class);
    assertThat(s.matchNums(0)).isEqualTo(Map.of("node-a", 0, "node-b", 1));
    assertThat(plugin.filter(state, incoming, find(infos, "node-a"))).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(state, incoming, find(infos, "node-b")).code())
        .isEqualTo(Code.UNSCHEDULABLE);
  }

  @Test
  void podWithoutSelectingObjectsGetsNoDefaultConstraints() {
    List<NodeInfo> infos = nodeInfos(List.of(node("node-a").label("node", "node-a").obj()),
        List.of());
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(
        // An unknown controller group and a Service selecting other pods contribute nothing.
        PreScoreStateTest.replicaSet("rs1", matchLabels("app", "web")),
        new ServiceBuilder().withNewMetadata().withName("other").withNamespace("default")
            .endMetadata().withNewSpec().addToSelector("app", "other").endSpec().build());
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
        listDefault(1, "node", DNS), handle);
    Pod incoming = pod("p").label("app", "web")
        .owner("rs1", "extensions/v1beta1", "ReplicaSet").obj();
    assertThat(plugin.preFilter(new CycleState(), incoming, infos).status().isSkip()).isTrue();
  }

  @Test
  void servicesInOtherNamespacesDoNotSelectThePod() {
    List<NodeInfo> infos = nodeInfos(List.of(node("node-a").label("node", "node-a").obj()),
        List.of());
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(new ServiceBuilder()
        .withNewMetadata().withName("fe").withNamespace("elsewhere").endMetadata().withNewSpec()
        .addToSelector("app", "web").endSpec().build());
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
        listDefault(1, "node", ANYWAY), handle);
    Pod incoming = pod("p").label("app", "web").obj();
    assertThat(plugin.preScore(new CycleState(), incoming, infos).isSkip()).isTrue();
  }

  @Test
  void podConstraintsReplaceDefaults() {
    List<Node> nodes = List.of(node("node-a").label("node", "node-a").label("rack", "r1").obj(),
        node("node-b").label("node", "node-b").label("rack", "r2").obj());
    List<NodeInfo> infos = nodeInfos(nodes, List.of(web("w1", "node-a")));
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(
        PreScoreStateTest.replicaSet("rs1", matchLabels("app", "web")));
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(
        listDefault(1, "node", DNS), handle);
    Pod incoming = pod("p").label("app", "web").owner("rs1", "apps/v1", "ReplicaSet")
        .spread(3, "rack", DNS, matchLabels("app", "web")).obj();
    CycleState state = new CycleState();
    plugin.preFilter(state, incoming, infos);
    PreFilterState s = state.readOrFail(PreFilterState.KEY, PreFilterState.class);
    assertThat(s.constraints()).extracting(SpreadConstraint::topologyKey)
        .containsExactly("rack");
    assertThat(s.constraints().get(0).maxSkew()).isEqualTo(3);
  }

  @Test
  void factoryAsksForListersOnlyWhenDefaultsApply() {
    RecordingHandle listed = new RecordingHandle();
    PodTopologySpread.create(Map.of("defaultingType", "List"), listed);
    assertThat(listed.requested).isEmpty();

    RecordingHandle system = new RecordingHandle();
    PodTopologySpread.create(Map.of(), system);
    assertThat(system.requested).containsExactlyInAnyOrder("Service", "ReplicationController",
        "ReplicaSet", "StatefulSet");
  }

  /** A TestHandle that records which listers the plugin asked for. */
  static final class RecordingHandle extends DelegatingHandle {
    final List<String> requested = new ArrayList<>();

    RecordingHandle() {
      super(new TestHandle());
    }

    @Override
    public <T extends HasMetadata> io.berth.framework.ObjectLister<T> lister(Class<T> type) {
      requested.add(type.getSimpleName());
      return super.lister(type);
    }
  }
}
