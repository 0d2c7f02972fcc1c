package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HONOR;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HOSTNAME;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.IGNORE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.UNSCHEDULABLE_TAINT;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.ZONE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.barSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.exists;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.matchLabels;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** PreScore's state and Skip cases, from upstream's TestPreScoreStateEmptyNodes/PreScoreSkip. */
class PreScoreStateTest {

  /** One constraint's expected key, domain counts and weight {@code log(size + 2)}. */
  record Want(String key, Map<String, Long> counts, int size) {}

  record Case(String name, Pod pod, List<Node> nodes, Map<String, Object> args,
      List<HasMetadata> objs, Set<String> ignored, List<Want> want) {}

  static final Map<String, Object> LIST = Map.of("defaultingType", "List");

  static ReplicaSet replicaSet(String name, LabelSelector selector) {
    return new ReplicaSetBuilder().withNewMetadata().withName(name).withNamespace("default")
        .endMetadata().withNewSpec().withSelector(selector).endSpec().build();
  }

  static Map<String, Object> listDefaults(Object... constraints) {
    return Map.of("defaultingType", "List", "defaultConstraints", List.of(constraints));
  }

  static Map<String, Object> constraint(int maxSkew, String key, String action) {
    return Map.of("maxSkew", maxSkew, "topologyKey", key, "whenUnsatisfiable", action);
  }

  static List<Node> threeZoneHosts() {
    return List.of(node("node-a").label("zone", "zone1").label(HOSTNAME, "node-a").obj(),
        node("node-b").label("zone", "zone1").label(HOSTNAME, "node-b").obj(),
        node("node-x").label("zone", "zone2").label(HOSTNAME, "node-x").obj());
  }

  static List<Node> policyNodes(boolean taintX) {
    Node x = taintX
        ? node("node-x").label("zone", "zone2").label(HOSTNAME, "node-x")
            .taint(UNSCHEDULABLE_TAINT).obj()
        : node("node-x").label("zone", "zone2").label(HOSTNAME, "node-x").obj();
    return List.of(
        node("node-a").label("zone", "zone1").label("foo", "").label(HOSTNAME, "node-a").obj(),
        node("node-b").label("zone", "zone1").label("foo", "").label(HOSTNAME, "node-b").obj(),
        x);
  }

  static Want zones12() {
    return new Want("zone", Map.of("zone1", 0L, "zone2", 0L), 2);
  }

  static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(new Case("normal case",
        pod("p").label("foo", "").spread(1, "zone", ANYWAY, fooSelector())
            .spread(1, HOSTNAME, ANYWAY, fooSelector()).obj(),
        threeZoneHosts(), LIST, List.of(), Set.of(),
        List.of(zones12(), new Want(HOSTNAME, Map.of(), 3))));
    cases.add(new Case("null selector",
        pod("p").label("foo", "").spread(1, "zone", ANYWAY, null).obj(), threeZoneHosts(), LIST,
        List.of(), Set.of(), List.of(zones12())));
    cases.add(new Case("node-x doesn't have label zone",
        pod("p").label("foo", "").spread(1, "zone", ANYWAY, fooSelector())
            .spread(1, HOSTNAME, ANYWAY, barSelector()).obj(),
        List.of(node("node-a").label("zone", "zone1").label(HOSTNAME, "node-a").obj(),
            node("node-b").label("zone", "zone1").label(HOSTNAME, "node-b").obj(),
            node("node-x").label(HOSTNAME, "node-x").obj()),
        LIST, List.of(), Set.of("node-x"),
        List.of(new Want("zone", Map.of("zone1", 0L), 1), new Want(HOSTNAME, Map.of(), 2))));
    Pod owned = pod("p").label("foo", "tar").label("baz", "sup")
        .owner("rs1", "apps/v1", "ReplicaSet").obj();
    cases.add(new Case("system default constraints and a replicaset", owned,
        List.of(node("node-a").label(HOSTNAME, "node-a").label(ZONE, "mars").obj(),
            node("node-b").label(HOSTNAME, "node-b").label(ZONE, "mars").obj(),
            // Nodes with no zone are not excluded: together they form the zone "".
            node("node-c").label(HOSTNAME, "node-c").obj(),
            node("node-d").label(HOSTNAME, "node-d").obj()),
        Map.of("defaultingType", "System"), List.of(replicaSet("rs1", fooSelector())), Set.of(),
        List.of(new Want(HOSTNAME, Map.of(), 4), new Want(ZONE, Map.of("mars", 0L, "", 0L), 2))));
    cases.add(new Case("default constraints and a replicaset", owned,
        List.of(node("node-a").label("rack", "rack1").label(HOSTNAME, "node-a")
            .label("planet", "mars").obj()),
        listDefaults(constraint(1, HOSTNAME, ANYWAY), constraint(2, "rack", DNS),
            constraint(2, "planet", ANYWAY)),
        List.of(replicaSet("rs1", fooSelector())), Set.of(),
        List.of(new Want(HOSTNAME, Map.of(), 1), new Want("planet", Map.of("mars", 0L), 1))));
    cases.add(new Case("default constraints and a replicaset, but pod has constraints",
        pod("p").label("foo", "bar").label("baz", "sup").owner("rs1", "apps/v1", "ReplicaSet")
            .spread(1, "zone", DNS, barSelector())
            .spread(2, "planet", ANYWAY, matchLabels("baz", "sup")).obj(),
        List.of(node("node-a").label("planet", "mars").label("galaxy", "andromeda").obj()),
        listDefaults(constraint(2, "galaxy", ANYWAY)),
        List.of(replicaSet("rs1", fooSelector())), Set.of(),
        List.of(new Want("planet", Map.of("mars", 0L), 1))));
    cases.add(new Case("NodeAffinityPolicy honored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "zone", ANYWAY, barSelector()).obj(),
        policyNodes(false), LIST, List.of(), Set.of(), List.of(zones12())));
    cases.add(new Case("NodeAffinityPolicy ignored with labelSelectors",
        pod("p").label("foo", "").nodeSelector("foo", "")
            .spread(1, "zone", ANYWAY, barSelector(), null, IGNORE, null).obj(),
        policyNodes(false), LIST, List.of(), Set.of(), List.of(zones12())));
    cases.add(new Case("NodeTaintsPolicy honored",
        pod("p").label("foo", "").spread(1, "zone", ANYWAY, barSelector(), null, null, HONOR)
            .obj(), policyNodes(true), LIST, List.of(), Set.of(), List.of(zones12())));
    return cases;
  }

  @TestFactory
  Stream<DynamicTest> preScoreBuildsCountsWeightsAndIgnoredNodes() {
    return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
      List<NodeInfo> infos = nodeInfos(c.nodes(), List.of());
      TestHandle handle = new TestHandle().withNodes(infos)
          .withObjects(c.objs().toArray(HasMetadata[]::new));
      PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(c.args(), handle);
      CycleState state = new CycleState();
      assertThat(plugin.preScore(state, c.pod(), infos)).isEqualTo(Status.SUCCESS);
      PreScoreState s = state.readOrFail(PreScoreState.KEY, PreScoreState.class);
      assertThat(s.ignoredNodes()).isEqualTo(c.ignored());
      assertThat(s.constraints()).extracting(SpreadConstraint::topologyKey)
          .containsExactlyElementsOf(c.want().stream().map(Want::key).toList());
      for (int i = 0; i < c.want().size(); i++) {
        Want w = c.want().get(i);
        assertThat(s.domainCounts(i)).as("counts of %s", w.key()).isEqualTo(w.counts());
        assertThat(s.weight(i)).as("weight of %s", w.key())
            .isCloseTo(Math.log(w.size() + 2), within(1e-12));
      }
    }));
  }

  @TestFactory
  Stream<DynamicTest> preScoreSkips() {
    Node planet = node("node-a").label("planet", "mars").obj();
    List<Node> hosts = List.of(node("node-a").label(HOSTNAME, "node-a").obj(),
        node("node-b").label(HOSTNAME, "node-b").obj());
    return Stream.of(
        new Case("the pod doesn't have soft topology spread constraints", pod("p").obj(), hosts,
            LIST, List.of(), Set.of(), List.of()),
        new Case("default constraints and a replicaset that doesn't match",
            pod("p").label("foo", "bar").label("baz", "sup")
                .owner("rs2", "apps/v1", "ReplicaSet").obj(),
            List.of(planet), listDefaults(constraint(2, "planet", ANYWAY)),
            List.of(replicaSet("rs1", exists("tar"))), Set.of(), List.of()),
        new Case("hard constraints only", pod("p").label("foo", "")
            .spread(1, HOSTNAME, DNS, fooSelector()).obj(), hosts, LIST, List.of(), Set.of(),
            List.of()),
        new Case("system defaults but nothing selects the pod", pod("p").label("foo", "").obj(),
            hosts, Map.of(), List.of(), Set.of(), List.of()))
        .map(c -> DynamicTest.dynamicTest(c.name(), () -> {
          List<NodeInfo> infos = nodeInfos(c.nodes(), List.of());
          TestHandle handle = new TestHandle().withNodes(infos)
              .withObjects(c.objs().toArray(HasMetadata[]::new));
          PodTopologySpread plugin =
              (PodTopologySpread) PodTopologySpread.create(c.args(), handle);
          CycleState state = new CycleState();
          assertThat(plugin.preScore(state, c.pod(), infos).isSkip()).isTrue();
          assertThat(state.read(PreScoreState.KEY, PreScoreState.class)).isEmpty();
        }));
  }

  @Test
  void preScoreSkipsWhenTheSnapshotIsEmpty() {
    PodTopologySpread plugin = (PodTopologySpread) PodTopologySpread.create(LIST,
        new TestHandle());
    Pod pod = pod("p").label("foo", "").spread(1, HOSTNAME, ANYWAY, fooSelector()).obj();
    assertThat(plugin.preScore(new CycleState(), pod, List.of()).isSkip()).isTrue();
  }
}
