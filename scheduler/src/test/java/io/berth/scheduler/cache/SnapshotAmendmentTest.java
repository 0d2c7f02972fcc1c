package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.CacheTestObjects.node;
import static io.berth.scheduler.cache.CacheTestObjects.onNode;
import static io.berth.scheduler.cache.CacheTestObjects.pod;
import static io.berth.scheduler.cache.CacheTestObjects.withPvc;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SnapshotAmendment: placements on the snapshot only, PVCs in use included, all undone by revert. */
class SnapshotAmendmentTest {

  @Test
  void anAssumedPodIsOnItsNodeAndRevertPutsTheCachesNodeInfoBack() {
    Snapshot snapshot = Snapshot.of(List.of(), List.of(node("n1"), node("n2")));
    NodeInfo before = snapshot.get("n1").orElseThrow();
    SnapshotAmendment amendment = new SnapshotAmendment(snapshot);
    amendment.assume(pod("m1", "n1", 100, 100));
    assertThat(snapshot.get("n1").orElseThrow().pods()).hasSize(1);
    assertThat(before.pods()).as("the cache's NodeInfo is never mutated").isEmpty();
    amendment.revert();
    assertThat(snapshot.get("n1").orElseThrow()).isSameAs(before);
  }

  @Test
  void aPlacedMembersClaimIsInUseUntilReverted() {
    Snapshot snapshot = Snapshot.of(List.of(), List.of(node("n1"), node("n2")));
    SnapshotAmendment amendment = new SnapshotAmendment(snapshot);
    assertThat(snapshot.isPvcUsedByPods("default/data")).isFalse();
    amendment.assume(withPvc(pod("m1", "n1", 100, 100), "data"));
    // a later member of the cycle with the same ReadWriteOncePod claim sees it taken
    assertThat(snapshot.isPvcUsedByPods("default/data")).isTrue();
    amendment.assume(pod("m2", "n2", 100, 100));
    amendment.revertLast();
    assertThat(snapshot.isPvcUsedByPods("default/data")).as("m2 had no claim").isTrue();
    amendment.revertLast();
    assertThat(snapshot.isPvcUsedByPods("default/data")).isFalse();
  }

  @Test
  void theVersionStaysForAGroupsOwnPlacementsAndMovesForRemovals() {
    Snapshot snapshot = Snapshot.of(List.of(pod("victim", "n2", 100, 100)),
        List.of(node("n1"), node("n2")));
    long v = snapshot.version();
    SnapshotAmendment amendment = new SnapshotAmendment(snapshot);
    amendment.assume(pod("m1", "n1", 100, 100));
    assertThat(snapshot.version()).isEqualTo(v);
    amendment.remove(pod("victim", "n2", 100, 100));
    long removed = snapshot.version();
    assertThat(removed).isNotEqualTo(v);
    amendment.revert();
    assertThat(snapshot.version()).isNotEqualTo(removed).isNotEqualTo(v);
  }

  @Test
  void revertLeavesAClaimThatWasInUseBeforeTheCycle() {
    Snapshot snapshot = Snapshot.of(List.of(withPvc(pod("bound", "n2", 100, 100), "data")),
        List.of(node("n1"), node("n2")));
    SnapshotAmendment amendment = new SnapshotAmendment(snapshot);
    amendment.assume(withPvc(onNode(pod("m1", "n1", 100, 100), "n1"), "data"));
    amendment.revert();
    assertThat(snapshot.isPvcUsedByPods("default/data")).isTrue();
  }
}
