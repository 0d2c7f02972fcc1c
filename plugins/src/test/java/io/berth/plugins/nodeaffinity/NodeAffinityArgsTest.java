package io.berth.plugins.nodeaffinity;

import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.addedPreferred;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.addedRequired;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.node;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.reqMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeAffinityArgsTest {
  @Test
  void emptyArgsEnforceNothing() {
    NodeAffinityArgs args = NodeAffinityArgs.parse(Map.of());

    assertThat(args.addedNodeSelector()).isEmpty();
    assertThat(args.addedPreferred()).isEmpty();
  }

  @Test
  void apiVersionAndKindAreTolerated() {
    NodeAffinityArgs args = NodeAffinityArgs.parse(Map.of(
        "apiVersion", "kubescheduler.config.k8s.io/v1", "kind", "NodeAffinityArgs"));

    assertThat(args.addedNodeSelector()).isEmpty();
  }

  @Test
  void validAddedAffinityIsCompiled() {
    Map<String, Object> required = Map.of("nodeSelectorTerms",
        List.of(Map.of("matchExpressions", List.of(reqMap("zone", "In", "a", "b")))));
    List<Object> preferred = List.of(Map.of("weight", 5,
        "preference", Map.of("matchExpressions", List.of(reqMap("disk", "Exists")))));
    NodeAffinityArgs args = NodeAffinityArgs.parse(Map.of("addedAffinity", Map.of(
        "requiredDuringSchedulingIgnoredDuringExecution", required,
        "preferredDuringSchedulingIgnoredDuringExecution", preferred)));

    assertThat(args.addedNodeSelector().orElseThrow().matches(node("n", Map.of("zone", "b"))))
        .isTrue();
    assertThat(args.addedNodeSelector().orElseThrow().matches(node("n", Map.of("zone", "c"))))
        .isFalse();
    assertThat(args.addedPreferred().orElseThrow().score(node("n", Map.of("disk", "ssd"))))
        .isEqualTo(5);
  }

  @Test
  void invalidRequiredTermNamesTheField() {
    Map<String, Object> args = addedRequired(Map.of("matchExpressions",
        List.of(reqMap("foo", "Exists", "bar"))));

    assertThatThrownBy(() -> NodeAffinity.create(args, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            + ".nodeSelectorTerms[0].matchExpressions[0].values: Forbidden");
  }

  @Test
  void invalidPreferredTermNamesTheField() {
    Map<String, Object> args = addedPreferred(1, Map.of("matchFields",
        List.of(reqMap("metadata.name", "In", "node1", "node2"))));

    assertThatThrownBy(() -> NodeAffinity.create(args, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
            + ".matchFields[0].values");
  }

  @Test
  void invalidLabelValueInAddedAffinityNamesTheField() {
    Map<String, Object> args = addedRequired(Map.of("matchExpressions",
        List.of(reqMap("zone", "In", "not a label value"))));

    assertThatThrownBy(() -> NodeAffinity.create(args, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            + ".nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value");
  }

  @Test
  void unknownFieldIsRejectedByName() {
    assertThatThrownBy(() -> NodeAffinity.create(Map.of("addedAfinity", Map.of()), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"addedAfinity\"");
  }

  @Test
  void addedAffinityMustBeAnObject() {
    assertThatThrownBy(() -> NodeAffinity.create(Map.of("addedAffinity", "zone=a"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("addedAffinity: Invalid value");
  }

  @Test
  void malformedAddedAffinityNamesTheField() {
    Map<String, Object> args = Map.of("addedAffinity", Map.of(
        "preferredDuringSchedulingIgnoredDuringExecution", List.of(Map.of("weight", "heavy"))));

    assertThatThrownBy(() -> NodeAffinity.create(args, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("addedAffinity: Invalid value");
  }
}
