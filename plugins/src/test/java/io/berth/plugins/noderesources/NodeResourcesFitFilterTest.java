package io.berth.plugins.noderesources;

import static io.berth.plugins.noderesources.Fixtures.node;
import static io.berth.plugins.noderesources.Fixtures.pod;
import static io.berth.plugins.noderesources.Fixtures.res;
import static io.berth.plugins.noderesources.Fixtures.usage;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Filter cases translated from upstream's fit_test.go (TestEnoughRequests and friends). */
class NodeResourcesFitFilterTest {
  private static final String EXT_A = "example.com/aaa";
  private static final String EXT_B = "example.com/bbb";
  private static final String K8S_IO_A = "kubernetes.io/something";
  private static final String K8S_IO_B = "subdomain.kubernetes.io/something";
  private static final String HUGE_A = "hugepages-2Mi";

  /** Upstream's makeAllocatableResources(10, 20, 32, 5, 20, 5). */
  private static Node standardNode() {
    return node("n", res("cpu", "10m", "memory", "20", "pods", "32", EXT_A, "5",
        "ephemeral-storage", "20", HUGE_A, "5"));
  }

  record Case(String name, Pod pod, Pod existing, Map<String, Object> args, Status want,
      List<InsufficientResource> wantInsufficient) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case fits(String name, Pod pod, Pod existing) {
    return new Case(name, pod, existing, Map.of(), Status.SUCCESS, List.of());
  }

  private static Case fails(String name, Pod pod, Pod existing, InsufficientResource... lacking) {
    String[] reasons = Stream.of(lacking).map(InsufficientResource::reason).toArray(String[]::new);
    return new Case(name, pod, existing, Map.of(), Status.unschedulable(reasons),
        List.of(lacking));
  }

  private static InsufficientResource lack(String resource, long requested, long used,
      long capacity) {
    return new InsufficientResource(resource, "Insufficient " + resource, requested, used,
        capacity);
  }

  static Stream<Case> enoughRequestsCases() {
    return Stream.of(
        fits("no resources requested always fits", pod().build(), pod(usage(10, 20)).build()),
        fails("too many resources fails", pod(usage(1, 1)).build(), pod(usage(10, 20)).build(),
            lack("cpu", 1, 10, 10), lack("memory", 1, 20, 20)),
        fails("too many resources fails due to init container cpu",
            pod(usage(1, 1)).init(usage(3, 1)).build(), pod(usage(8, 19)).build(),
            lack("cpu", 3, 8, 10)),
        fails("too many resources fails due to highest init container cpu",
            pod(usage(1, 1)).init(usage(3, 1), usage(2, 1)).build(), pod(usage(8, 19)).build(),
            lack("cpu", 3, 8, 10)),
        fails("too many resources fails due to init container memory",
            pod(usage(1, 1)).init(usage(1, 3)).build(), pod(usage(9, 19)).build(),
            lack("memory", 3, 19, 20)),
        fails("too many resources fails due to highest init container memory",
            pod(usage(1, 1)).init(usage(1, 3), usage(1, 2)).build(), pod(usage(9, 19)).build(),
            lack("memory", 3, 19, 20)),
        fits("init container fits because it's the max, not sum, of containers and init",
            pod(usage(1, 1)).init(usage(1, 1)).build(), pod(usage(9, 19)).build()),
        fits("multiple init containers fit because it's the max, not sum",
            pod(usage(1, 1)).init(usage(1, 1), usage(1, 1)).build(), pod(usage(9, 19)).build()),
        fits("both resources fit", pod(usage(1, 1)).build(), pod(usage(5, 5)).build()),
        fails("one resource memory fits", pod(usage(2, 1)).build(), pod(usage(9, 5)).build(),
            lack("cpu", 2, 9, 10)),
        fails("one resource cpu fits", pod(usage(1, 2)).build(), pod(usage(5, 19)).build(),
            lack("memory", 2, 19, 20)),
        fits("equal edge case", pod(usage(5, 1)).build(), pod(usage(5, 19)).build()),
        fits("equal edge case for init container", pod(usage(4, 1)).init(usage(5, 1)).build(),
            pod(usage(5, 19)).build()),
        fits("extended resource fits", pod(usage(0, 0, EXT_A, 1)).build(),
            pod(usage(0, 0)).build()),
        fits("extended resource fits for init container",
            pod(usage(0, 0)).init(usage(0, 0, EXT_A, 1)).build(), pod(usage(0, 0)).build()),
        fails("extended resource capacity enforced", pod(usage(1, 1, EXT_A, 10)).build(),
            pod(usage(0, 0, EXT_A, 0)).build(), lack(EXT_A, 10, 0, 5)),
        fails("extended resource capacity enforced for init container",
            pod(usage(0, 0)).init(usage(1, 1, EXT_A, 10)).build(),
            pod(usage(0, 0, EXT_A, 0)).build(), lack(EXT_A, 10, 0, 5)),
        fails("extended resource allocatable enforced", pod(usage(1, 1, EXT_A, 1)).build(),
            pod(usage(0, 0, EXT_A, 5)).build(), lack(EXT_A, 1, 5, 5)),
        fails("extended resource allocatable enforced for init container",
            pod(usage(0, 0)).init(usage(1, 1, EXT_A, 1)).build(),
            pod(usage(0, 0, EXT_A, 5)).build(), lack(EXT_A, 1, 5, 5)),
        fails("extended resource allocatable enforced for multiple containers",
            pod(usage(1, 1, EXT_A, 3), usage(1, 1, EXT_A, 3)).build(),
            pod(usage(0, 0, EXT_A, 2)).build(), lack(EXT_A, 6, 2, 5)),
        fits("extended resource allocatable admits multiple init containers",
            pod(usage(0, 0)).init(usage(1, 1, EXT_A, 3), usage(1, 1, EXT_A, 3)).build(),
            pod(usage(0, 0, EXT_A, 2)).build()),
        fails("extended resource allocatable enforced for multiple init containers",
            pod(usage(0, 0)).init(usage(1, 1, EXT_A, 6), usage(1, 1, EXT_A, 3)).build(),
            pod(usage(0, 0, EXT_A, 2)).build(), lack(EXT_A, 6, 2, 5)),
        fails("extended resource allocatable enforced for unknown resource",
            pod(usage(1, 1, EXT_B, 1)).build(), pod(usage(0, 0)).build(), lack(EXT_B, 1, 0, 0)),
        fails("extended resource allocatable enforced for unknown resource for init container",
            pod(usage(0, 0)).init(usage(1, 1, EXT_B, 1)).build(), pod(usage(0, 0)).build(),
            lack(EXT_B, 1, 0, 0)),
        fails("kubernetes.io resource capacity enforced", pod(usage(1, 1, K8S_IO_A, 10)).build(),
            pod(usage(0, 0)).build(), lack(K8S_IO_A, 10, 0, 0)),
        fails("kubernetes.io resource capacity enforced for init container",
            pod(usage(0, 0)).init(usage(1, 1, K8S_IO_B, 10)).build(), pod(usage(0, 0)).build(),
            lack(K8S_IO_B, 10, 0, 0)),
        fails("hugepages resource capacity enforced", pod(usage(1, 1, HUGE_A, 10)).build(),
            pod(usage(0, 0, HUGE_A, 0)).build(), lack(HUGE_A, 10, 0, 5)),
        fails("hugepages resource capacity enforced for init container",
            pod(usage(0, 0)).init(usage(1, 1, HUGE_A, 10)).build(),
            pod(usage(0, 0, HUGE_A, 0)).build(), lack(HUGE_A, 10, 0, 5)),
        fails("hugepages resource allocatable enforced for multiple containers",
            pod(usage(1, 1, HUGE_A, 3), usage(1, 1, HUGE_A, 3)).build(),
            pod(usage(0, 0, HUGE_A, 2)).build(), lack(HUGE_A, 6, 2, 5)),
        new Case("skip checking ignored extended resource", pod(usage(1, 1, EXT_B, 1)).build(),
            pod(usage(0, 0)).build(), Map.of("ignoredResources", List.of(EXT_B)), Status.SUCCESS,
            List.of()),
        fits("resources + pod overhead fits",
            pod(usage(1, 1)).overhead(res("cpu", "3m", "memory", "13")).build(),
            pod(usage(5, 5)).build()),
        fails("requests + overhead does not fit for memory",
            pod(usage(1, 1)).overhead(res("cpu", "1m", "memory", "15")).build(),
            pod(usage(5, 5)).build(), lack("memory", 16, 5, 20)),
        new Case("skip checking ignored extended resource via resource groups",
            pod(res("cpu", "1m", "memory", "1", EXT_B, "1", K8S_IO_A, "1")).build(),
            pod(usage(0, 0)).build(), Map.of("ignoredResourceGroups", List.of("example.com")),
            Status.unschedulable("Insufficient " + K8S_IO_A), List.of(lack(K8S_IO_A, 1, 0, 0))),
        fits("skip checking extended resource request with quantity zero",
            pod(usage(1, 1, EXT_A, 0)).build(), pod(usage(0, 0, EXT_A, 6)).build()),
        fits("skip checking resource request with quantity zero",
            pod(usage(0, 0, EXT_A, 1)).build(), pod(usage(20, 30, EXT_A, 1)).build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("enoughRequestsCases")
  void filterReportsEveryInsufficientResource(Case c) {
    NodeResourcesFit plugin = plugin(c.args());
    NodeInfo nodeInfo = NodeInfo.of(standardNode(), c.existing());

    assertThat(runFilter(plugin, c.pod(), nodeInfo)).isEqualTo(c.want());
    CycleState state = new CycleState();
    plugin.preFilter(state, c.pod(), List.of());
    var prefilter = state.read(NodeResourcesFit.PRE_FILTER_STATE_KEY,
        NodeResourcesFit.PreFilterState.class).orElseThrow();
    assertThat(NodeResourcesFit.fits(prefilter, nodeInfo))
        .containsExactlyElementsOf(c.wantInsufficient());
  }

  static Stream<Case> notEnoughPodsCases() {
    Status tooMany = Status.unschedulable(NodeResourcesFit.REASON_TOO_MANY_PODS);
    return Stream.of(
        new Case("even without specified resources, fails when there's no space for another pod",
            pod().build(), pod(usage(10, 20)).build(), Map.of(), tooMany, List.of()),
        new Case("even if both resources fit, fails when there's no space for another pod",
            pod(usage(1, 1)).build(), pod(usage(5, 5)).build(), Map.of(), tooMany, List.of()),
        new Case("even for equal edge case, fails when there's no space for another pod",
            pod(usage(5, 1)).build(), pod(usage(5, 19)).build(), Map.of(), tooMany, List.of()),
        new Case("even for equal edge case, fails for lack of a pod slot due to init container",
            pod(usage(5, 1)).init(usage(5, 1)).build(), pod(usage(5, 19)).build(), Map.of(),
            tooMany, List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notEnoughPodsCases")
  void filterRejectsWhenThePodLimitIsReached(Case c) {
    Node node = node("n", res("cpu", "10m", "memory", "20", "pods", "1"));
    assertThat(runFilter(plugin(Map.of()), c.pod(), NodeInfo.of(node, c.existing())))
        .isEqualTo(c.want());
  }

  static Stream<Case> storageCases() {
    return Stream.of(
        fits("empty storage requested, and pod fits", pod(usage(1, 1)).build(),
            pod(usage(2, 10)).build()),
        new Case("storage ephemeral local storage request exceeds allocatable",
            pod(res("ephemeral-storage", "25")).build(), pod(usage(2, 2)).build(), Map.of(),
            Status.unschedulable(NodeResourcesFit.REASON_INSUFFICIENT_EPHEMERAL_STORAGE),
            List.of()),
        fits("ephemeral local storage is sufficient", pod(res("ephemeral-storage", "5")).build(),
            pod(res("cpu", "2m", "memory", "2", "ephemeral-storage", "10")).build()),
        fits("pod fits", pod(res("ephemeral-storage", "10")).build(), pod(usage(2, 2)).build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("storageCases")
  void filterChecksEphemeralStorage(Case c) {
    assertThat(runFilter(plugin(Map.of()), c.pod(), NodeInfo.of(standardNode(), c.existing())))
        .isEqualTo(c.want());
  }

  @Test
  void sidecarRequestsAddUpWithRegularContainers() {
    Node node = node("n", res("cpu", "2m", "pods", "1"));
    Pod fitting = pod(res("cpu", "1m")).sidecar(res("cpu", "1m")).build();
    Pod tooBig = pod(res("cpu", "1m")).sidecar(res("cpu", "2m")).build();

    assertThat(runFilter(plugin(Map.of()), fitting, NodeInfo.of(node))).isEqualTo(Status.SUCCESS);
    assertThat(runFilter(plugin(Map.of()), tooBig, NodeInfo.of(node)))
        .isEqualTo(Status.unschedulable(NodeResourcesFit.REASON_INSUFFICIENT_CPU));
  }

  @Test
  void everyReasonIsReportedInUpstreamOrderWithScalarsSortedByName() {
    Node node = node("n", res("cpu", "1", "memory", "1Ki", "ephemeral-storage", "1Ki",
        "pods", "1", EXT_A, "1", EXT_B, "1"));
    Pod existing = pod(res("cpu", "1")).build();
    Pod wanting = pod(res("cpu", "1", "memory", "2Ki", "ephemeral-storage", "2Ki", EXT_B, "2",
        EXT_A, "2")).build();

    Status status = runFilter(plugin(Map.of()), wanting, NodeInfo.of(node, existing));

    assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(status.reasons()).containsExactly("Too many pods", "Insufficient cpu",
        "Insufficient memory", "Insufficient ephemeral-storage", "Insufficient " + EXT_A,
        "Insufficient " + EXT_B);
  }

  @Test
  void requestBeyondTheWholeAllocatableIsStillUnschedulableAsInV132() {
    Node node = node("n", res("cpu", "1", "memory", "1Gi"));
    Status status = runFilter(plugin(Map.of()), pod(res("cpu", "64")).build(), NodeInfo.of(node));
    assertThat(status).isEqualTo(Status.unschedulable("Insufficient cpu"));
  }

  @Test
  void ignoredResourcesOnlyApplyToExtendedResources() {
    Node node = node("n", res("cpu", "1"));
    Pod pod = pod(res(HUGE_A, "2Mi", K8S_IO_A, "1", EXT_A, "1")).build();
    Map<String, Object> args = Map.of("ignoredResources", List.of(HUGE_A, K8S_IO_A, EXT_A));

    Status status = runFilter(plugin(args), pod, NodeInfo.of(node));

    assertThat(status.reasons()).containsExactly("Insufficient " + HUGE_A,
        "Insufficient " + K8S_IO_A);
  }

  @Test
  void resourceNamesTheSchedulerDoesNotTrackAreNotChecked() {
    Node node = node("n", res("cpu", "1"));
    Pod pod = pod(res("storage", "10Gi", "cpu", "1")).build();
    assertThat(runFilter(plugin(Map.of()), pod, NodeInfo.of(node))).isEqualTo(Status.SUCCESS);
  }

  @Test
  void filterWithoutPreFilterStateIsAnError() {
    NodeResourcesFit plugin = plugin(Map.of());
    Status status = plugin.filter(new CycleState(), pod().build(), NodeInfo.of(standardNode()));
    assertThat(status.code()).isEqualTo(Code.ERROR);
    assertThat(status.message()).contains("PreFilterNodeResourcesFit");
  }

  @Test
  void malformedQuantityFailsPreFilterNamingTheField() {
    Quantity broken = new Quantity();
    broken.setAmount("1x");
    Pod pod = pod(res("memory", "1Gi")).build();
    pod.getSpec().getContainers().get(0).getResources().getRequests().put("cpu", broken);
    CycleState state = new CycleState();

    PreFilterResult result = plugin(Map.of()).preFilter(state, pod, List.of());

    assertThat(result.status().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(result.status().message())
        .contains("spec.containers[0].resources.requests.cpu").contains("1x");
    assertThat(state.read(NodeResourcesFit.PRE_FILTER_STATE_KEY,
        NodeResourcesFit.PreFilterState.class)).isEmpty();
  }

  @Test
  void preFilterNeitherNarrowsNodesNorOffersExtensions() {
    NodeResourcesFit plugin = plugin(Map.of());
    PreFilterResult result = plugin.preFilter(new CycleState(), pod(usage(1, 1)).build(),
        List.of());
    assertThat(result.allNodes()).isTrue();
    assertThat(plugin.preFilterExtensions()).isEmpty();
  }

  static NodeResourcesFit plugin(Map<String, Object> args) {
    return (NodeResourcesFit) NodeResourcesFit.create(args, new TestHandle());
  }

  static Status runFilter(NodeResourcesFit plugin, Pod pod, NodeInfo nodeInfo) {
    CycleState state = new CycleState();
    PreFilterResult result = plugin.preFilter(state, pod, List.of(nodeInfo));
    assertThat(result.status().isSuccess()).as("prefilter status %s", result.status()).isTrue();
    return plugin.filter(state, pod, nodeInfo);
  }
}
