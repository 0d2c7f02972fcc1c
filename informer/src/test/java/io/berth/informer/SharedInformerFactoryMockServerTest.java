package io.berth.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SharedInformerFactoryMockServerTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private MockApiServer api;
  private SharedInformerFactory factory;

  @BeforeEach
  void setUp() {
    api = new MockApiServer();
    factory = new SharedInformerFactory(api.client);
  }

  @AfterEach
  void tearDown() {
    factory.shutdown();
    api.close();
  }

  private void createPod(String namespace, String name, String node) {
    api.client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withNodeName(node).endSpec().build()).create();
  }

  @Test
  void oneInformerPerTypeAndNamespace() {
    assertThat(factory.informerFor(Pod.class)).isSameAs(factory.informerFor(Pod.class, null));
    assertThat(factory.informerFor(Pod.class)).isSameAs(factory.informerFor(Pod.class, ""));
    assertThat(factory.informerFor(Pod.class, "ns1")).isSameAs(factory.informerFor(Pod.class, "ns1"));
    assertThat(factory.informerFor(Pod.class, "ns1")).isNotSameAs(factory.informerFor(Pod.class));
    assertThat(factory.informerFor(Node.class)).isNotSameAs(factory.informerFor(Pod.class));
  }

  @Test
  void startedInformersSyncAndListersReadTheirCaches() throws Exception {
    createPod("ns1", "a", "node-1");
    createPod("ns1", "b", "node-2");
    createPod("ns2", "c", "node-1");
    api.client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build()).create();
    factory.informerFor(Pod.class).addIndexers(Map.of("byNode", p -> List.of(Pods.nodeName(p))));
    SharedIndexInformer<Pod> ns1Pods = factory.informerFor(Pod.class, "ns1");
    factory.informerFor(Node.class);
    factory.start();
    assertThat(factory.waitForCacheSync(WAIT)).isTrue();

    Lister<Pod> pods = factory.lister(Pod.class);
    assertThat(pods.list()).hasSize(3);
    assertThat(pods.list("ns1")).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("a", "b");
    assertThat(pods.get("ns2", "c")).isPresent();
    assertThat(pods.get("ns2", "zzz")).isEmpty();
    assertThat(pods.byIndex("byNode", "node-1")).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("a", "c");
    assertThat(factory.lister(Pod.class, "ns1").list()).hasSize(2);
    assertThat(ns1Pods.getStore().listKeys()).containsExactlyInAnyOrder("ns1/a", "ns1/b");
    assertThat(factory.lister(Node.class).get("node-1")).isPresent();

    createPod("ns2", "d", "node-1");
    await().atMost(WAIT).until(() -> pods.byIndex("byNode", "node-1").size() == 3);
    assertThat(ns1Pods.getStore().listKeys()).hasSize(2);
  }

  @Test
  void informersCreatedAfterStartStartOnTheNextStart() throws Exception {
    factory.informerFor(Pod.class);
    factory.start();
    SharedIndexInformer<Node> nodes = factory.informerFor(Node.class);
    assertThat(nodes.isStarted()).isFalse();
    factory.start();
    assertThat(nodes.isStarted()).isTrue();
    assertThat(factory.waitForCacheSync(WAIT)).isTrue();
  }

  @Test
  void shutdownStopsInformersAndRefusesNewOnes() throws Exception {
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    factory.start();
    assertThat(factory.waitForCacheSync(WAIT)).isTrue();
    await().atMost(WAIT).until(pods::isWatching);
    factory.shutdown();
    assertThat(pods.isStopped()).isTrue();
    await().atMost(WAIT).until(() -> !pods.isWatching());
    assertThatThrownBy(() -> factory.informerFor(Node.class)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void waitForCacheSyncGivesUpAfterTheTimeout() throws Exception {
    // the list is answered with an error until the test ends, so the cache never syncs
    api.server.expect().get().withPath("/api/v1/pods?limit=500&resourceVersion=0").andReturn(403, "forbidden").always();
    factory.informerFor(Pod.class);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofMillis(300))).isFalse();
  }

  @Test
  void aFactoryDroppingManagedFieldsCachesObjectsWithoutThem() throws Exception {
    Pod listed = new PodBuilder().withNewMetadata().withName("listed").addNewManagedField().withManager("kubectl")
        .withOperation("Update").withApiVersion("v1").endManagedField().endMetadata().build();
    api.client.pods().inNamespace("ns1").resource(listed).create();
    SharedInformerFactory dropping = SharedInformerFactory.droppingManagedFields(api.client, Duration.ZERO);
    try {
      dropping.informerFor(Pod.class);
      factory.informerFor(Pod.class);
      dropping.start();
      factory.start();
      assertThat(dropping.waitForCacheSync(WAIT)).isTrue();
      assertThat(factory.waitForCacheSync(WAIT)).isTrue();
      await().atMost(WAIT).until(() -> dropping.informerFor(Pod.class).isWatching());
      api.client.pods().inNamespace("ns1").resource(new PodBuilder(listed).editMetadata().withName("watched")
          .endMetadata().build()).create();
      Lister<Pod> pods = dropping.lister(Pod.class);
      await().atMost(WAIT).until(() -> pods.get("ns1", "watched").isPresent()
          && factory.lister(Pod.class).get("ns1", "watched").isPresent());
      assertThat(pods.list()).hasSize(2)
          .allSatisfy(p -> assertThat(p.getMetadata().getManagedFields()).isEmpty());
      // the default factory keeps them
      assertThat(factory.lister(Pod.class).list()).hasSize(2)
          .allSatisfy(p -> assertThat(p.getMetadata().getManagedFields()).hasSize(1));
    } finally {
      dropping.shutdown();
    }
  }
}
