package io.berth.plugins.nodename;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeInfo;
import io.berth.framework.QueueingHintFn;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeNameTest {
  private final FilterPlugin plugin = (FilterPlugin) NodeName.create(Map.of(), null);

  // upstream's node_name_test.go
  static Stream<Arguments> cases() {
    Status mismatch = Status.unresolvable(NodeName.ERR_REASON);
    return Stream.of(
        Arguments.of("no host specified", null, "foo", Status.SUCCESS),
        Arguments.of("empty host counts as none", "", "foo", Status.SUCCESS),
        Arguments.of("host matches", "foo", "foo", Status.SUCCESS),
        Arguments.of("host doesn't match", "bar", "foo", mismatch));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void filtersOnRequestedNodeName(String name, String podNodeName, String nodeName,
      Status expected) {
    Pod pod = new PodBuilder().withNewMetadata().withName("p").endMetadata()
        .withNewSpec().withNodeName(podNodeName).endSpec().build();
    NodeInfo node = NodeInfo.of(new NodeBuilder().withNewMetadata().withName(nodeName)
        .endMetadata().build());

    assertThat(plugin.filter(new CycleState(), pod, node)).isEqualTo(expected);
  }

  @Test
  void reasonIsUpstreams() {
    assertThat(NodeName.ERR_REASON).isEqualTo("node(s) didn't match the requested node name");
    assertThat(plugin.name()).isEqualTo("NodeName");
  }

  @Test
  void retriesOnlyWhenANodeIsAdded() {
    List<ClusterEventWithHint> events = ((EnqueueExtensions) plugin).eventsToRegister();

    assertThat(events).hasSize(1);
    assertThat(events.get(0).event().resource()).isEqualTo(EventResource.NODE);
    assertThat(events.get(0).event().actionType()).isEqualTo(ActionType.ADD);
    assertThat(events.get(0).hint()).isSameAs(QueueingHintFn.ALWAYS_QUEUE);
  }
}
