package io.berth.plugins.noderesources;

import static io.berth.framework.QueueingHint.QUEUE;
import static io.berth.framework.QueueingHint.QUEUE_SKIP;
import static io.berth.plugins.noderesources.Fixtures.pod;
import static io.berth.plugins.noderesources.Fixtures.res;
import static io.berth.plugins.noderesources.Fixtures.usage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.EventResource;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueueingHintFn;
import io.berth.framework.Resource;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Queueing hints translated from upstream's Test_isSchedulableAfter* and friends. */
class NodeResourcesFitQueueingHintsTest {
  private static final String EXT_A = "example.com/aaa";
  private static final String EXT_B = "example.com/bbb";

  private final NodeResourcesFit plugin =
      (NodeResourcesFit) NodeResourcesFit.create(Map.of(), new TestHandle());

  @Test
  void registersPodDeleteOrScaleDownAndNodeAddOrAllocatableChange() {
    List<ClusterEvent> events = plugin.eventsToRegister().stream()
        .map(ClusterEventWithHint::event).toList();
    assertThat(events).containsExactly(
        new ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
        new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE));
  }

  private QueueingHintFn podHint() {
    return plugin.eventsToRegister().get(0).hint();
  }

  private QueueingHintFn nodeHint() {
    return plugin.eventsToRegister().get(1).hint();
  }

  record PodCase(String name, Pod pod, Pod oldObj, Pod newObj, QueueingHint want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<PodCase> podCases() {
    return Stream.of(
        new PodCase("queue on other pod deleted", pod(res("cpu", "1")).uid("pod1").build(),
            pod(res("cpu", "1")).uid("pod2").on("fake").build(), null, QUEUE),
        new PodCase("skip queue on unscheduled pod deleted", pod().build(), pod().build(), null,
            QUEUE_SKIP),
        new PodCase("skip queue on other unscheduled pod",
            pod(res("cpu", "1")).uid("uid0").build(), pod(res("cpu", "2")).uid("uid1").build(),
            pod(res("cpu", "1")).uid("uid1").build(), QUEUE_SKIP),
        new PodCase("skip queue on other pod unrelated resource scaled down",
            pod(res("cpu", "1")).uid("pod1").build(),
            pod(res("memory", "2")).uid("pod2").on("fake").build(),
            pod(res("memory", "1")).uid("pod2").on("fake").build(), QUEUE_SKIP),
        new PodCase("queue on other pod some resource scale down",
            pod(res("cpu", "1")).uid("pod1").build(),
            pod(res("cpu", "2")).uid("pod2").on("fake").build(),
            pod(res("cpu", "1")).uid("pod2").on("fake").build(), QUEUE),
        new PodCase("queue on target pod some resource scale down",
            pod(res("cpu", "1")).uid("pod1").build(), pod(res("cpu", "2")).uid("pod1").build(),
            pod(res("cpu", "1")).uid("pod1").build(), QUEUE),
        new PodCase("queue on other pod extended resource scale down",
            pod(res(EXT_A, "1")).uid("pod1").build(),
            pod(res(EXT_A, "2")).uid("pod2").on("fake").build(),
            pod(res(EXT_A, "1")).uid("pod2").on("fake").build(), QUEUE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podCases")
  void podEventHint(PodCase c) {
    assertThat(podHint().hint(c.pod(), c.oldObj(), c.newObj())).isEqualTo(c.want());
  }

  @Test
  void podHintRejectsObjectsThatAreNotPods() {
    assertThatThrownBy(() -> podHint().hint(pod().build(), "not-a-pod", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Pod");
    assertThatThrownBy(() -> podHint().hint(pod().build(), null, "not-a-pod"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Pod");
  }

  private static Node node(Map<String, String> allocatable) {
    return Fixtures.node("n", allocatable);
  }

  record NodeCase(String name, Pod pod, Node oldObj, Node newObj, QueueingHint want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<NodeCase> nodeCases() {
    Pod memAndExt = pod(usage(0, 2, EXT_A, 1)).build();
    return Stream.of(
        new NodeCase("skip queue on node add without sufficient resources",
            pod(usage(0, 2)).build(), null, node(res("memory", "1")), QUEUE_SKIP),
        new NodeCase("skip queue on node add without required resource type",
            pod(usage(0, 0, EXT_A, 1)).build(), null, node(res(EXT_B, "1")), QUEUE_SKIP),
        new NodeCase("queue on node add with sufficient resources", memAndExt, null,
            node(res("memory", "4", EXT_A, "2")), QUEUE),
        new NodeCase("skip queue on node unrelated changes", memAndExt,
            node(res("memory", "2", EXT_A, "2")), node(res("memory", "2", EXT_A, "1", EXT_B, "2")),
            QUEUE_SKIP),
        new NodeCase("queue on pod requested resources increase", memAndExt,
            node(res("memory", "2", EXT_A, "1")), node(res("memory", "2", EXT_A, "2")), QUEUE),
        new NodeCase("skip queue on node changes from suitable to unsuitable", memAndExt,
            node(res("memory", "4", EXT_A, "2")), node(res("memory", "1", EXT_A, "2")),
            QUEUE_SKIP),
        new NodeCase("queue on node changes from unsuitable to suitable", memAndExt,
            node(res("memory", "1", EXT_A, "2")), node(res("memory", "4", EXT_A, "2")), QUEUE),
        new NodeCase("skip queue when the node has no room for any pod", pod().build(), null,
            new NodeBuilder().withNewMetadata().withName("empty").endMetadata().build(),
            QUEUE_SKIP));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodeCases")
  void nodeChangeHint(NodeCase c) {
    assertThat(nodeHint().hint(c.pod(), c.oldObj(), c.newObj())).isEqualTo(c.want());
  }

  @Test
  void nodeHintRejectsObjectsThatAreNotNodes() {
    assertThatThrownBy(() -> nodeHint().hint(pod().build(), null, "not-a-node"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Node");
    assertThatThrownBy(() -> nodeHint().hint(pod().build(), "not-a-node", node(res())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Node");
  }

  record IncreaseCase(String name, Pod pod, Map<String, String> before,
      Map<String, String> after, boolean want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<IncreaseCase> increaseCases() {
    Map<String, String> ones = res("pods", "1", "cpu", "1", "memory", "1",
        "ephemeral-storage", "1", EXT_A, "1");
    Pod all = pod(res("cpu", "2m", "memory", "2", "ephemeral-storage", "2", EXT_A, "2")).build();
    Pod cpuMem = pod(usage(2, 2)).build();
    Map<String, String> base = res("cpu", "1", "memory", "2", "ephemeral-storage", "3", EXT_A, "4");
    return Stream.of(
        new IncreaseCase("no requested resources", pod(usage(0, 0)).build(), ones,
            res("pods", "1", "cpu", "2", "memory", "2", "ephemeral-storage", "2", EXT_A, "2"),
            false),
        new IncreaseCase("no requested resources, pods increased", pod(usage(0, 0)).build(), ones,
            res("pods", "2", "cpu", "1", "memory", "1", "ephemeral-storage", "1", EXT_A, "1"),
            true),
        new IncreaseCase("requested resources decreased", all, base,
            res("cpu", "1", "memory", "2", "ephemeral-storage", "1", EXT_A, "1"), false),
        new IncreaseCase("requested resources increased", all, base,
            res("cpu", "3", "memory", "4", "ephemeral-storage", "3", EXT_A, "4"), true),
        new IncreaseCase("non-requested resources decreased", cpuMem, base,
            res("cpu", "1", "memory", "2", "ephemeral-storage", "1", EXT_A, "1"), false),
        new IncreaseCase("non-requested resources increased", cpuMem, base,
            res("cpu", "1", "memory", "2", "ephemeral-storage", "5", EXT_A, "6"), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("increaseCases")
  void anyRequestedResourceIncreased(IncreaseCase c) {
    Resource request = io.berth.framework.PodRequests.of(c.pod());
    Resource before = ResourceFit.allocatableOf(Fixtures.node("n", c.before()));
    Resource after = ResourceFit.allocatableOf(Fixtures.node("n", c.after()));
    assertThat(FitQueueingHints.anyRequestedResourceIncreased(request, before, after))
        .isEqualTo(c.want());
  }
}
