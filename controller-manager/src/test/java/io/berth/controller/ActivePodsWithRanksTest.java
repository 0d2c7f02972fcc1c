package io.berth.controller;

import static io.berth.controller.PodFixture.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.controller.ActivePodsWithRanks.RankedPod;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ActivePodsWithRanksTest {

  private static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");
  private static final Instant LONG_AGO = NOW.minus(Duration.ofDays(10));

  /** Asserts that {@code first} is deleted before {@code second}, and not the other way round. */
  private static void assertDeletedFirst(RankedPod first, RankedPod second) {
    assertThat(ActivePodsWithRanks.less(first, second, NOW)).as("first < second").isTrue();
    assertThat(ActivePodsWithRanks.less(second, first, NOW)).as("second < first").isFalse();
  }

  private static RankedPod ranked(Pod pod) {
    return new RankedPod(pod, 0);
  }

  private static PodFixture readyOn(String name, String node) {
    return pod(name).runningReady(node, LONG_AGO);
  }

  @Test
  void unassignedPodsGoBeforeAssignedOnes() {
    Pod unassigned = pod("a").phase(Pods.PHASE_RUNNING).readySince(LONG_AGO).build();
    Pod assigned = pod("b").onNode("n1").phase(Pods.PHASE_PENDING).build();
    assertDeletedFirst(ranked(unassigned), ranked(assigned));
  }

  @Test
  void pendingGoesBeforeUnknownWhichGoesBeforeRunning() {
    RankedPod pending = ranked(pod("p").onNode("n1").phase(Pods.PHASE_PENDING).build());
    RankedPod unknown = ranked(pod("u").onNode("n1").phase(Pods.PHASE_UNKNOWN).build());
    RankedPod running = ranked(pod("r").onNode("n2").phase(Pods.PHASE_RUNNING).build());
    assertDeletedFirst(pending, unknown);
    assertDeletedFirst(unknown, running);
    assertDeletedFirst(pending, running);
  }

  @Test
  void notReadyGoesBeforeReady() {
    RankedPod notReady = ranked(pod("a").onNode("n1").phase(Pods.PHASE_RUNNING).notReady().build());
    RankedPod ready = ranked(readyOn("b", "n1").build());
    assertDeletedFirst(notReady, ready);
  }

  @Test
  void lowerDeletionCostGoesFirstAndInvalidCostsCountAsZero() {
    RankedPod cheap = ranked(readyOn("a", "n1").deletionCost("-5").build());
    RankedPod dear = ranked(readyOn("b", "n1").deletionCost("10").build());
    assertDeletedFirst(cheap, dear);
    RankedPod invalid = ranked(readyOn("c", "n1").deletionCost("+3").build());
    assertDeletedFirst(cheap, invalid);
    assertDeletedFirst(invalid, dear);
    assertThat(ActivePodsWithRanks.deletionCost(readyOn("d", "n1").deletionCost("007").build())).isZero();
    assertThat(ActivePodsWithRanks.deletionCost(readyOn("d", "n1").deletionCost("abc").build())).isZero();
    assertThat(ActivePodsWithRanks.deletionCost(readyOn("d", "n1").deletionCost("99999999999").build())).isZero();
    assertThat(ActivePodsWithRanks.deletionCost(readyOn("d", "n1").deletionCost("0").build())).isZero();
    assertThat(ActivePodsWithRanks.deletionCost(readyOn("d", "n1").deletionCost("-2147483648").build()))
        .isEqualTo(Integer.MIN_VALUE);
  }

  @Test
  void theDeletionCostOutranksTheRank() {
    RankedPod doubledUpButDear = new RankedPod(readyOn("a", "n1").deletionCost("1").build(), 5);
    RankedPod aloneButCheap = new RankedPod(readyOn("b", "n2").build(), 1);
    assertDeletedFirst(aloneButCheap, doubledUpButDear);
  }

  @Test
  void podsWithMoreRelatedPodsOnTheirNodeGoFirst() {
    RankedPod doubledUp = new RankedPod(readyOn("a", "n1").build(), 3);
    RankedPod alone = new RankedPod(readyOn("b", "n2").build(), 1);
    assertDeletedFirst(doubledUp, alone);
  }

  @Test
  void theMoreRecentlyReadyPodGoesFirstWhenTheirAgesAreInDifferentBuckets() {
    RankedPod recent = ranked(pod("z").uid("z").runningReady("n1", NOW.minusSeconds(60)).build());
    RankedPod old = ranked(pod("a").uid("a").runningReady("n1", NOW.minusSeconds(3600)).build());
    assertDeletedFirst(recent, old);
  }

  @Test
  void readyTimesInTheSameLogarithmicBucketAreOrderedByUid() {
    // 100 s and 110 s are both in [2^36, 2^37) ns: interchangeable, so the UID decides
    RankedPod moreRecentHighUid = ranked(pod("x").uid("zzz").runningReady("n1", NOW.minusSeconds(100)).build());
    RankedPod olderLowUid = ranked(pod("y").uid("aaa").runningReady("n1", NOW.minusSeconds(110)).build());
    assertDeletedFirst(olderLowUid, moreRecentHighUid);
    assertThat(ActivePodsWithRanks.logarithmicRankDiff(NOW.minusSeconds(100), NOW.minusSeconds(110), NOW)).isZero();
    assertThat(ActivePodsWithRanks.logarithmicRankDiff(NOW.minusSeconds(60), NOW.minusSeconds(3600), NOW))
        .isNegative();
    assertThat(ActivePodsWithRanks.logarithmicRankDiff(NOW.plusSeconds(5), NOW.minusSeconds(1), NOW))
        .as("a future time is in bucket -1").isEqualTo(-1 - 29);
  }

  @Test
  void aReadyPodWithoutReadyTimeCountsAsTheMostRecentlyReady() {
    Pod noTime = readyOn("a", "n1").build();
    noTime.getStatus().getConditions().get(0).setLastTransitionTime(null);
    RankedPod withTime = ranked(readyOn("b", "n1").build());
    assertDeletedFirst(ranked(noTime), withTime);
  }

  @Test
  void moreRestartsGoFirstComparedExactly() {
    RankedPod three = ranked(readyOn("a", "n1").restarts(3).build());
    RankedPod two = ranked(readyOn("b", "n1").restarts(2).build());
    assertDeletedFirst(three, two);
  }

  @Test
  void newerPodsGoFirstOnTheLogarithmicScaleWithUidTieBreak() {
    RankedPod newer = ranked(readyOn("z", "n1").uid("z").created(NOW.minusSeconds(30)).build());
    RankedPod older = ranked(readyOn("a", "n1").uid("a").created(NOW.minus(Duration.ofDays(3))).build());
    assertDeletedFirst(newer, older);
    RankedPod sameBucketHighUid = ranked(readyOn("p", "n1").uid("p").created(NOW.minusSeconds(100)).build());
    RankedPod sameBucketLowUid = ranked(readyOn("q", "n1").uid("b").created(NOW.minusSeconds(110)).build());
    assertDeletedFirst(sameBucketLowUid, sameBucketHighUid);
  }

  @Test
  void aPodWithoutCreationTimeGoesFirst() {
    RankedPod none = ranked(readyOn("a", "n1").created(null).build());
    RankedPod some = ranked(readyOn("b", "n1").created(NOW.minusSeconds(5)).build());
    assertDeletedFirst(none, some);
  }

  @Test
  void identicalPodsAreNotOrdered() {
    RankedPod a = ranked(readyOn("a", "n1").uid("same").build());
    RankedPod b = ranked(readyOn("b", "n1").uid("same").build());
    assertThat(ActivePodsWithRanks.less(a, b, NOW)).isFalse();
    assertThat(ActivePodsWithRanks.less(b, a, NOW)).isFalse();
  }

  @Test
  void sortingAppliesTheRulesInOrder() {
    Pod running = readyOn("running", "n1").build();
    Pod runningNewer = pod("running-newer").runningReady("n1", NOW.minusSeconds(10)).build();
    Pod notReady = pod("not-ready").onNode("n1").phase(Pods.PHASE_RUNNING).notReady().build();
    Pod pending = pod("pending").onNode("n2").build();
    Pod unassigned = pod("unassigned").build();
    List<RankedPod> input = List.of(ranked(running), ranked(runningNewer), ranked(notReady), ranked(pending),
        ranked(unassigned));
    assertThat(ActivePodsWithRanks.sortForDeletion(input, NOW)).extracting(p -> p.getMetadata().getName())
        .containsExactly("unassigned", "pending", "not-ready", "running-newer", "running");
    assertThat(input.get(0).pod()).isSameAs(running);
  }

  @Test
  void ranksCountActiveRelatedPodsOnTheSameNode() {
    Pod a = readyOn("a", "n1").build();
    Pod b = readyOn("b", "n2").build();
    Pod unassigned = pod("c").build();
    List<Pod> related = List.of(a, readyOn("a2", "n1").build(), readyOn("a3", "n1").deleting().build(), b,
        unassigned, pod("d").build(), readyOn("x", "n1").phase(Pods.PHASE_SUCCEEDED).build());
    List<RankedPod> ranked = ActivePodsWithRanks.rankByRelatedPodsOnSameNode(List.of(a, b, unassigned), related);
    assertThat(ranked).extracting(RankedPod::rank).containsExactly(2, 1, 2);
  }

  @Test
  void sortingNeverRejectsTheNonTransitiveOrderOfBucketsAndTieBreaks() {
    // equal ready times fall through to restarts, different ones in one bucket to UIDs: cycles are possible
    Random random = new Random(42);
    List<RankedPod> pods = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      pods.add(ranked(pod("p" + i).uid(Integer.toString(random.nextInt(1000), 36))
          .runningReady("n1", NOW.minusSeconds(100 + random.nextInt(3)))
          .restarts(random.nextInt(3)).build()));
    }
    List<Pod> sorted = ActivePodsWithRanks.sortForDeletion(pods, NOW);
    assertThat(sorted).hasSize(600).containsExactlyInAnyOrderElementsOf(pods.stream().map(RankedPod::pod).toList());
  }
}
