package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

class CacheTest {

  @Test
  void namespacedKeyIsNamespaceSlashName() {
    assertThat(Cache.metaNamespaceKey(pod("ns1", "web", "1"))).isEqualTo("ns1/web");
  }

  @Test
  void clusterScopedKeyIsName() {
    Node node = new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build();
    assertThat(Cache.metaNamespaceKey(node)).isEqualTo("node-1");
    assertThat(Cache.metaNamespaceKey("", "node-1")).isEqualTo("node-1");
    assertThat(Cache.metaNamespaceKey(null, "node-1")).isEqualTo("node-1");
  }

  @Test
  void objectWithoutNameHasNoKey() {
    assertThatThrownBy(() -> Cache.metaNamespaceKey(new Pod())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void splitReversesKey() {
    assertThat(Cache.splitMetaNamespaceKey("ns1/web")).containsExactly("ns1", "web");
    assertThat(Cache.splitMetaNamespaceKey("node-1")).containsExactly("", "node-1");
    assertThatThrownBy(() -> Cache.splitMetaNamespaceKey("a/b/c")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void namespaceIndexIsTheNamespaceOrEmpty() {
    assertThat(Cache.metaNamespaceIndex(pod("ns1", "web", "1"))).containsExactly("ns1");
    Node node = new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build();
    assertThat(Cache.metaNamespaceIndex(node)).containsExactly("");
  }
}
