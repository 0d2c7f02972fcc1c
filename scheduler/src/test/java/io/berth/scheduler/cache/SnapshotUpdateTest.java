package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.CacheTestObjects.node;
import static io.berth.scheduler.cache.CacheTestObjects.pod;
import static io.berth.scheduler.cache.CacheTestObjects.withAffinity;
import static io.berth.scheduler.cache.CacheTestObjects.withImages;
import static io.berth.scheduler.cache.CacheTestObjects.withPvc;
import static io.berth.scheduler.cache.CacheTestObjects.withRequiredAntiAffinity;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotUpdateTest {
  private final SchedulerCache cache = new SchedulerCache(Duration.ofSeconds(30),
      new FakeInstantSource());
  private final Snapshot snapshot = new Snapshot();

  private void addNodes(String... names) {
    for (String name : names) {
      cache.addNode(node(name));
    }
  }

  private static Map<String, NodeInfo> byName(Snapshot s) {
    Map<String, NodeInfo> out = new HashMap<>();
    s.list().forEach(info -> out.put(info.nodeName(), info));
    return out;
  }

  /** Names of the nodes whose NodeInfo object differs between the two views. */
  private static List<String> copied(Map<String, NodeInfo> before, Map<String, NodeInfo> after) {
    return after.keySet().stream().filter(n -> before.get(n) != after.get(n)).sorted().toList();
  }

  @Test
  void onlyChangedNodeInfosAreCopied() {
    addNodes("n1", "n2", "n3", "n4", "n5");
    cache.addPod(pod("p1", "n1", 100, 1));
    cache.updateSnapshot(snapshot);
    Map<String, NodeInfo> first = byName(snapshot);
    long firstGeneration = snapshot.generation();

    cache.addPod(pod("p2", "n2", 200, 1));
    cache.assumePod(pod("p4", "n4", 400, 1));
    cache.updateSnapshot(snapshot);
    Map<String, NodeInfo> second = byName(snapshot);

    assertThat(copied(first, second)).containsExactly("n2", "n4");
    assertThat(second.get("n2").requested().milliCpu()).isEqualTo(200);
    assertThat(second.get("n4").requested().milliCpu()).isEqualTo(400);
    assertThat(first.get("n2").requested().milliCpu()).as("old copy untouched").isZero();
    assertThat(snapshot.get("n2")).containsSame(second.get("n2"));
    assertThat(snapshot.generation()).isGreaterThan(firstGeneration);

    cache.updateSnapshot(snapshot);
    assertThat(copied(second, byName(snapshot))).as("nothing changed, nothing copied").isEmpty();
  }

  @Test
  void listKeepsItsOrderWhenNodeInfosAreReplaced() {
    cache.addNode(node("a1", "a"));
    cache.addNode(node("a2", "a"));
    cache.addNode(node("b1", "b"));
    cache.updateSnapshot(snapshot);
    List<String> order = snapshot.list().stream().map(NodeInfo::nodeName).toList();

    cache.addPod(pod("p", "a2", 100, 1));
    cache.updateSnapshot(snapshot);

    assertThat(snapshot.list()).extracting(NodeInfo::nodeName).containsExactlyElementsOf(order);
    assertThat(snapshot.list().get(order.indexOf("a2")))
        .isSameAs(snapshot.get("a2").orElseThrow());
    assertThat(snapshot.get("a2").orElseThrow().requested().milliCpu()).isEqualTo(100);
  }

  @Test
  void snapshotNodeInfosAreNotMutatedByLaterCacheChanges() {
    addNodes("n1");
    cache.addPod(pod("p1", "n1", 100, 1));
    cache.updateSnapshot(snapshot);
    NodeInfo held = snapshot.get("n1").orElseThrow();

    cache.addPod(pod("p2", "n1", 100, 1));
    cache.removePod(pod("p1", "n1", 100, 1));
    cache.updateSnapshot(snapshot);

    assertThat(held.pods()).extracting(pi -> pi.name()).containsExactly("p1");
    assertThat(snapshot.get("n1").orElseThrow().pods()).extracting(pi -> pi.name())
        .containsExactly("p2");
  }

  @Test
  void deletedNodesVanishFromTheSnapshot() {
    addNodes("n1", "n2", "n3");
    cache.addPod(pod("p", "n2", 100, 1));
    cache.updateSnapshot(snapshot);

    cache.removeNode(node("n1"));
    cache.removeNode(node("n2")); // keeps a NodeInfo for its pod
    cache.updateSnapshot(snapshot);

    assertThat(snapshot.list()).extracting(NodeInfo::nodeName).containsExactly("n3");
    assertThat(snapshot.get("n1")).isEmpty();
    assertThat(snapshot.get("n2")).isEmpty();
    assertThat(snapshot.numNodes()).isEqualTo(1);
    assertThat(cache.nodeCount()).isEqualTo(2);
  }

  @Test
  void nodeDeletedAndAddedBetweenSnapshotsAppearsOnce() {
    addNodes("n1", "n2");
    cache.updateSnapshot(snapshot);
    NodeInfo old = snapshot.get("n1").orElseThrow();

    cache.removeNode(node("n1"));
    cache.addNode(node("n1"));
    cache.addNode(node("n3"));
    cache.removeNode(node("n2"));
    cache.updateSnapshot(snapshot);

    assertThat(snapshot.list()).extracting(NodeInfo::nodeName)
        .containsExactlyInAnyOrder("n1", "n3");
    assertThat(snapshot.get("n1").orElseThrow()).isNotSameAs(old);
  }

  @Test
  void nodeOrderInterleavesZones() {
    cache.addNode(node("a1", "a"));
    cache.addNode(node("a2", "a"));
    cache.addNode(node("a3", "a"));
    cache.addNode(node("b1", "b"));
    cache.addNode(node("b2", "b"));

    cache.updateSnapshot(snapshot);

    assertThat(snapshot.list()).extracting(NodeInfo::nodeName)
        .containsExactly("a1", "b1", "a2", "b2", "a3");

    cache.addNode(node("c1", "c"));
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.list()).extracting(NodeInfo::nodeName)
        .containsExactly("a1", "b1", "c1", "a2", "b2", "a3");
  }

  @Test
  void affinityListsFollowPodsWithAffinity() {
    addNodes("n1", "n2", "n3");
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.havePodsWithAffinityList()).isEmpty();

    Pod affinity = withAffinity(pod("aff", "n2", 1, 1));
    Pod anti = withRequiredAntiAffinity(pod("anti", "n3", 1, 1));
    cache.addPod(affinity);
    cache.addPod(anti);
    cache.updateSnapshot(snapshot);

    assertThat(snapshot.havePodsWithAffinityList()).extracting(NodeInfo::nodeName)
        .containsExactlyInAnyOrder("n2", "n3");
    assertThat(snapshot.havePodsWithRequiredAntiAffinityList()).extracting(NodeInfo::nodeName)
        .containsExactly("n3");

    // a change that keeps n2 in the list must put n2's new copy there
    cache.addPod(pod("plain", "n2", 1, 1));
    cache.updateSnapshot(snapshot);
    NodeInfo n2 = snapshot.get("n2").orElseThrow();
    assertThat(n2.pods()).hasSize(2);
    assertThat(snapshot.havePodsWithAffinityList()).filteredOn(i -> i.nodeName().equals("n2"))
        .singleElement().isSameAs(n2);

    cache.removePod(affinity);
    cache.removePod(anti);
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.havePodsWithAffinityList()).isEmpty();
    assertThat(snapshot.havePodsWithRequiredAntiAffinityList()).isEmpty();
  }

  @Test
  void aNodeLeavingTheMiddleOfAnAffinityListKeepsTheOthersCurrent() {
    addNodes("n1", "n2", "n3", "n4");
    cache.updateSnapshot(snapshot);
    Pod[] anti = new Pod[4];
    for (int i = 0; i < 4; i++) {
      anti[i] = withRequiredAntiAffinity(pod("anti" + i, "n" + (i + 1), 1, 1));
      cache.addPod(anti[i]);
      // one node joins per cycle, as when pods with anti-affinity are placed one by one
      cache.updateSnapshot(snapshot);
    }
    cache.removePod(anti[1]);
    cache.addPod(pod("plain", "n4", 1, 1));
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.havePodsWithRequiredAntiAffinityList()).extracting(NodeInfo::nodeName)
        .containsExactlyInAnyOrder("n1", "n3", "n4");
    for (NodeInfo listed : snapshot.havePodsWithRequiredAntiAffinityList()) {
      assertThat(listed).isSameAs(snapshot.get(listed.nodeName()).orElseThrow());
    }
    assertThat(snapshot.get("n4").orElseThrow().pods()).hasSize(2);
    cache.addPod(anti[1]);
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.havePodsWithRequiredAntiAffinityList()).extracting(NodeInfo::nodeName)
        .containsExactlyInAnyOrder("n1", "n2", "n3", "n4");
  }

  @Test
  void usedPvcSetFollowsPodsOnNodes() {
    addNodes("n1", "n2");
    cache.updateSnapshot(snapshot);
    Pod a = withPvc(pod("a", "n1", 1, 1), "data");
    Pod b = withPvc(pod("b", "n2", 1, 1), "data");
    cache.addPod(a);
    cache.addPod(b);
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.isPvcUsedByPods("default/data")).isTrue();
    assertThat(snapshot.isPvcUsedByPods("other/data")).isFalse();

    cache.removePod(a);
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.isPvcUsedByPods("default/data")).as("still used on n2").isTrue();

    cache.removePod(b);
    cache.updateSnapshot(snapshot);
    assertThat(snapshot.isPvcUsedByPods("default/data")).isFalse();
  }

  @Test
  void emptyCacheGivesEmptySnapshot() {
    cache.updateSnapshot(snapshot);

    assertThat(snapshot.list()).isEmpty();
    assertThat(snapshot.numNodes()).isZero();
    assertThat(snapshot.generation()).isZero();
  }

  @Test
  void snapshotOfBuildsNodeInfosFromPodsAndNodes() {
    Snapshot s = Snapshot.of(
        List.of(pod("p1", "n1", 100, 1), withAffinity(pod("p2", "n2", 200, 1)),
            withPvc(pod("p3", "gone", 300, 1), "claim"), pod("pending", null, 1, 1)),
        List.of(withImages(node("n2"), "nginx:10"), withImages(node("n1"), "nginx:10")));

    assertThat(s.list()).extracting(NodeInfo::nodeName).containsExactly("n2", "n1");
    assertThat(s.get("n1").orElseThrow().requested().milliCpu()).isEqualTo(100);
    assertThat(s.get("gone")).isEmpty();
    assertThat(s.havePodsWithAffinityList()).extracting(NodeInfo::nodeName).containsExactly("n2");
    assertThat(s.isPvcUsedByPods("default/claim")).isTrue();
    assertThat(s.get("n1").orElseThrow().imageStates().get("nginx").numNodes()).isEqualTo(2);
    assertThat(s.list()).allSatisfy(info -> assertThat(info.pods())
        .noneMatch(pi -> pi.name().equals("pending")));
  }
}
