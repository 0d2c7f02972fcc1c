package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.CacheTestObjects.node;
import static io.berth.scheduler.cache.CacheTestObjects.onNode;
import static io.berth.scheduler.cache.CacheTestObjects.pod;
import static io.berth.scheduler.cache.CacheTestObjects.withImages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.ImageStateSummary;
import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CachePodsAndNodesTest {
  private final SchedulerCache cache = new SchedulerCache(Duration.ofSeconds(30),
      new FakeInstantSource());

  private NodeInfo nodeInfo(String name) {
    return cache.dump().nodes().get(name);
  }

  private Snapshot snapshot() {
    Snapshot snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    return snapshot;
  }

  @Test
  void podOnUnknownNodeWaitsOnANodeInfoWithoutNode() {
    cache.addPod(pod("p", "later", 300, 10));

    assertThat(cache.nodeCount()).isEqualTo(1);
    assertThat(nodeInfo("later").node()).isEmpty();
    assertThat(nodeInfo("later").requested().milliCpu()).isEqualTo(300);
    Snapshot before = snapshot();
    assertThat(before.list()).isEmpty();
    assertThat(before.get("later")).isEmpty();

    cache.addNode(node("later"));

    Snapshot after = snapshot();
    assertThat(after.list()).extracting(NodeInfo::nodeName).containsExactly("later");
    assertThat(after.get("later").orElseThrow().requested().milliCpu()).isEqualTo(300);
  }

  @Test
  void removedNodeKeepsItsPodsUntilTheyAreRemoved() {
    cache.addNode(node("n1"));
    Pod a = pod("a", "n1", 100, 1);
    Pod b = pod("b", "n1", 200, 1);
    cache.addPod(a);
    cache.addPod(b);

    cache.removeNode(node("n1"));

    assertThat(cache.nodeCount()).isEqualTo(1);
    assertThat(cache.podCount()).isEqualTo(2);
    assertThat(nodeInfo("n1").node()).isEmpty();
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(300);
    assertThat(cache.getPod(a)).isPresent();
    assertThat(snapshot().list()).isEmpty();

    cache.removePod(a);
    assertThat(cache.nodeCount()).isEqualTo(1);
    cache.removePod(b);
    assertThat(cache.nodeCount()).isZero();
    assertThat(cache.podCount()).isZero();
  }

  @Test
  void removedNodeComesBackWithItsRemainingPods() {
    cache.addNode(node("n1"));
    cache.addPod(pod("a", "n1", 100, 1));
    cache.removeNode(node("n1"));

    cache.addNode(node("n1"));

    Snapshot snapshot = snapshot();
    assertThat(snapshot.list()).hasSize(1);
    assertThat(snapshot.get("n1").orElseThrow().requested().milliCpu()).isEqualTo(100);
  }

  @Test
  void removingAnUnknownOrAlreadyRemovedNodeThrows() {
    assertThatThrownBy(() -> cache.removeNode(node("nope")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not found");
    cache.addNode(node("n1"));
    cache.addPod(pod("a", "n1", 100, 1));
    cache.removeNode(node("n1"));
    assertThatThrownBy(() -> cache.removeNode(node("n1")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not found");
    assertThat(cache.podCount()).isEqualTo(1);
  }

  @Test
  void updatePodReplacesItsRequests() {
    cache.addNode(node("n1"));
    cache.addPod(pod("p", "n1", 100, 10));

    Pod bigger = pod("p", "n1", 900, 10);
    cache.updatePod(bigger);

    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(900);
    assertThat(nodeInfo("n1").pods()).hasSize(1);
    assertThat(cache.getPod(bigger)).containsSame(bigger);
  }

  @Test
  void updatePodRejectsUnknownAssumedAndMovedPods() {
    cache.addNode(node("n1"));
    cache.addNode(node("n2"));
    Pod assumed = pod("assumed", "n1", 100, 1);
    cache.assumePod(assumed);
    Pod added = pod("added", "n1", 100, 1);
    cache.addPod(added);

    assertThatThrownBy(() -> cache.updatePod(pod("unknown", "n1", 1, 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot be updated");
    assertThatThrownBy(() -> cache.updatePod(assumed))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("should not be updated");
    assertThatThrownBy(() -> cache.updatePod(onNode(added, "n2")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("corrupted");
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(200);
    assertThat(nodeInfo("n2").requested().milliCpu()).isZero();
  }

  @Test
  void removePodAcceptsTheLastKnownStateWithoutNodeName() {
    cache.addNode(node("n1"));
    Pod p = pod("p", "n1", 100, 1);
    cache.addPod(p);

    cache.removePod(onNode(p, null));

    assertThat(cache.getPod(p)).isEmpty();
    assertThat(nodeInfo("n1").requested().milliCpu()).isZero();
  }

  @Test
  void removePodRejectsUnknownPodsAndOtherNodes() {
    cache.addNode(node("n1"));
    Pod p = pod("p", "n1", 100, 1);
    cache.addPod(p);

    assertThatThrownBy(() -> cache.removePod(pod("unknown", "n1", 1, 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not found");
    assertThatThrownBy(() -> cache.removePod(onNode(p, "n2")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("corrupted");
    assertThat(cache.getPod(p)).isPresent();
  }

  @Test
  void removePodRemovesAnAssumedPodToo() {
    cache.addNode(node("n1"));
    Pod p = pod("p", "n1", 100, 1);
    cache.assumePod(p);

    cache.removePod(p);

    assertThat(cache.isAssumedPod(p)).isFalse();
    assertThat(cache.dump().assumedPods()).isEmpty();
    assertThat(nodeInfo("n1").requested().milliCpu()).isZero();
  }

  @Test
  void addingAnAddedPodAgainThrows() {
    cache.addNode(node("n1"));
    cache.addPod(pod("p", "n1", 100, 1));

    assertThatThrownBy(() -> cache.addPod(pod("p", "n1", 100, 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("already in added state");
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(100);
  }

  @Test
  void updateNodeChangesAllocatable() {
    cache.addNode(node("n1"));
    Node bigger = new NodeBuilder(node("n1")).editStatus()
        .addToAllocatable("cpu", new Quantity("16")).endStatus().build();

    cache.updateNode(bigger);

    assertThat(nodeInfo("n1").allocatable().milliCpu()).isEqualTo(16_000);
    assertThat(cache.nodeCount()).isEqualTo(1);
    assertThat(snapshot().list()).hasSize(1);
  }

  @Test
  void nodeWithUnparsableAllocatableIsRejectedWithoutTrace() {
    Node broken = new NodeBuilder(node("bad")).editStatus()
        .addToAllocatable("cpu", new Quantity("lots")).endStatus().build();

    assertThatThrownBy(() -> cache.addNode(broken))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allocatable");
    assertThat(cache.nodeCount()).isZero();
    assertThat(snapshot().list()).isEmpty();
  }

  @Test
  void imageStatesCountTheNodesHoldingEachImage() {
    cache.addNode(withImages(node("n1"), "nginx:100", "redis:50"));
    cache.addNode(withImages(node("n2"), "nginx:100"));

    assertThat(nodeInfo("n2").imageStates())
        .containsEntry("nginx", new ImageStateSummary(100, 2));
    // n1 has not changed since n2 came: its count is refreshed on its next change
    assertThat(nodeInfo("n1").imageStates()).containsEntry("nginx", new ImageStateSummary(100, 1));
    cache.addPod(pod("p", "n1", 1, 1));
    assertThat(nodeInfo("n1").imageStates())
        .containsEntry("nginx", new ImageStateSummary(100, 2))
        .containsEntry("redis", new ImageStateSummary(50, 1));

    cache.removeNode(node("n2"));
    cache.addPod(pod("q", "n1", 1, 1));
    assertThat(nodeInfo("n1").imageStates()).containsEntry("nginx", new ImageStateSummary(100, 1));

    cache.updateNode(withImages(node("n1"), "redis:50"));
    assertThat(nodeInfo("n1").imageStates()).containsOnlyKeys("redis");
    cache.addNode(withImages(node("n3"), "nginx:100"));
    assertThat(nodeInfo("n3").imageStates())
        .as("n1 no longer has nginx").containsEntry("nginx", new ImageStateSummary(100, 1));
  }

  @Test
  void snapshotOfCacheCarriesImageCounts() {
    cache.addNode(withImages(node("n1"), "nginx:100"));
    cache.addNode(withImages(node("n2"), "nginx:100"));
    cache.addPod(pod("p", "n1", 1, 1));

    Snapshot snapshot = snapshot();

    assertThat(snapshot.get("n1").orElseThrow().imageStates().get("nginx").numNodes())
        .isEqualTo(2);
    assertThat(snapshot.get("n2").orElseThrow().imageStates().get("nginx").numNodes())
        .isEqualTo(2);
  }
}
