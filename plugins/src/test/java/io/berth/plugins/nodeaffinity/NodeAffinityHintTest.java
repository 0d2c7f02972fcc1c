package io.berth.plugins.nodeaffinity;

import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.addedRequired;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.exprs;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.node;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.req;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.reqMap;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.EventResource;
import io.berth.framework.QueueingHint;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeAffinityHintTest {
  private static final Pod POD_WITH_AFFINITY = required(exprs(req("foo", "In", "bar")));
  private static final Map<String, Object> ENFORCED_FOO_BAR =
      addedRequired(Map.of("matchExpressions", List.of(reqMap("foo", "In", "bar"))));

  // upstream's Test_isSchedulableAfterNodeChange
  static Stream<Arguments> cases() {
    Map<String, Object> none = Map.of();
    return Stream.of(
        Arguments.of("backoff-wrong-new-object", none, POD_WITH_AFFINITY, null, "not-a-node",
            QueueingHint.QUEUE),
        Arguments.of("backoff-wrong-old-object", none, POD_WITH_AFFINITY, "not-a-node",
            node("n", Map.of()), QueueingHint.QUEUE),
        Arguments.of("skip-queue-on-add", none, POD_WITH_AFFINITY, null, node("n", Map.of()),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-add", none, POD_WITH_AFFINITY, null,
            node("n", Map.of("foo", "bar")), QueueingHint.QUEUE),
        Arguments.of("skip-unrelated-changes", none, POD_WITH_AFFINITY, node("n", Map.of()),
            node("n", Map.of()), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-unrelated-changes-on-labels", none, POD_WITH_AFFINITY,
            node("n", Map.of()), node("n", Map.of("k", "v")), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-labels-changes-on-suitable-node", none, POD_WITH_AFFINITY,
            node("n", Map.of("foo", "bar")), node("n", Map.of("foo", "bar", "k", "v")),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-labels-changes-on-node-from-suitable-to-unsuitable", none,
            POD_WITH_AFFINITY, node("n", Map.of("foo", "bar")), node("n", Map.of("k", "v")),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-labels-change-makes-pod-schedulable", none, POD_WITH_AFFINITY,
            node("n", Map.of()), node("n", Map.of("foo", "bar")), QueueingHint.QUEUE),
        Arguments.of("skip-queue-on-add-scheduler-enforced-node-affinity", ENFORCED_FOO_BAR,
            POD_WITH_AFFINITY, null, node("n", Map.of()), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-add-scheduler-enforced-node-affinity", ENFORCED_FOO_BAR,
            POD_WITH_AFFINITY, null, node("n", Map.of("foo", "bar")), QueueingHint.QUEUE),
        // edge cases
        Arguments.of("node selector counts like affinity", none,
            NodeAffinityFixtures.withSelector(NodeAffinityFixtures.pod(), Map.of("a", "b")),
            node("n", Map.of()), node("n", Map.of("a", "b")), QueueingHint.QUEUE),
        Arguments.of("queue-when-the-pod-cannot-be-parsed", none,
            required(exprs(req("foo", "Near", "bar"))), null, node("n", Map.of()),
            QueueingHint.QUEUE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void nodeChangeHint(String name, Map<String, Object> args, Pod pod, Object oldObj,
      Object newObj, QueueingHint expected) {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(args, null);

    assertThat(plugin.isSchedulableAfterNodeChange(pod, oldObj, newObj)).isEqualTo(expected);
  }

  @Test
  void registersNodeAddAndLabelUpdateWithTheHint() {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);

    List<ClusterEventWithHint> events = plugin.eventsToRegister();

    assertThat(events).hasSize(1);
    assertThat(events.get(0).event().resource()).isEqualTo(EventResource.NODE);
    assertThat(events.get(0).event().actionType())
        .isEqualTo(ActionType.ADD | ActionType.UPDATE_NODE_LABEL);
    assertThat(events.get(0).hint().hint(POD_WITH_AFFINITY, node("n", Map.of()),
        node("n", Map.of("foo", "bar")))).isEqualTo(QueueingHint.QUEUE);
    assertThat(events.get(0).hint().hint(POD_WITH_AFFINITY, null, node("n", Map.of())))
        .isEqualTo(QueueingHint.QUEUE_SKIP);
  }
}
