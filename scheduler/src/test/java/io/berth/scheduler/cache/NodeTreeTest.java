package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.CacheTestObjects.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

class NodeTreeTest {
  private final NodeTree tree = new NodeTree();

  private static Node labelled(String name, String... keyValues) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    for (int i = 0; i < keyValues.length; i += 2) {
      b.editMetadata().addToLabels(keyValues[i], keyValues[i + 1]).endMetadata();
    }
    return b.build();
  }

  @Test
  void listInterleavesZonesInTheOrderTheyWereFirstSeen() {
    tree.addNode(node("a1", "a"));
    tree.addNode(node("b1", "b"));
    tree.addNode(node("a2", "a"));
    tree.addNode(node("a3", "a"));
    tree.addNode(node("b2", "b"));

    assertThat(tree.list()).containsExactly("a1", "b1", "a2", "b2", "a3");
    assertThat(tree.numNodes()).isEqualTo(5);
  }

  @Test
  void nodesWithoutZoneLabelsShareOneZone() {
    tree.addNode(node("x1"));
    tree.addNode(node("a1", "a"));
    tree.addNode(node("x2"));

    assertThat(tree.list()).containsExactly("x1", "a1", "x2");
  }

  @Test
  void addingANodeTwiceKeepsOneEntry() {
    tree.addNode(node("a1", "a"));
    tree.addNode(node("a1", "a"));

    assertThat(tree.list()).containsExactly("a1");
    assertThat(tree.numNodes()).isEqualTo(1);
  }

  @Test
  void removingTheLastNodeOfAZoneDropsTheZone() {
    tree.addNode(node("a1", "a"));
    tree.addNode(node("b1", "b"));
    tree.addNode(node("c1", "c"));
    tree.addNode(node("c2", "c"));

    assertThat(tree.removeNode(node("b1", "b"))).isTrue();
    tree.addNode(node("b2", "b"));

    // b is now the last zone seen
    assertThat(tree.list()).containsExactly("a1", "c1", "b2", "c2");
  }

  @Test
  void removingAnUnknownNodeReportsIt() {
    tree.addNode(node("a1", "a"));

    assertThat(tree.removeNode(node("a1", "b"))).as("looked up in its labelled zone").isFalse();
    assertThat(tree.removeNode(node("zz", "a"))).isFalse();
    assertThat(tree.numNodes()).isEqualTo(1);
  }

  @Test
  void updateMovesANodeWhoseZoneChanged() {
    tree.addNode(node("a1", "a"));
    tree.addNode(node("a2", "a"));
    tree.addNode(node("b1", "b"));

    tree.updateNode(node("a1", "a"), node("a1", "b"));
    tree.updateNode(node("a2", "a"), node("a2", "a"));

    assertThat(tree.list()).containsExactly("a2", "b1", "a1");
    assertThat(tree.numNodes()).isEqualTo(3);
  }

  @Test
  void zoneKeyFallsBackToFailureDomainLabelsAndIncludesTheRegion() {
    Node beta = labelled("n", NodeTree.LABEL_FAILURE_DOMAIN_BETA_REGION, "r",
        NodeTree.LABEL_FAILURE_DOMAIN_BETA_ZONE, "z");
    Node ga = labelled("n", NodeTree.LABEL_TOPOLOGY_REGION, "r", NodeTree.LABEL_TOPOLOGY_ZONE, "z");
    Node both = labelled("n", NodeTree.LABEL_TOPOLOGY_REGION, "r", NodeTree.LABEL_TOPOLOGY_ZONE,
        "z", NodeTree.LABEL_FAILURE_DOMAIN_BETA_ZONE, "old");
    Node otherRegion = labelled("n", NodeTree.LABEL_TOPOLOGY_REGION, "r2",
        NodeTree.LABEL_TOPOLOGY_ZONE, "z");

    assertThat(NodeTree.zoneKey(beta)).isEqualTo(NodeTree.zoneKey(ga)).isNotEmpty();
    assertThat(NodeTree.zoneKey(both)).isEqualTo(NodeTree.zoneKey(ga));
    assertThat(NodeTree.zoneKey(otherRegion)).isNotEqualTo(NodeTree.zoneKey(ga));
    assertThat(NodeTree.zoneKey(labelled("n"))).isEmpty();
    assertThat(NodeTree.zoneKey(labelled("n", NodeTree.LABEL_TOPOLOGY_ZONE, "z")))
        .isNotEqualTo(NodeTree.zoneKey(labelled("n", NodeTree.LABEL_TOPOLOGY_REGION, "z")));
  }

  @Test
  void emptyTreeListsNothing() {
    assertThat(tree.list()).isEmpty();
  }
}
