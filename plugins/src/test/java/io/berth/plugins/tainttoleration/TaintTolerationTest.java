package io.berth.plugins.tainttoleration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EventResource;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TaintTolerationTest {
  private final TaintToleration plugin = (TaintToleration) TaintToleration.create(Map.of(), null);

  // upstream's TestTaintTolerationFilter (v1.32 reasons)
  static Stream<Arguments> filterCases() {
    return Stream.of(
        Arguments.of("A pod having no tolerations can't be scheduled onto a tainted node",
            pod("pod1"), node("nodeA", taint("dedicated", "user1", "NoSchedule")),
            Status.unresolvable("node(s) had untolerated taint {dedicated: user1}")),
        Arguments.of("A pod which can be scheduled on a dedicated node assigned to user1",
            pod("pod1", tol("dedicated", "", "user1", "NoSchedule")),
            node("nodeA", taint("dedicated", "user1", "NoSchedule")), Status.SUCCESS),
        Arguments.of("A pod which can't be scheduled on a dedicated node assigned to user2",
            pod("pod1", tol("dedicated", "Equal", "user2", "NoSchedule")),
            node("nodeA", taint("dedicated", "user1", "NoSchedule")),
            Status.unresolvable("node(s) had untolerated taint {dedicated: user1}")),
        Arguments.of("Exists toleration tolerates the taint whatever its value",
            pod("pod1", tol("foo", "Exists", null, "NoSchedule")),
            node("nodeA", taint("foo", "bar", "NoSchedule")), Status.SUCCESS),
        Arguments.of("all of several taints tolerated",
            pod("pod1", tol("dedicated", "Equal", "user2", "NoSchedule"),
                tol("foo", "Exists", null, "NoSchedule")),
            node("nodeA", taint("dedicated", "user2", "NoSchedule"),
                taint("foo", "bar", "NoSchedule")), Status.SUCCESS),
        Arguments.of("key and value match but the (non-empty) effect does not",
            pod("pod1", tol("foo", "Equal", "bar", "PreferNoSchedule")),
            node("nodeA", taint("foo", "bar", "NoSchedule")),
            Status.unresolvable("node(s) had untolerated taint {foo: bar}")),
        Arguments.of("empty toleration effect matches NoSchedule",
            pod("pod1", tol("foo", "Equal", "bar", null)),
            node("nodeA", taint("foo", "bar", "NoSchedule")), Status.SUCCESS),
        Arguments.of("untolerated PreferNoSchedule taint does not filter",
            pod("pod1", tol("dedicated", "Equal", "user2", "NoSchedule")),
            node("nodeA", taint("dedicated", "user1", "PreferNoSchedule")), Status.SUCCESS),
        Arguments.of("no toleration and only a PreferNoSchedule taint", pod("pod1"),
            node("nodeA", taint("dedicated", "user1", "PreferNoSchedule")), Status.SUCCESS),
        // edge cases
        Arguments.of("NoExecute taints filter too", pod("pod1"),
            node("nodeA", taint("evict", "now", "NoExecute")),
            Status.unresolvable("node(s) had untolerated taint {evict: now}")),
        Arguments.of("a taint without a value prints an empty value", pod("pod1"),
            node("nodeA", taint("gpu", null, "NoSchedule")),
            Status.unresolvable("node(s) had untolerated taint {gpu: }")),
        Arguments.of("the first untolerated taint is named",
            pod("pod1", tol("a", "Exists", null, null)),
            node("nodeA", taint("a", "1", "NoSchedule"), taint("b", "2", "NoSchedule"),
                taint("c", "3", "NoExecute")),
            Status.unresolvable("node(s) had untolerated taint {b: 2}")),
        Arguments.of("node without taints", pod("pod1"), node("nodeA"), Status.SUCCESS),
        // malformed taints (the API server would refuse them): the node is left out, named field
        Arguments.of("a taint with an unknown effect leaves the node out even if tolerated",
            pod("pod1", tol(null, "Exists", null, null)),
            node("nodeA", taint("a", "1", "NoSchedule"), taint("b", "2", "Sometimes")),
            Status.unresolvable("node(s) had malformed taints: spec.taints[1].effect:"
                + " Unsupported value: \"Sometimes\": supported values: \"NoSchedule\","
                + " \"PreferNoSchedule\", \"NoExecute\"")),
        Arguments.of("a taint without a key leaves the node out", pod("pod1"),
            node("nodeA", taint("", "1", "PreferNoSchedule")),
            Status.unresolvable("node(s) had malformed taints: spec.taints[0].key:"
                + " Required value")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filterCases")
  void filter(String name, Pod pod, Node node, Status expected) {
    assertThat(plugin.filter(new CycleState(), pod, NodeInfo.of(node))).isEqualTo(expected);
  }

  // upstream's TestTaintTolerationScore (without the later Gt/Lt operator cases)
  static Stream<Arguments> scoreCases() {
    return Stream.of(
        Arguments.of("tolerated taints score higher than intolerable ones",
            pod("pod1", tol("foo", "Equal", "bar", "PreferNoSchedule")),
            List.of(node("nodeA", taint("foo", "bar", "PreferNoSchedule")),
                node("nodeB", taint("foo", "blah", "PreferNoSchedule"))),
            List.of(100L, 0L)),
        Arguments.of("the number of tolerated taints does not matter",
            pod("pod1", tol("cpu-type", "Equal", "arm64", "PreferNoSchedule"),
                tol("disk-type", "Equal", "ssd", "PreferNoSchedule")),
            List.of(node("nodeA"), node("nodeB", taint("cpu-type", "arm64", "PreferNoSchedule")),
                node("nodeC", taint("cpu-type", "arm64", "PreferNoSchedule"),
                    taint("disk-type", "ssd", "PreferNoSchedule"))),
            List.of(100L, 100L, 100L)),
        Arguments.of("the more intolerable taints a node has, the lower it scores",
            pod("pod1", tol("foo", "Equal", "bar", "PreferNoSchedule")),
            List.of(node("nodeA"), node("nodeB", taint("cpu-type", "arm64", "PreferNoSchedule")),
                node("nodeC", taint("cpu-type", "arm64", "PreferNoSchedule"),
                    taint("disk-type", "ssd", "PreferNoSchedule"))),
            List.of(100L, 50L, 0L)),
        Arguments.of("only PreferNoSchedule taints and tolerations count",
            pod("pod1", tol("cpu-type", "Equal", "arm64", "NoSchedule"),
                tol("disk-type", "Equal", "ssd", "NoSchedule")),
            List.of(node("nodeA"), node("nodeB", taint("cpu-type", "arm64", "NoSchedule")),
                node("nodeC", taint("cpu-type", "arm64", "PreferNoSchedule"),
                    taint("disk-type", "ssd", "PreferNoSchedule"))),
            List.of(100L, 100L, 0L)),
        Arguments.of("no taints and tolerations: lands on the node without taints", pod("pod1"),
            List.of(node("nodeA"), node("nodeB", taint("cpu-type", "arm64", "PreferNoSchedule"))),
            List.of(100L, 0L)),
        Arguments.of("a toleration without effect counts for PreferNoSchedule",
            pod("pod1", tol("cpu-type", "Exists", null, null)),
            List.of(node("nodeA", taint("cpu-type", "x", "PreferNoSchedule")),
                node("nodeB", taint("other", "x", "PreferNoSchedule"))),
            List.of(100L, 0L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scoreCases")
  void scoreAndNormalize(String name, Pod pod, List<Node> nodes, List<Long> expected) {
    List<NodeInfo> infos = nodes.stream().map(NodeInfo::of).toList();
    CycleState state = new CycleState();

    assertThat(plugin.preScore(state, pod, infos)).isEqualTo(Status.SUCCESS);
    List<NodeScore> scores = new ArrayList<>();
    for (NodeInfo info : infos) {
      scores.add(new NodeScore(info.nodeName(), plugin.score(state, pod, info)));
    }
    assertThat(plugin.scoreExtensions().orElseThrow().normalizeScore(state, pod, scores))
        .isEqualTo(Status.SUCCESS);

    assertThat(scores).extracting(NodeScore::score).containsExactlyElementsOf(expected);
  }

  @Test
  void rawScoreCountsIntolerablePreferNoScheduleTaints() {
    Pod pod = pod("pod1", tol("a", "Exists", null, "PreferNoSchedule"));
    NodeInfo node = NodeInfo.of(node("n", taint("a", "1", "PreferNoSchedule"),
        taint("b", "1", "PreferNoSchedule"), taint("c", "1", "PreferNoSchedule"),
        taint("d", "1", "NoSchedule")));
    CycleState state = new CycleState();
    plugin.preScore(state, pod, List.of(node));

    assertThat(plugin.score(state, pod, node)).isEqualTo(2);
  }

  @Test
  void filterAndScoreFollowTheNodesTaintsThroughUpdatesAndSnapshots() {
    Pod pod = pod("p");
    NodeInfo nodeInfo = NodeInfo.of(node("n", taint("a", "1", "NoSchedule")));
    NodeInfo taintedCopy = nodeInfo.snapshot();
    nodeInfo.setNode(node("n", taint("b", "1", "PreferNoSchedule")));
    assertThat(plugin.filter(new CycleState(), pod, nodeInfo)).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(new CycleState(), pod, taintedCopy).isSuccess()).isFalse();
    CycleState state = new CycleState();
    plugin.preScore(state, pod, List.of(nodeInfo));
    assertThat(plugin.score(state, pod, nodeInfo.snapshot())).isEqualTo(1);
    assertThat(plugin.score(state, pod, taintedCopy)).isEqualTo(0);
  }

  @Test
  void scoreWithoutPreScoreFailsWithAnError() {
    assertThatThrownBy(() -> plugin.score(new CycleState(), pod("p"), NodeInfo.of(node("n"))))
        .isInstanceOfSatisfying(StatusException.class,
            e -> assertThat(e.status().code()).isEqualTo(Code.ERROR));
  }

  // upstream's TestIsSchedulableAfterNodeChange
  static Stream<Arguments> nodeChangeCases() {
    Pod user2 = pod("pod1", tol("dedicated", "Equal", "user2", "NoSchedule"));
    return Stream.of(
        Arguments.of("backoff-wrong-new-object", user2, null, "not-a-node", QueueingHint.QUEUE),
        Arguments.of("backoff-wrong-old-object", user2, "not-a-node",
            node("nodeA", taint("dedicated", "user1", "NoSchedule")), QueueingHint.QUEUE),
        Arguments.of("skip-queue-on-untoleratedtaint-node-added", user2, null,
            node("nodeA", taint("dedicated", "user1", "NoSchedule")), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-toleratedtaint-node-added", user2, null,
            node("nodeA", taint("dedicated", "user2", "NoSchedule")), QueueingHint.QUEUE),
        Arguments.of("skip-unrelated-change", user2,
            node("nodeA", taint("dedicated", "user1", "NoSchedule")),
            node("nodeA", taint("dedicated", "user1", "NoSchedule"),
                taint("dedicated", "user3", "NoSchedule")), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-taint-change", user2,
            node("nodeA", taint("dedicated", "user1", "NoSchedule")),
            node("nodeA", taint("dedicated", "user2", "NoSchedule")), QueueingHint.QUEUE),
        Arguments.of("skip-already-tolerated-node", user2,
            node("nodeA", taint("dedicated", "user2", "NoSchedule")),
            node("nodeA"), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-prefer-no-schedule-taint-removal", pod("pod1"),
            node("nodeA", taint("x", "y", "PreferNoSchedule"), taint("d", "e", "NoSchedule")),
            node("nodeA", taint("d", "e", "NoSchedule")), QueueingHint.QUEUE_SKIP));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodeChangeCases")
  void nodeChangeHint(String name, Pod pod, Object oldObj, Object newObj, QueueingHint expected) {
    assertThat(TaintToleration.isSchedulableAfterNodeChange(pod, oldObj, newObj))
        .isEqualTo(expected);
  }

  @Test
  void podTolerationChangeQueuesOnlyTheTargetPod() {
    Pod target = pod("pod1");
    Pod updated = new PodBuilder(target).editSpec()
        .withTolerations(tol("foo", null, null, "NoSchedule")).endSpec().build();

    assertThat(TaintToleration.isSchedulableAfterPodTolerationChange(target, target, updated))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(TaintToleration.isSchedulableAfterPodTolerationChange(target, pod("other"),
        pod("other", tol("foo", null, null, "NoSchedule")))).isEqualTo(QueueingHint.QUEUE_SKIP);
    assertThat(TaintToleration.isSchedulableAfterPodTolerationChange(target, null, "x"))
        .isEqualTo(QueueingHint.QUEUE);
  }

  @Test
  void registersNodeAddOrTaintUpdateAndPodTolerationUpdate() {
    List<ClusterEventWithHint> events = plugin.eventsToRegister();

    assertThat(events).extracting(e -> e.event().resource())
        .containsExactly(EventResource.NODE, EventResource.POD);
    assertThat(events.get(0).event().actionType())
        .isEqualTo(ActionType.ADD | ActionType.UPDATE_NODE_TAINT);
    assertThat(events.get(1).event().actionType()).isEqualTo(ActionType.UPDATE_POD_TOLERATION);
    assertThat(events.get(0).hint().hint(pod("p"), null, node("n"))).isEqualTo(QueueingHint.QUEUE);
    assertThat(events.get(1).hint().hint(pod("p"), pod("q"), pod("q")))
        .isEqualTo(QueueingHint.QUEUE_SKIP);
  }

  @Test
  void concurrentScoresAgreeWithSequential() throws Exception {
    Pod pod = pod("pod1", tol("t0", "Exists", null, "PreferNoSchedule"));
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      List<Taint> taints = new ArrayList<>();
      for (int t = 0; t < i % 5; t++) {
        taints.add(taint("t" + t, "v", "PreferNoSchedule"));
      }
      nodes.add(NodeInfo.of(node("n" + i, taints.toArray(Taint[]::new))));
    }
    CycleState state = new CycleState();
    plugin.preScore(state, pod, nodes);
    List<Long> expected = nodes.stream().map(n -> plugin.score(state, pod, n)).toList();

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<List<Long>>> tasks = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        tasks.add(() -> nodes.stream().map(n -> plugin.score(state, pod, n)).toList());
      }
      for (Future<List<Long>> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(expected.subList(0, 5)).containsExactly(0L, 0L, 1L, 2L, 3L);
  }

  private static Pod pod(String name, Toleration... tolerations) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid("uid-" + name).endMetadata().withNewSpec().withTolerations(tolerations)
        .endSpec().build();
  }

  private static Node node(String name, Taint... taints) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withTaints(taints).endSpec().build();
  }

  private static Taint taint(String key, String value, String effect) {
    return new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
  }

  private static Toleration tol(String key, String op, String value, String effect) {
    return new TolerationBuilder().withKey(key).withOperator(op).withValue(value)
        .withEffect(effect).build();
  }
}
