package io.berth.plugins.noderesources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.PluginFactory;
import io.berth.framework.testing.TestHandle;
import io.berth.plugins.noderesources.NodeResourcesFitArgs.UtilizationShapePoint;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Argument defaulting and validation of both plugins, as upstream's SetDefaults_* and
 * ValidateNodeResourcesFitArgs / ValidateNodeResourcesBalancedAllocationArgs.
 */
class NodeResourcesArgsTest {
  @Test
  void emptyFitArgsDefaultToLeastAllocatedOverCpuAndMemory() {
    NodeResourcesFitArgs args = NodeResourcesFitArgs.parse(Map.of());
    assertThat(args.ignoredResources()).isEmpty();
    assertThat(args.ignoredResourceGroups()).isEmpty();
    assertThat(args.scoringStrategy().type()).isEqualTo("LeastAllocated");
    assertThat(args.scoringStrategy().resources())
        .containsExactly(new ResourceSpec("cpu", 1), new ResourceSpec("memory", 1));
  }

  @Test
  void strategyWithoutResourcesGetsDefaultResourcesAndZeroWeightBecomesOne() {
    NodeResourcesFitArgs noResources = NodeResourcesFitArgs.parse(
        Map.of("scoringStrategy", Map.of("type", "MostAllocated")));
    assertThat(noResources.scoringStrategy().resources()).isEqualTo(ResourceSpec.DEFAULTS);

    NodeResourcesFitArgs zero = NodeResourcesFitArgs.parse(Map.of("scoringStrategy", Map.of(
        "type", "MostAllocated",
        "resources", List.of(Map.of("name", "cpu", "weight", 0), Map.of("name", "gpu.io/x")))));
    assertThat(zero.scoringStrategy().resources())
        .containsExactly(new ResourceSpec("cpu", 1), new ResourceSpec("gpu.io/x", 1));
  }

  @Test
  void requestedToCapacityRatioShapeIsParsed() {
    NodeResourcesFitArgs args = NodeResourcesFitArgs.parse(Map.of(
        "apiVersion", "kubescheduler.config.k8s.io/v1", "kind", "NodeResourcesFitArgs",
        "ignoredResources", List.of("example.com/aaa"),
        "ignoredResourceGroups", List.of("example.org"),
        "scoringStrategy", Map.of("type", "RequestedToCapacityRatio",
            "requestedToCapacityRatio", Map.of("shape", List.of(
                Map.of("utilization", 0, "score", 0), Map.of("utilization", 100, "score", 10))))));
    assertThat(args.scoringStrategy().shape()).containsExactly(
        new UtilizationShapePoint(0, 0), new UtilizationShapePoint(100, 10));
    assertThat(args.ignoredResources()).containsExactly("example.com/aaa");
    assertThat(args.ignoredResourceGroups()).containsExactly("example.org");
  }

  record Invalid(String name, Map<String, Object> args, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Map<String, Object> strategy(Map<String, Object> strategy) {
    return Map.of("scoringStrategy", strategy);
  }

  private static Map<String, Object> rtcr(List<Map<String, Object>> shape) {
    return strategy(Map.of("type", "RequestedToCapacityRatio",
        "requestedToCapacityRatio", Map.of("shape", shape)));
  }

  static Stream<Invalid> invalidFitArgs() {
    return Stream.of(
        new Invalid("negative weight", strategy(Map.of("type", "LeastAllocated", "resources",
            List.of(Map.of("name", "memory", "weight", -1), Map.of("name", "cpu", "weight", 1)))),
            "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory"
                + " not in valid range (0, 100]"),
        new Invalid("weight larger than MaxNodeScore", strategy(Map.of("type", "MostAllocated",
            "resources", List.of(Map.of("name", "memory", "weight", 1),
                Map.of("name", "cpu", "weight", 101)))),
            "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not"
                + " in valid range (0, 100]"),
        new Invalid("unknown strategy type", strategy(Map.of("type", "Foo")),
            "scoringStrategy.type: Unsupported value: \"Foo\": supported values: "
                + "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""),
        new Invalid("strategy without type", strategy(Map.of()),
            "scoringStrategy.type: Unsupported value: \"\": supported values: "
                + "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""),
        new Invalid("ratio type without its parameters",
            strategy(Map.of("type", "RequestedToCapacityRatio")),
            "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when"
                + " type is RequestedToCapacityRatio"),
        new Invalid("ratio parameters with another type", strategy(Map.of("type", "LeastAllocated",
            "requestedToCapacityRatio", Map.of("shape", List.of()))),
            "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not"
                + " RequestedToCapacityRatio"),
        new Invalid("empty shape", rtcr(List.of()),
            "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point"
                + " must be specified"),
        new Invalid("unsorted shape", rtcr(List.of(Map.of("utilization", 10, "score", 1),
            Map.of("utilization", 10, "score", 2))),
            "scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 10:"
                + " values must be sorted in increasing order"),
        new Invalid("shape out of range reports every error",
            rtcr(List.of(Map.of("utilization", 101, "score", 11))),
            "[scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: 101:"
                + " not in valid range [0, 100], scoringStrategy.requestedToCapacityRatio"
                + ".shape[0].score: Invalid value: 11: not in valid range [0, 10]]"),
        new Invalid("ignored resource that is not a qualified name",
            Map.of("ignoredResources", List.of("a/b/c")),
            "ignoredResources[0]: Invalid value: \"a/b/c\": a qualified name must consist of"),
        new Invalid("ignored resource group with a slash",
            Map.of("ignoredResourceGroups", List.of("example.com/aaa")),
            "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name"
                + " can't contain '/'"),
        new Invalid("unknown field", strategy(Map.of("type", "MostAllocated", "typo", 1)),
            "unknown field \"scoringStrategy.typo\""),
        new Invalid("weight of the wrong type", strategy(Map.of("type", "MostAllocated",
            "resources", List.of(Map.of("name", "cpu", "weight", "heavy")))),
            "scoringStrategy.resources[0].weight: Invalid value: \"heavy\": must be an integer"),
        new Invalid("ignoredResources not a list", Map.of("ignoredResources", "example.com/a"),
            "ignoredResources: Invalid value: \"example.com/a\": must be a list"),
        new Invalid("wrong kind", Map.of("kind", "NodeAffinityArgs"),
            "kind: Unsupported value: \"NodeAffinityArgs\": supported values:"
                + " \"NodeResourcesFitArgs\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidFitArgs")
  void fitFactoryRejectsInvalidArgsNamingTheField(Invalid c) {
    PluginFactory factory = NodeResourcesFit::create;
    assertThatThrownBy(() -> factory.create(c.args(), new TestHandle()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(c.message());
  }

  @Test
  void balancedArgsDefaultToCpuAndMemory() {
    assertThat(NodeResourcesBalancedAllocationArgs.parse(Map.of()).resources())
        .isEqualTo(ResourceSpec.DEFAULTS);
    assertThat(NodeResourcesBalancedAllocationArgs.parse(Map.of("resources",
        List.of(Map.of("name", "cpu"), Map.of("name", "nvidia.com/gpu", "weight", 0))))
        .resources())
        .containsExactly(new ResourceSpec("cpu", 1), new ResourceSpec("nvidia.com/gpu", 1));
  }

  static Stream<Invalid> invalidBalancedArgs() {
    return Stream.of(
        new Invalid("duplicate resource", Map.of("resources", List.of(Map.of("name", "cpu"),
            Map.of("name", "cpu"))), "resources[1].name: Duplicate value: \"cpu\""),
        new Invalid("weight other than one", Map.of("resources",
            List.of(Map.of("name", "cpu", "weight", 2))),
            "resources[0].weight: Invalid value: 2: must be 1"),
        new Invalid("both at once", Map.of("resources", List.of(
            Map.of("name", "memory", "weight", 3), Map.of("name", "memory", "weight", 1))),
            "[resources[0].weight: Invalid value: 3: must be 1, resources[1].name: Duplicate"
                + " value: \"memory\"]"),
        new Invalid("unknown field", Map.of("resources", List.of(), "shape", List.of()),
            "unknown field \"shape\""),
        new Invalid("resource entry not an object", Map.of("resources", List.of("cpu")),
            "resources[0]: Invalid value: \"cpu\": must be an object"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBalancedArgs")
  void balancedFactoryRejectsInvalidArgsNamingTheField(Invalid c) {
    PluginFactory factory = NodeResourcesBalancedAllocation::create;
    assertThatThrownBy(() -> factory.create(c.args(), new TestHandle()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(c.message());
  }

  @Test
  void factoriesBuildPluginsUnderTheirUpstreamNames() {
    assertThat(NodeResourcesFit.create(Map.of(), new TestHandle()).name())
        .isEqualTo("NodeResourcesFit");
    assertThat(NodeResourcesBalancedAllocation.create(Map.of(), new TestHandle()).name())
        .isEqualTo("NodeResourcesBalancedAllocation");
  }
}
