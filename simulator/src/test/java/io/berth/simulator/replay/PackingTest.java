package io.berth.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class PackingTest {
  private static final long GI = 1L << 30;
  private static final long MI = 1L << 20;

  private static Packing.NodeUsage node(String name, long cpu, long mem, long podsCap, long reqCpu,
      long reqMem, int pods) {
    return new Packing.NodeUsage(name, Map.of("cpu", cpu, "memory", mem, "pods", podsCap),
        Map.of("cpu", reqCpu, "memory", reqMem), pods);
  }

  @Test
  void fragmentationIsTheShareOfFreeCapacityOnNodesThatCannotFitTheMedianPendingPod() {
    List<Packing.NodeUsage> nodes = List.of(
        node("n1", 4000, 8 * GI, 10, 3500, GI, 3),
        node("n2", 4000, 8 * GI, 10, 0, 0, 0));
    List<Map<String, Long>> pending = List.of(
        Map.of("cpu", 1000L, "memory", GI),
        Map.of("cpu", 600L, "memory", 2 * GI),
        Map.of("cpu", 2000L, "memory", 512 * MI));

    Packing.Report r = Packing.of(nodes, pending, List.of());

    Packing.Fragmentation f = r.fragmentation();
    assertThat(f.basis()).isEqualTo("pending");
    // per resource medians, independently: cpu of 600/1000/2000, memory of 512Mi/1Gi/2Gi
    assertThat(f.reference()).containsExactlyInAnyOrderEntriesOf(Map.of("cpu", 1000L, "memory", GI));
    assertThat(f.unfitNodes()).isEqualTo(1); // n1 has 500m free
    assertThat(f.shares().get("cpu")).isCloseTo(500.0 / 4500, within(1e-9));
    assertThat(f.shares().get("memory")).isCloseTo(7.0 / 15, within(1e-9));
    assertThat(f.figure()).isCloseTo((500.0 / 4500 + 7.0 / 15) / 2, within(1e-9));
    assertThat(r.allocation().get("cpu").ratio()).isCloseTo(3500.0 / 8000, within(1e-9));
    assertThat(r.allocation().get("memory").requested()).isEqualTo(GI);
    assertThat(r.allocation().get("pods").allocatable()).isEqualTo(20);
    assertThat(r.nodes()).isEqualTo(2);
    assertThat(r.nodesInUse()).isEqualTo(1);
  }

  @Test
  void withNothingPendingTheReferenceIsTheMedianScheduledPodAndWithNothingAtAllEveryShareIsZero() {
    List<Packing.NodeUsage> nodes = List.of(node("n1", 2000, 4 * GI, 10, 1500, GI, 2),
        node("n2", 2000, 4 * GI, 10, 0, 0, 0));
    Packing.Report scheduled = Packing.of(nodes, List.of(),
        List.of(Map.of("cpu", 750L), Map.of("cpu", 750L)));
    assertThat(scheduled.fragmentation().basis()).isEqualTo("scheduled");
    assertThat(scheduled.fragmentation().reference()).isEqualTo(Map.of("cpu", 750L));
    assertThat(scheduled.fragmentation().figure()).isCloseTo(500.0 / 2500, within(1e-9));

    Packing.Report none = Packing.of(nodes, List.of(), List.of());
    assertThat(none.fragmentation().basis()).isEqualTo("none");
    assertThat(none.fragmentation().figure()).isZero();
    assertThat(none.fragmentation().unfitNodes()).isZero();
  }

  @Test
  void aNodeWithoutAFreePodSlotCannotFitEvenWithCpuFree() {
    Packing.NodeUsage full = node("full", 8000, 8 * GI, 2, 100, MI, 2);
    assertThat(Packing.fits(full, Map.of("cpu", 100L))).isFalse();
    assertThat(Packing.fits(node("room", 8000, 8 * GI, 3, 100, MI, 2), Map.of("cpu", 100L))).isTrue();
    // nothing free anywhere: 0, not NaN
    Packing.Report r = Packing.of(List.of(node("x", 1000, GI, 1, 1000, GI, 1)),
        List.of(Map.of("cpu", 10L)), List.of());
    assertThat(r.fragmentation().shares().get("cpu")).isZero();
    assertThat(r.fragmentation().figure()).isZero();
  }

  @Test
  void aResourceUsedUpEverywhereDoesNotDiluteTheFigure() {
    // cpu is full on both nodes (nothing free, share 0); all free memory is on nodes that cannot fit
    Packing.Report r = Packing.of(List.of(node("a", 1000, 4 * GI, 10, 1000, GI, 1),
        node("b", 1000, 4 * GI, 10, 1000, GI, 1)), List.of(Map.of("cpu", 500L, "memory", GI)),
        List.of());
    assertThat(r.fragmentation().shares()).containsEntry("cpu", 0.0).containsEntry("memory", 1.0);
    assertThat(r.fragmentation().figure()).isEqualTo(1.0);
  }

  @Test
  void theLowerMedianIsTakenOfAnEvenCountAndAbsentRequestsCountAsZero() {
    assertThat(Packing.median(List.of(Map.of("cpu", 4L), Map.of("cpu", 1L), Map.of("cpu", 3L),
        Map.of("cpu", 2L)))).isEqualTo(Map.of("cpu", 2L));
    // memory: 0, 0, 5 -> 0, left out
    assertThat(Packing.median(List.of(Map.of("cpu", 1L), Map.of("cpu", 1L),
        Map.of("cpu", 1L, "memory", 5L)))).isEqualTo(Map.of("cpu", 1L));
  }

  @Test
  void latencyPercentilesAreNearestRank() {
    Latency l = Latency.of(LongStream.rangeClosed(1, 100).map(i -> 101 - i).boxed().toList());
    assertThat(l).isEqualTo(new Latency(100, 50, 90, 99, 100));
    assertThat(Latency.of(List.of(5L))).isEqualTo(new Latency(1, 5, 5, 5, 5));
    assertThat(Latency.of(List.of(0L, 0L, 0L, 2000L))).isEqualTo(new Latency(4, 0, 2000, 2000, 2000));
    assertThat(Latency.of(List.of())).isEqualTo(Latency.NONE);
  }
}
