package io.berth.plugins.topologyplacement;

import static io.berth.plugins.topologyplacement.Zones.ZONE;
import static io.berth.plugins.topologyplacement.Zones.info;
import static io.berth.plugins.topologyplacement.Zones.member;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The domain rule: per-node bin-packing, most members held, tightest fit, fewest nodes, name. */
class DomainPackingTest {

  private static List<Pod> members(int n, String cpu) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> member("m" + i, "g", cpu)).toList();
  }

  private static List<DomainPacking.Fit> rank(List<NodeInfo> nodes, List<Pod> members, Set<String> exclude) {
    return DomainPacking.rank(DomainPacking.domains(ZONE, nodes), members, nodes, exclude);
  }

  @Test
  void fitIsPerNodeBinPackingNotASum() {
    // a: 6 cpu free in two nodes of 3; b: 6 cpu on one node. Three 2-cpu members: a holds two, b all three.
    List<NodeInfo> nodes = List.of(info("a1", "a", "3"), info("a2", "a", "3"), info("b1", "b", "6"));
    List<DomainPacking.Fit> ranked = rank(nodes, members(3, "2"), Set.of());
    assertThat(ranked).extracting(DomainPacking.Fit::domain, DomainPacking.Fit::held)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("b", 3), org.assertj.core.groups.Tuple.tuple("a", 2));
  }

  @Test
  void tightestFeasibleDomainWins() {
    List<NodeInfo> nodes = List.of(info("big1", "big", "16"), info("small1", "small", "4"),
        info("small2", "small", "4"));
    assertThat(rank(nodes, members(4, "2"), Set.of()).get(0).domain()).isEqualTo("small");
  }

  @Test
  void equalFitPrefersFewerNodesThenTheName() {
    List<NodeInfo> nodes = List.of(info("x1", "x", "4"), info("x2", "x", "4"), info("y1", "y", "8"),
        info("z1", "z", "8"));
    assertThat(rank(nodes, members(4, "2"), Set.of())).extracting(DomainPacking.Fit::domain)
        .containsExactly("y", "z", "x");
  }

  @Test
  void holdingEveryMemberBeatsATighterPartialFit() {
    List<NodeInfo> nodes = List.of(info("t1", "tight", "4"), info("r1", "roomy", "12"));
    assertThat(rank(nodes, members(5, "2"), Set.of()).get(0).domain()).isEqualTo("roomy");
  }

  @Test
  void excludedDomainsComeLastAndUnlabelledOrUnschedulableNodesBelongToNone() {
    NodeInfo cordoned = NodeInfo.of(new io.fabric8.kubernetes.api.model.NodeBuilder(Zones.node("c1", "c", "8"))
        .editOrNewSpec().withUnschedulable(true).endSpec().build());
    List<NodeInfo> nodes = List.of(info("a1", "a", "4"), info("b1", "b", "8"), info("n1", null, "64"), cordoned);
    Map<String, List<NodeInfo>> domains = DomainPacking.domains(ZONE, nodes);
    assertThat(domains).containsOnlyKeys("a", "b");
    assertThat(rank(nodes, members(2, "2"), Set.of("a"))).extracting(DomainPacking.Fit::domain)
        .containsExactly("b", "a");
  }

  @Test
  void podSlotsCount() {
    NodeInfo full = NodeInfo.of(new io.fabric8.kubernetes.api.model.NodeBuilder(Zones.node("p1", "p", "64"))
        .editStatus().addToAllocatable("pods", new io.fabric8.kubernetes.api.model.Quantity("1")).endStatus()
        .build());
    List<NodeInfo> nodes = List.of(full);
    assertThat(rank(nodes, members(3, "1"), Set.of()).get(0).held()).isEqualTo(1);
  }

  @Test
  void largestNamesTheDomainHoldingTheMost() {
    List<NodeInfo> nodes = List.of(info("a1", "a", "2"), info("b1", "b", "6"), info("b2", "b", "2"));
    DomainPacking.Fit largest = DomainPacking.largest(rank(nodes, members(9, "1"), Set.of())).orElseThrow();
    assertThat(largest.domain()).isEqualTo("b");
    assertThat(largest.held()).isEqualTo(8);
    assertThat(DomainPacking.describe(largest.freeMilliCpu(), largest.freeMemory()))
        .isEqualTo("cpu 8, memory 128Gi");
  }
}
