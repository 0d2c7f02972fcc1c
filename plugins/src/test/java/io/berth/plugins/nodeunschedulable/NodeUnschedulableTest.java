package io.berth.plugins.nodeunschedulable;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeInfo;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeUnschedulableTest {
  private static final String KEY = NodeUnschedulable.TAINT_NODE_UNSCHEDULABLE;
  private final NodeUnschedulable plugin =
      (NodeUnschedulable) NodeUnschedulable.create(Map.of(), null);

  static Stream<Arguments> filterCases() {
    Status rejected = Status.unresolvable("node(s) were unschedulable");
    return Stream.of(
        // upstream's node_unschedulable_test.go
        Arguments.of("does not schedule pod to unschedulable node", pod("p", "u"), true, rejected),
        Arguments.of("schedules pod to normal node", pod("p", "u"), false, Status.SUCCESS),
        Arguments.of("schedules pod with toleration to unschedulable node",
            pod("p", "u", toleration(KEY, "", "NoSchedule")), true, Status.SUCCESS),
        // edge cases
        Arguments.of("absent unschedulable field means schedulable", pod("p", "u"), null,
            Status.SUCCESS),
        Arguments.of("wildcard Exists toleration tolerates it",
            pod("p", "u", toleration("", "Exists", "")), true, Status.SUCCESS),
        Arguments.of("toleration for another effect does not",
            pod("p", "u", toleration(KEY, "Exists", "NoExecute")), true, rejected));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filterCases")
  void filter(String name, Pod pod, Boolean unschedulable, Status expected) {
    NodeInfo nodeInfo = NodeInfo.of(node("n", unschedulable));

    assertThat(plugin.filter(new CycleState(), pod, nodeInfo)).isEqualTo(expected);
  }

  @Test
  void filterFollowsTheNodeThroughUpdatesAndSnapshots() {
    Status rejected = Status.unresolvable("node(s) were unschedulable");
    NodeInfo nodeInfo = NodeInfo.of(node("n", true));
    NodeInfo cordonedCopy = nodeInfo.snapshot();
    nodeInfo.setNode(node("n", false));
    assertThat(plugin.filter(new CycleState(), pod("p", "u"), nodeInfo)).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(new CycleState(), pod("p", "u"), cordonedCopy)).isEqualTo(rejected);
    nodeInfo.setNode(node("n", true));
    assertThat(plugin.filter(new CycleState(), pod("p", "u"), nodeInfo.snapshot())).isEqualTo(rejected);
  }

  static Stream<Arguments> nodeChangeCases() {
    return Stream.of(
        Arguments.of("backoff-wrong-new-object", null, "not-a-node", QueueingHint.QUEUE),
        Arguments.of("backoff-wrong-old-object", "not-a-node", node("n", true),
            QueueingHint.QUEUE),
        Arguments.of("skip-queue-on-unschedulable-node-added", null, node("n", true),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-schedulable-node-added", null, node("n", false),
            QueueingHint.QUEUE),
        Arguments.of("skip-unrelated-change", node("n", true), node("n", true),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-schedulable-node-staying-schedulable", node("n", false),
            node("n", false), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-node-being-cordoned", node("n", false), node("n", true),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-unschedulable-field-change", node("n", true), node("n", false),
            QueueingHint.QUEUE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodeChangeCases")
  void nodeChangeHint(String name, Object oldObj, Object newObj, QueueingHint expected) {
    assertThat(NodeUnschedulable.isSchedulableAfterNodeChange(pod("p", "u"), oldObj, newObj))
        .isEqualTo(expected);
  }

  static Stream<Arguments> tolerationChangeCases() {
    Pod target = pod("p", "uid-p");
    return Stream.of(
        Arguments.of("backoff-wrong-new-object", target, "not-a-pod", QueueingHint.QUEUE),
        Arguments.of("skip-another-pod", target,
            pod("q", "uid-q", toleration(KEY, "Exists", "NoSchedule")), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-unrelated-toleration", target,
            pod("p", "uid-p", toleration("foo", "Exists", "NoSchedule")),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-unschedulable-toleration-added", target,
            pod("p", "uid-p", toleration(KEY, "Exists", "NoSchedule")), QueueingHint.QUEUE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tolerationChangeCases")
  void podTolerationChangeHint(String name, Pod target, Object newObj, QueueingHint expected) {
    assertThat(NodeUnschedulable.isSchedulableAfterPodTolerationChange(target, target, newObj))
        .isEqualTo(expected);
  }

  @Test
  void registersNodeAddOrTaintUpdateAndPodTolerationUpdate() {
    List<ClusterEventWithHint> events = plugin.eventsToRegister();

    assertThat(events).extracting(e -> e.event().resource())
        .containsExactly(EventResource.NODE, EventResource.POD);
    assertThat(events.get(0).event().actionType())
        .isEqualTo(ActionType.ADD | ActionType.UPDATE_NODE_TAINT);
    assertThat(events.get(1).event().actionType()).isEqualTo(ActionType.UPDATE_POD_TOLERATION);
    // the registered functions are the ones tested above
    assertThat(events.get(0).hint().hint(pod("p", "u"), node("n", true), node("n", false)))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(events.get(1).hint().hint(pod("p", "u"), pod("p", "u"), pod("p", "u")))
        .isEqualTo(QueueingHint.QUEUE_SKIP);
    assertThat(((EnqueueExtensions) plugin).eventsToRegister()).hasSize(2);
    assertThat(((FilterPlugin) plugin).name()).isEqualTo("NodeUnschedulable");
  }

  private static Node node(String name, Boolean unschedulable) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withUnschedulable(unschedulable).endSpec().build();
  }

  private static Pod pod(String name, String uid, Toleration... tolerations) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").withUid(uid)
        .endMetadata().withNewSpec().withTolerations(tolerations).endSpec().build();
  }

  private static Toleration toleration(String key, String operator, String effect) {
    return new TolerationBuilder().withKey(key).withOperator(operator).withEffect(effect).build();
  }
}
