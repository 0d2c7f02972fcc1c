package io.berth.plugins.nodeports;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EventResource;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueueingHintFn;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
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

class NodePortsTest {
  private static final Status CONFLICT =
      Status.unschedulable("node(s) didn't have free ports for the requested pod ports");
  private final NodePorts plugin = (NodePorts) NodePorts.create(Map.of(), null);

  // upstream's node_ports_test.go TestNodePorts
  static Stream<Arguments> filterCases() {
    return Stream.of(
        Arguments.of("other port", pod("m1", "UDP/127.0.0.1/8080"),
            List.of(pod("e", "UDP/127.0.0.1/9090")), Status.SUCCESS),
        Arguments.of("same udp port", pod("m1", "UDP/127.0.0.1/8080"),
            List.of(pod("e", "UDP/127.0.0.1/8080")), CONFLICT),
        Arguments.of("same tcp port", pod("m1", "TCP/127.0.0.1/8080"),
            List.of(pod("e", "TCP/127.0.0.1/8080")), CONFLICT),
        Arguments.of("different host ip", pod("m1", "TCP/127.0.0.1/8080"),
            List.of(pod("e", "TCP/127.0.0.2/8080")), Status.SUCCESS),
        Arguments.of("different protocol", pod("m1", "UDP/127.0.0.1/8080"),
            List.of(pod("e", "TCP/127.0.0.1/8080")), Status.SUCCESS),
        Arguments.of("second udp port conflict",
            pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
            List.of(pod("e", "UDP/127.0.0.1/8080")), CONFLICT),
        Arguments.of("first tcp port conflict",
            pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
            List.of(pod("e", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")), CONFLICT),
        Arguments.of("first tcp port conflict due to 0.0.0.0 hostIP",
            pod("m1", "TCP/0.0.0.0/8001"), List.of(pod("e", "TCP/127.0.0.1/8001")), CONFLICT),
        Arguments.of("TCP hostPort conflict due to 0.0.0.0 hostIP",
            pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
            List.of(pod("e", "TCP/127.0.0.1/8001")), CONFLICT),
        Arguments.of("second tcp port conflict to 0.0.0.0 hostIP",
            pod("m1", "TCP/127.0.0.1/8001"), List.of(pod("e", "TCP/0.0.0.0/8001")), CONFLICT),
        Arguments.of("second different protocol", pod("m1", "UDP/127.0.0.1/8001"),
            List.of(pod("e", "TCP/0.0.0.0/8001")), Status.SUCCESS),
        Arguments.of("UDP hostPort conflict due to 0.0.0.0 hostIP",
            pod("m1", "UDP/127.0.0.1/8001"),
            List.of(pod("e", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")), CONFLICT),
        // edge cases
        Arguments.of("empty host IP and protocol mean 0.0.0.0 and TCP", pod("m1", "//8001"),
            List.of(pod("e", "TCP/127.0.0.1/8001")), CONFLICT),
        Arguments.of("ports of pods on other nodes do not count", pod("m1", "TCP/0.0.0.0/80"),
            List.of(), Status.SUCCESS));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filterCases")
  void filter(String name, Pod pod, List<Pod> existing, Status expected) {
    CycleState state = new CycleState();
    NodeInfo nodeInfo = NodeInfo.of(node("n1"), existing.toArray(Pod[]::new));

    PreFilterResult pre = plugin.preFilter(state, pod, List.of(nodeInfo));

    assertThat(pre).isEqualTo(PreFilterResult.SUCCESS);
    assertThat(plugin.filter(state, pod, nodeInfo)).isEqualTo(expected);
    assertThat(NodePorts.fits(pod, nodeInfo)).isEqualTo(expected.isSuccess());
  }

  @Test
  void preFilterSkipsPodsWithoutHostPorts() {
    Pod containerPortOnly = new PodBuilder().withNewMetadata().withName("p").endMetadata()
        .withNewSpec().addNewContainer().withName("c")
        .addNewPort().withContainerPort(80).endPort().endContainer().endSpec().build();

    assertThat(plugin.preFilter(new CycleState(), new Pod(), List.of()).status().code())
        .isEqualTo(Code.SKIP);
    assertThat(plugin.preFilter(new CycleState(), containerPortOnly, List.of()).status().code())
        .isEqualTo(Code.SKIP);
  }

  @Test
  void filterWithoutPreFilterStateIsAnError() {
    Status status = plugin.filter(new CycleState(), pod("m1", "TCP/127.0.0.1/8080"),
        NodeInfo.of(node("n1")));

    assertThat(status.code()).isEqualTo(Code.ERROR);
    assertThat(status.message())
        .isEqualTo("reading \"PreFilterNodePorts\" from cycleState: not found");
  }

  // upstream's Test_isSchedulableAfterPodDeleted
  static Stream<Arguments> podDeletedCases() {
    return Stream.of(
        Arguments.of("backoff-wrong-old-object", "not-a-pod", QueueingHint.QUEUE),
        Arguments.of("skip-queue-on-unscheduled", pod("d", "TCP//8080"), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-queue-on-non-hostport",
            onNode(new PodBuilder().withNewMetadata().withName("d").endMetadata().withNewSpec()
                .addNewContainer().withName("c").addNewPort().withContainerPort(8080).endPort()
                .endContainer().endSpec().build(), "fake-node"), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-queue-on-unrelated-hostport", onNode(pod("d", "TCP//8081"),
            "fake-node"), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-on-released-hostport", onNode(pod("d", "TCP//8080"), "fake-node"),
            QueueingHint.QUEUE),
        Arguments.of("queue-on-released-hostport-of-nominated-pod",
            new PodBuilder(pod("d", "TCP//8080")).withNewStatus().withNominatedNodeName("n")
                .endStatus().build(), QueueingHint.QUEUE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podDeletedCases")
  void podDeletedHint(String name, Object deleted, QueueingHint expected) {
    Pod target = pod("target", "TCP//8080");

    assertThat(NodePorts.isSchedulableAfterPodDeleted(target, deleted, null)).isEqualTo(expected);
  }

  @Test
  void registersPodDeleteWithHintAndNodeAdd() {
    List<ClusterEventWithHint> events = plugin.eventsToRegister();

    assertThat(events).hasSize(2);
    assertThat(events.get(0).event().resource()).isEqualTo(EventResource.POD);
    assertThat(events.get(0).event().actionType()).isEqualTo(ActionType.DELETE);
    assertThat(events.get(0).hint().hint(pod("t", "TCP//80"), onNode(pod("d", "TCP//80"), "n"),
        null)).isEqualTo(QueueingHint.QUEUE);
    assertThat(events.get(1).event().resource()).isEqualTo(EventResource.NODE);
    assertThat(events.get(1).event().actionType()).isEqualTo(ActionType.ADD);
    assertThat(events.get(1).hint()).isSameAs(QueueingHintFn.ALWAYS_QUEUE);
  }

  @Test
  void concurrentFiltersOnSharedCycleStateAgreeWithSequential() throws Exception {
    Pod pod = pod("m1", "TCP/0.0.0.0/8080", "UDP/10.0.0.1/53");
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      String port = switch (i % 4) {
        case 0 -> "TCP/127.0.0.1/8080";
        case 1 -> "UDP/0.0.0.0/53";
        case 2 -> "TCP/127.0.0.1/9090";
        default -> "UDP/10.0.0.2/53";
      };
      nodes.add(NodeInfo.of(node("n" + i), pod("e" + i, port)));
    }
    CycleState state = new CycleState();
    plugin.preFilter(state, pod, nodes);
    List<Status> expected = nodes.stream().map(n -> plugin.filter(state, pod, n)).toList();

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<List<Status>>> tasks = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        tasks.add(() -> nodes.stream().map(n -> plugin.filter(state, pod, n)).toList());
      }
      for (Future<List<Status>> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(expected.stream().filter(Status::isSuccess).count()).isEqualTo(32);
  }

  /** A pod whose single container asks for the host ports "PROTOCOL/hostIP/port". */
  private static Pod pod(String name, String... ports) {
    List<ContainerPort> list = new ArrayList<>();
    for (String spec : ports) {
      String[] parts = spec.split("/", -1);
      int port = Integer.parseInt(parts[2]);
      list.add(new ContainerPortBuilder().withProtocol(parts[0].isEmpty() ? null : parts[0])
          .withHostIP(parts[1].isEmpty() ? null : parts[1]).withHostPort(port)
          .withContainerPort(port).build());
    }
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid(name).endMetadata().withNewSpec().addNewContainer().withName("c")
        .withPorts(list).endContainer().endSpec().build();
  }

  private static Pod onNode(Pod pod, String nodeName) {
    return new PodBuilder(pod).editSpec().withNodeName(nodeName).endSpec().build();
  }

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }
}
