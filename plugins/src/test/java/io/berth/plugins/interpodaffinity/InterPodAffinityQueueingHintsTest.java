package io.berth.plugins.interpodaffinity;

import static io.berth.plugins.interpodaffinity.Fixtures.exists;
import static io.berth.plugins.interpodaffinity.Fixtures.in;
import static io.berth.plugins.interpodaffinity.Fixtures.node;
import static io.berth.plugins.interpodaffinity.Fixtures.plugin;
import static io.berth.plugins.interpodaffinity.Fixtures.pod;
import static io.berth.plugins.interpodaffinity.Fixtures.selector;
import static io.berth.plugins.interpodaffinity.Fixtures.term;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.EventResource;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueueingHintFn;
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
 * Registered events and queueing hints, with cases translated from upstream's plugin_test.go
 * (Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange).
 */
class InterPodAffinityQueueingHintsTest {
  private static final QueueingHint QUEUE = QueueingHint.QUEUE;
  private static final QueueingHint SKIP = QueueingHint.QUEUE_SKIP;

  record Case(String name, Pod pod, Object oldObj, Object newObj, QueueingHint want) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Pod affinityTarget() {
    return pod().name("p").affinity(term("region", in("service", "securityscan", "value2")))
        .obj();
  }

  private static Pod antiTarget() {
    return pod().name("p").antiAffinity(term("region", in("service", "securityscan", "value2")))
        .obj();
  }

  private static Pod assigned(String key, String value) {
    return pod().name("other").node("fake-node").label(key, value).obj();
  }

  private static Pod unassigned(String key, String value) {
    return pod().name("other").label(key, value).obj();
  }

  static Stream<Arguments> podCases() {
    Pod twoTerms = pod().name("p").affinity(term("hostname", exists("aaa")),
        term("hostname", exists("bbb"))).obj();
    List<Case> c = new ArrayList<>();
    c.add(new Case("add a pod which matches the pod affinity", affinityTarget(), null,
        assigned("service", "securityscan"), QUEUE));
    c.add(new Case("add an unscheduled pod", affinityTarget(), null,
        unassigned("service", "securityscan"), SKIP));
    c.add(new Case("add a pod which doesn't match the pod affinity", affinityTarget(), null,
        assigned("aaa", "a"), SKIP));
    c.add(new Case("update a pod from non-match to match pod affinity", affinityTarget(),
        assigned("aaa", "a"), assigned("service", "securityscan"), QUEUE));
    c.add(new Case("the updated pod matches the affinity before and after", affinityTarget(),
        assigned("service", "value2"), assigned("service", "securityscan"), SKIP));
    c.add(new Case("update an unscheduled pod", affinityTarget(), unassigned("aaa", "a"),
        unassigned("service", "securityscan"), SKIP));
    c.add(new Case("update a pod from match to non-match pod affinity", affinityTarget(),
        assigned("service", "securityscan"), assigned("aaa", "a"), SKIP));
    c.add(new Case("update from match to non-match - multiple terms", twoTerms,
        assigned("aaa", "a"), assigned("service", "securityscan"), SKIP));
    c.add(new Case("update from non-match to match - multiple terms", twoTerms,
        assigned("aaa", "a"), pod().name("other").node("fake-node").label("aaa", "")
            .label("bbb", "").obj(), QUEUE));
    c.add(new Case("label change stops matching the pod's anti-affinity", antiTarget(),
        assigned("service", "securityscan"), assigned("service", "aaaa"), QUEUE));
    c.add(new Case("label change starts matching the pod's anti-affinity", antiTarget(),
        assigned("service", "bbb"), assigned("service", "securityscan"), SKIP));
    c.add(new Case("delete a pod which doesn't match the pod's anti-affinity", antiTarget(),
        assigned("aaa", "a"), null, SKIP));
    c.add(new Case("delete a pod which matches the pod's anti-affinity", antiTarget(),
        assigned("service", "securityscan"), null, QUEUE));
    Pod guardOfSecurityscan = pod().node("fake-node").antiAffinity(term("region",
        in("service", "securityscan", "value2"))).obj();
    c.add(new Case("delete a pod whose anti-affinity matches the pending pod",
        pod().name("p").label("service", "securityscan").obj(), guardOfSecurityscan, null,
        QUEUE));
    c.add(new Case("delete a pod whose anti-affinity doesn't match the pending pod",
        pod().name("p").label("service", "foo").obj(), guardOfSecurityscan, null, SKIP));
    c.add(new Case("delete a pod matching neither way",
        pod().name("p").label("service", "foo").antiAffinity(term("region", in("service",
            "securityscan", "value2"))).obj(),
        pod().node("fake-node").label("service", "foo").antiAffinity(term("region",
            in("service", "securityscan", "value2"))).obj(), null, SKIP));
    c.add(new Case("delete a pod whose anti-affinity selects the pending pod's namespace",
        pod().name("p").ns("subteam1.team1").label("app", "x").obj(),
        pod().ns("other").node("fake-node").antiAffinity(term("zone", null,
            selector(in("team", "team1")), exists("app"))).obj(), null, QUEUE));
    c.add(new Case("a non-pod object counts as an error and queues", affinityTarget(), null,
        node("n"), QUEUE));
    return c.stream().map(Arguments::of);
  }

  static Stream<Arguments> nodeCases() {
    Pod affinity = pod().name("p").affinity(term("zone", in("service", "securityscan"))).obj();
    Pod regionAffinity =
        pod().name("p").affinity(term("region", in("service", "securityscan"))).obj();
    Pod anti = pod().name("p").antiAffinity(term("zone", in("another", "label"))).obj();
    List<Case> c = new ArrayList<>();
    c.add(new Case("add a node with the affinity topology key", affinity, null,
        node("node-a", "zone", "zone1"), QUEUE));
    c.add(new Case("add a node without the affinity topology key", regionAffinity, null,
        node("node-a", "zone", "zone1"), SKIP));
    c.add(new Case("update a label that is not the topology key", affinity,
        node("node-a", "aaa", "a"), node("node-a", "aaa", "b"), SKIP));
    c.add(new Case("update a node with a different affinity topology value", affinity,
        node("node-a", "zone", "zone1"), node("node-a", "zone", "zone2"), QUEUE));
    c.add(new Case("update a node to have the affinity topology label", affinity,
        node("node-a", "aaa", "a"), node("node-a", "zone", "zone1"), QUEUE));
    c.add(new Case("add a node with the anti-affinity topology key", anti, null,
        node("node-a", "zone", "zone1"), QUEUE));
    c.add(new Case("add a node without any topology key", anti, null, node("node-a"), SKIP));
    c.add(new Case("pod without affinity terms", pod().name("p").obj(), null,
        node("node-a", "zone", "zone1"), SKIP));
    c.add(new Case("a non-node object counts as an error and queues", affinity, null,
        pod().obj(), QUEUE));
    return c.stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podCases")
  void podChangeHints(Case c) {
    assertThat(hint(EventResource.POD).hint(c.pod(), c.oldObj(), c.newObj())).isEqualTo(c.want());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodeCases")
  void nodeChangeHints(Case c) {
    assertThat(hint(EventResource.NODE).hint(c.pod(), c.oldObj(), c.newObj()))
        .isEqualTo(c.want());
  }

  @Test
  void targetPodThatCannotBeParsedIsQueued() {
    LabelSelectorRequirement bad = new LabelSelectorRequirement("a", "Bogus", List.of("b"));
    Pod broken = pod().name("p").affinity(term("zone", bad)).obj();

    assertThat(hint(EventResource.POD).hint(broken, null, assigned("a", "b"))).isEqualTo(QUEUE);
    assertThat(hint(EventResource.NODE).hint(broken, null, node("n", "x", "y")))
        .isEqualTo(QUEUE);
  }

  @Test
  void registersPodAndNodeEventsAsUpstreamWithQueueingHints() {
    List<ClusterEvent> events = plugin(List.of(), Map.of()).eventsToRegister().stream()
        .map(ClusterEventWithHint::event).toList();

    assertThat(events).containsExactly(
        new ClusterEvent(EventResource.POD,
            ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
        new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL));
    assertThat(events.get(0).matches(new ClusterEvent(EventResource.ASSIGNED_POD,
        ActionType.DELETE))).isTrue();
    assertThat(events.get(1).matches(new ClusterEvent(EventResource.NODE,
        ActionType.UPDATE_NODE_TAINT))).isFalse();
  }

  private static QueueingHintFn hint(EventResource resource) {
    return plugin(List.of(), Map.of()).eventsToRegister().stream()
        .filter(e -> e.event().resource() == resource).findFirst().orElseThrow().hint();
  }
}
