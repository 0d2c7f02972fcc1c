package io.berth.plugins.podtopologyspread;

import static io.berth.framework.QueueingHint.QUEUE;
import static io.berth.framework.QueueingHint.QUEUE_SKIP;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HONOR;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.UNSCHEDULABLE_TAINT;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.barSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.listPlugin;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.matchLabels;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.EventResource;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueueingHintFn;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Registered events and queueing hints, from upstream's plugin_test.go (v1.32 semantics). */
class PodTopologySpreadHintsTest {

  record Case(String name, Pod pod, Object oldObj, Object newObj, QueueingHint want) {}

  private final PodTopologySpread plugin = listPlugin(new TestHandle());

  static Pod zonePod() {
    return pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector()).obj();
  }

  static Pod zoneNodePod() {
    return pod("p").spread(1, "zone", DNS, fooSelector()).spread(1, "node", DNS, fooSelector())
        .obj();
  }

  static Pod zoneFooNodeBarPod() {
    return pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector())
        .spread(1, "node", DNS, barSelector()).obj();
  }

  QueueingHintFn hint(EventResource resource) {
    return plugin.eventsToRegister().stream()
        .filter(e -> e.event().resource() == resource).findFirst().orElseThrow().hint();
  }

  @Test
  void registersPodAndNodeEventsAsUpstream() {
    List<ClusterEventWithHint> events = plugin.eventsToRegister();
    assertThat(events).extracting(ClusterEventWithHint::event).containsExactly(
        new ClusterEvent(EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATION | ActionType.DELETE),
        new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.DELETE
            | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT));
    assertThat(events.get(0).event().matches(ClusterEvent.ASSIGNED_POD_DELETE)).isTrue();
    assertThat(events.get(1).event().matches(
        new ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_ALLOCATABLE))).isFalse();
  }

  static List<Case> nodeCases() {
    List<Case> cases = new ArrayList<>();
    cases.add(new Case("node updates label which matches topologyKey", zonePod(),
        node("node-a").label("zone", "zone1").obj(), node("node-a").label("zone", "zone2").obj(),
        QUEUE));
    cases.add(new Case("node that doesn't match topologySpreadConstraints updates non-related"
        + " label", zonePod(), node("node-a").label("foo", "bar1").obj(),
        node("node-a").label("foo", "bar2").obj(), QUEUE_SKIP));
    // v1.32 (kubernetes#127478): an unrelated label change on a matching node is skipped.
    cases.add(new Case("node that matches topologySpreadConstraints removes non-related label",
        zoneNodePod(),
        node("node-a").label("zone", "zone1").label("node", "node1").label("foo", "bar").obj(),
        node("node-a").label("zone", "zone1").label("node", "node1").obj(), QUEUE_SKIP));
    cases.add(new Case("create node with non-related labels", zonePod(), null,
        node("node-a").label("foo", "bar").obj(), QUEUE_SKIP));
    cases.add(new Case("create node with related labels", zonePod(), null,
        node("node-a").label("zone", "zone1").obj(), QUEUE));
    cases.add(new Case("delete node with non-related labels", zonePod(),
        node("node-a").label("foo", "bar").obj(), null, QUEUE_SKIP));
    cases.add(new Case("delete node with related labels", zonePod(),
        node("node-a").label("zone", "zone1").obj(), null, QUEUE));
    cases.add(new Case("add node with related labels that only match one of the constraints",
        zoneNodePod(), null, node("node-a").label("zone", "zone1").obj(), QUEUE_SKIP));
    cases.add(new Case("add node with related labels that match all constraints", zoneNodePod(),
        null, node("node-a").label("zone", "zone1").label("node", "node1").obj(), QUEUE));
    cases.add(new Case("update node with related labels that only match one of the constraints",
        zoneNodePod(), node("node-a").label("zone", "zone1").obj(),
        node("node-a").label("zone", "zone1").obj(), QUEUE_SKIP));
    cases.add(new Case("update node with related labels that match all constraints",
        zoneNodePod(), node("node-a").label("zone", "zone1").label("node", "node1").obj(),
        node("node-a").label("zone", "zone1").label("node", "node2").obj(), QUEUE));
    cases.add(new Case("node gains the last topology key", zoneNodePod(),
        node("node-a").label("zone", "zone1").obj(),
        node("node-a").label("zone", "zone1").label("node", "node1").obj(), QUEUE));
    cases.add(new Case("node loses a topology key", zoneNodePod(),
        node("node-a").label("zone", "zone1").label("node", "node1").obj(),
        node("node-a").label("zone", "zone1").obj(), QUEUE));
    cases.add(new Case("matching node changes its taints", zonePod(),
        node("node-a").label("zone", "zone1").obj(),
        node("node-a").label("zone", "zone1").taint(UNSCHEDULABLE_TAINT).obj(), QUEUE));
    cases.add(new Case("non-matching node changes its taints", zonePod(),
        node("node-a").label("rack", "r1").obj(),
        node("node-a").label("rack", "r1").taint(UNSCHEDULABLE_TAINT).obj(), QUEUE_SKIP));
    cases.add(new Case("an object that is not a node queues", zonePod(), null, pod("x").obj(),
        QUEUE));
    return cases;
  }

  static List<Case> podCases() {
    List<Case> cases = new ArrayList<>();
    Pod multi = zoneFooNodeBarPod();
    cases.add(new Case("add pod with labels match topologySpreadConstraints selector",
        zonePod(), null, pod("x").node("fake-node").label("foo", "").obj(), QUEUE));
    cases.add(new Case("add un-scheduled pod", zonePod(), null, pod("x").label("foo", "").obj(),
        QUEUE_SKIP));
    cases.add(new Case("update un-scheduled pod", zonePod(), pod("x").label("bar", "").obj(),
        pod("x").label("foo", "").obj(), QUEUE_SKIP));
    cases.add(new Case("delete un-scheduled pod", zonePod(), pod("x").label("foo", "").obj(),
        null, QUEUE_SKIP));
    cases.add(new Case("add pod with different namespace", zonePod(), null,
        pod("x").node("fake-node").namespace("fake-namespace").label("foo", "").obj(),
        QUEUE_SKIP));
    cases.add(new Case("add pod with labels don't match topologySpreadConstraints selector",
        zonePod(), null, pod("x").node("fake-node").label("bar", "").obj(), QUEUE_SKIP));
    cases.add(new Case("delete pod with labels that match topologySpreadConstraints selector",
        zonePod(), pod("x").node("fake-node").label("foo", "").obj(), null, QUEUE));
    cases.add(new Case("delete pod with labels that don't match the selector", zonePod(),
        pod("x").node("fake-node").label("bar", "").obj(), null, QUEUE_SKIP));
    cases.add(new Case("update pod's non-related label", zonePod(),
        pod("x").node("fake-node").label("foo", "").label("bar", "bar1").obj(),
        pod("x").node("fake-node").label("foo", "").label("bar", "bar2").obj(), QUEUE_SKIP));
    cases.add(new Case("add pod's label that matches topologySpreadConstraints selector",
        zonePod(), pod("x").node("fake-node").obj(),
        pod("x").node("fake-node").label("foo", "").obj(), QUEUE));
    cases.add(new Case("delete pod label that matches topologySpreadConstraints selector",
        zonePod(), pod("x").node("fake-node").label("foo", "").obj(),
        pod("x").node("fake-node").obj(), QUEUE));
    cases.add(new Case("change pod's label that matches topologySpreadConstraints selector",
        zonePod(), pod("x").node("fake-node").label("foo", "foo1").obj(),
        pod("x").node("fake-node").label("foo", "foo2").obj(), QUEUE_SKIP));
    cases.add(new Case("add pod's label that matches a selector with multiple constraints",
        multi, pod("x").node("fake-node").label("foo", "").obj(),
        pod("x").node("fake-node").label("foo", "").label("bar", "bar2").obj(), QUEUE));
    cases.add(new Case("change pod's unrelated label with multiple constraints", multi,
        pod("x").node("fake-node").label("foo", "").obj(),
        pod("x").node("fake-node").label("foo", "").label("baz", "").obj(), QUEUE_SKIP));
    cases.add(new Case("change pod's matching label value with multiple constraints", multi,
        pod("x").node("fake-node").label("foo", "").label("bar", "").obj(),
        pod("x").node("fake-node").label("foo", "").label("bar", "bar2").obj(), QUEUE_SKIP));
    Pod honoring = pod("p").label("foo", "")
        .spread(1, "zone", DNS, fooSelector(), null, null, HONOR).obj();
    cases.add(new Case("the pod itself gets a toleration and a constraint honors taints",
        honoring, honoring,
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector(), null, null, HONOR)
            .toleration("node.kubernetes.io/unschedulable").obj(), QUEUE));
    Pod ignoring = zonePod();
    cases.add(new Case("the pod itself gets a toleration but no constraint honors taints",
        ignoring, ignoring,
        pod("p").label("foo", "").spread(1, "zone", DNS, fooSelector())
            .toleration("node.kubernetes.io/unschedulable").obj(), QUEUE_SKIP));
    cases.add(new Case("an object that is not a pod queues", zonePod(), null,
        node("n").obj(), QUEUE));
    cases.add(new Case("a pod with invalid constraints queues",
        pod("p").label("foo", "").spread(0, "zone", DNS, fooSelector()).obj(), null,
        pod("x").node("fake-node").obj(), QUEUE));
    return cases;
  }

  @TestFactory
  Stream<DynamicTest> nodeChangeHints() {
    return nodeCases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () ->
        assertThat(hint(EventResource.NODE).hint(c.pod(), c.oldObj(), c.newObj()))
            .isEqualTo(c.want())));
  }

  @TestFactory
  Stream<DynamicTest> podChangeHints() {
    return podCases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () ->
        assertThat(hint(EventResource.POD).hint(c.pod(), c.oldObj(), c.newObj()))
            .isEqualTo(c.want())));
  }

  @Test
  void hintsUseDefaultConstraintsForPodsWithoutOwnConstraints() {
    TestHandle handle = new TestHandle().withObjects(new ServiceBuilder().withNewMetadata()
        .withName("web").withNamespace("default").endMetadata().withNewSpec()
        .addToSelector("app", "web").endSpec().build());
    PodTopologySpread withDefaults = (PodTopologySpread) PodTopologySpread.create(
        Map.of("defaultingType", "List", "defaultConstraints", List.of(Map.of("maxSkew", 1,
            "topologyKey", "zone", "whenUnsatisfiable", DNS))), handle);
    QueueingHintFn podHint = withDefaults.eventsToRegister().get(0).hint();
    Pod incoming = pod("p").label("app", "web").obj();
    assertThat(podHint.hint(incoming, null,
        pod("w").node("n1").label("app", "web").obj())).isEqualTo(QUEUE);
    assertThat(podHint.hint(incoming, null,
        pod("d").node("n1").label("app", "db").obj())).isEqualTo(QUEUE_SKIP);
    QueueingHintFn nodeHint = withDefaults.eventsToRegister().get(1).hint();
    assertThat(nodeHint.hint(incoming, null, node("n2").label("zone", "z").obj()))
        .isEqualTo(QUEUE);
    // With matchLabelKeys, the rejected pod's own label values narrow what matters.
    Pod narrowed = pod("p").label("app", "web").label("rev", "2")
        .spread(1, "zone", DNS, matchLabels("app", "web"), null, null, null, "rev").obj();
    QueueingHintFn ownHint = hint(EventResource.POD);
    assertThat(ownHint.hint(narrowed, null,
        pod("old").node("n1").label("app", "web").label("rev", "1").obj())).isEqualTo(QUEUE_SKIP);
    assertThat(ownHint.hint(narrowed, null,
        pod("new").node("n1").label("app", "web").label("rev", "2").obj())).isEqualTo(QUEUE);
  }
}
