package io.berth.informer;

import static io.berth.informer.MockApiServer.watchPath;
import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The informer over real HTTP against fabric8's mock API server: plain CRUD for ordinary traffic,
 * scripted expectations (mixed mode) for the failure cases. Watch timeouts are made
 * deterministic (random 0 gives 300 s) so scripted watch paths can be matched exactly.
 */
class SharedIndexInformerMockServerTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String PODS = "/api/v1/pods";

  private MockApiServer api;
  private DefaultSharedIndexInformer<Pod> informer;

  @BeforeEach
  void setUp() {
    api = new MockApiServer();
  }

  @AfterEach
  void tearDown() {
    if (informer != null) {
      informer.stop();
    }
    api.close();
  }

  private Pod create(String namespace, String name) {
    return api.client.pods().inNamespace(namespace)
        .resource(new PodBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
  }

  private String currentListResourceVersion() {
    return api.client.pods().inAnyNamespace().list().getMetadata().getResourceVersion();
  }

  private DefaultSharedIndexInformer<Pod> podInformer() {
    informer = new DefaultSharedIndexInformer<>(Fabric8ListerWatcher.of(api.client, Pod.class), Duration.ZERO,
        Clock.SYSTEM, () -> 0.0);
    return informer;
  }

  private static Status gone() {
    return new StatusBuilder().withCode(410).withReason("Expired").withMessage("too old resource version").build();
  }

  @Test
  void initialListThenAddUpdateDeleteThroughTheWatch() throws Exception {
    Pod a = create("ns1", "a");
    create("ns1", "b");
    RecordingHandler handler = new RecordingHandler();
    podInformer().addEventHandler(handler);
    informer.start();
    assertThat(informer.awaitSynced(WAIT)).isTrue();
    assertThat(handler.next(2)).containsExactlyInAnyOrder("add a@1 initial", "add b@2 initial");
    await().atMost(WAIT).until(informer::isWatching);

    create("ns2", "c");
    api.client.pods().inNamespace("ns1").resource(
        new PodBuilder(a).editMetadata().addToLabels("app", "web").endMetadata().build()).update();
    api.client.pods().inNamespace("ns1").withName("b").delete();

    // the mock replays a and b as ADDED on the new watch: unchanged, so no notification
    assertThat(handler.next(3)).containsExactly("add c@3", "update a@1->a@4", "delete b@2");
    assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("ns1/a", "ns2/c");
    assertThat(informer.getStore().getByKey("ns1/a").orElseThrow().getMetadata().getLabels())
        .containsEntry("app", "web");
    assertThat(api.requests("GET " + PODS + "?limit=500&resourceVersion=0")).hasSize(1);
  }

  @Test
  void watchClosedByTheServerIsReopenedFromTheLastResourceVersion() throws Exception {
    create("ns1", "a");
    String listed = currentListResourceVersion();
    Pod modified = pod("ns1", "a", "77");
    api.server.expect().get().withPath(watchPath(PODS, listed))
        .andUpgradeToWebSocket().open()
        .waitFor(50).andEmit(new io.fabric8.kubernetes.api.model.WatchEvent(modified, "MODIFIED"))
        .done().once(); // the session ends after its last event: the server closes the watch
    RecordingHandler handler = new RecordingHandler();
    podInformer().addEventHandler(handler);
    informer.start();
    assertThat(handler.next(2)).containsExactly("add a@1 initial", "update a@1->a@77");

    String rewatch = "GET " + watchPath(PODS, "77");
    await().atMost(WAIT).until(() -> api.requests().contains(rewatch));
    await().atMost(WAIT).until(informer::isWatching);
    assertThat(api.requests("GET " + PODS + "?limit")).hasSize(1); // no relist
  }

  @Test
  void bookmarkAdvancesTheResourceVersionWithoutTouchingTheCache() throws Exception {
    create("ns1", "a");
    String listed = currentListResourceVersion();
    Pod bookmark = new PodBuilder().withNewMetadata().withResourceVersion("50").endMetadata().build();
    // The second event waits for an HTTP request that never comes: the watch stays open (a
    // timed far-future event would hold up the mock server's shutdown for a minute).
    api.server.expect().get().withPath(watchPath(PODS, listed))
        .andUpgradeToWebSocket().open()
        .waitFor(50).andEmit(new io.fabric8.kubernetes.api.model.WatchEvent(bookmark, "BOOKMARK"))
        .expectHttpRequest("/never").andEmit(new io.fabric8.kubernetes.api.model.WatchEvent(bookmark, "BOOKMARK"))
        .once()
        .done().once();
    RecordingHandler handler = new RecordingHandler();
    podInformer().addEventHandler(handler);
    informer.start();
    assertThat(handler.next()).isEqualTo("add a@1 initial");
    await().atMost(WAIT).until(() -> informer.lastSyncResourceVersion().equals("50"));
    assertThat(informer.isWatching()).isTrue();
    assertThat(informer.getStore().listKeys()).containsExactly("ns1/a");
    assertThat(handler.events).isEmpty();
  }

  @Test
  void watchErrorEvent410LeadsToARelistWithEmptyResourceVersion() throws Exception {
    create("ns1", "a");
    String listed = currentListResourceVersion();
    api.server.expect().get().withPath(watchPath(PODS, listed))
        .andUpgradeToWebSocket().open()
        .waitFor(50).andEmit(new io.fabric8.kubernetes.api.model.WatchEvent(gone(), "ERROR"))
        .done().once();
    RecordingHandler handler = new RecordingHandler();
    podInformer().addEventHandler(handler);
    informer.start();
    assertThat(handler.next()).isEqualTo("add a@1 initial");
    // a consistent relist: no resourceVersion parameter at all
    await().atMost(WAIT).until(() -> api.requests().contains("GET " + PODS + "?limit=500"));
    await().atMost(WAIT).until(informer::isWatching);
    assertThat(handler.events).isEmpty(); // the relist found nothing new
  }

  @Test
  void deletionMissedDuringADisconnectArrivesAsATombstone() throws Exception {
    Pod a = create("ns1", "a");
    Pod c = create("ns1", "c");
    // The first list still shows b; the watch from that list's resourceVersion is refused with
    // 410, and the relist (from the CRUD store, where b is gone) reveals the missed deletion.
    api.server.expect().get().withPath(PODS + "?limit=500&resourceVersion=0")
        .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("100").endMetadata()
            .withItems(a, pod("ns1", "b", "99"), c).build())
        .once();
    api.server.expect().get().withPath(watchPath(PODS, "100")).andReturn(410, gone()).once();
    RecordingHandler handler = new RecordingHandler();
    podInformer().addEventHandler(handler);
    informer.start();
    assertThat(handler.next(3)).containsExactlyInAnyOrder("add a@1 initial", "add b@99 initial", "add c@2 initial");
    assertThat(handler.next()).isEqualTo("delete b@99 unknown");
    assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("ns1/a", "ns1/c");
    assertThat(api.requests("GET " + PODS + "?limit=500")).contains("GET " + PODS + "?limit=500");
  }

  @Test
  void paginatedListIsFollowedToTheLastPage() throws Exception {
    api.server.expect().get().withPath(PODS + "?limit=500&resourceVersion=0")
        .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("10").withContinue("t1")
            .endMetadata().withItems(pod("ns1", "a", "3")).build())
        .once();
    api.server.expect().get().withPath(PODS + "?continue=t1&limit=500")
        .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("10").endMetadata()
            .withItems(pod("ns1", "b", "4")).build())
        .once();
    RecordingHandler handler = new RecordingHandler();
    podInformer().addEventHandler(handler);
    informer.start();
    assertThat(informer.awaitSynced(WAIT)).isTrue();
    assertThat(handler.next(2)).containsExactly("add a@3 initial", "add b@4 initial");
    // The watch opens from the list's RV, so lastSyncResourceVersion was "10" after the last page.
    // (Reading it here would race: the CRUD mock may end that watch and a relist moves the RV.)
    await().atMost(WAIT).until(() -> api.requests().contains("GET " + watchPath(PODS, "10")));
  }

  @Test
  void expiredContinueTokenFallsBackToAFullList() throws Exception {
    create("ns1", "a");
    create("ns1", "b");
    api.server.expect().get().withPath(PODS + "?limit=500&resourceVersion=0")
        .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("10").withContinue("t1")
            .endMetadata().withItems(pod("ns1", "a", "1")).build())
        .once();
    api.server.expect().get().withPath(PODS + "?continue=t1&limit=500").andReturn(410, gone()).once();
    podInformer().start();
    assertThat(informer.awaitSynced(WAIT)).isTrue();
    assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("ns1/a", "ns1/b");
    assertThat(api.requests()).contains("GET " + PODS + "?resourceVersion=0");
  }

  @Test
  void handlerAddedAfterSyncGetsTheCacheAsItsInitialList() throws Exception {
    create("ns1", "a");
    create("ns2", "b");
    podInformer().start();
    assertThat(informer.awaitSynced(WAIT)).isTrue();
    RecordingHandler late = new RecordingHandler();
    ResourceEventHandlerRegistration registration = informer.addEventHandler(late);
    assertThat(late.next(2)).containsExactlyInAnyOrder("add a@1 initial", "add b@2 initial");
    await().atMost(WAIT).until(registration::hasSynced);
    create("ns1", "c");
    assertThat(late.next()).isEqualTo("add c@3");
  }

  @Test
  void labelSelectorRestrictsTheCollection() throws Exception {
    api.client.pods().inNamespace("ns1").resource(new PodBuilder().withNewMetadata().withName("web")
        .addToLabels("app", "web").endMetadata().build()).create();
    api.client.pods().inNamespace("ns1").resource(new PodBuilder().withNewMetadata().withName("db")
        .addToLabels("app", "db").endMetadata().build()).create();
    api.client.pods().inNamespace("ns2").resource(new PodBuilder().withNewMetadata().withName("web")
        .addToLabels("app", "web").endMetadata().build()).create();
    ThreadSafeStore<Pod> store = ThreadSafeStore.withNamespaceIndex();
    Reflector<Pod> reflector = new Reflector<>(
        Fabric8ListerWatcher.of(api.client, Pod.class).inNamespace("ns1").withLabelSelector("app=web"),
        store, Duration.ZERO);
    Thread thread = new Thread(reflector::run, "reflector");
    thread.start();
    try {
      await().atMost(WAIT).until(reflector::isWatching);
      assertThat(store.listKeys()).containsExactly("ns1/web");
      api.client.pods().inNamespace("ns1").resource(new PodBuilder().withNewMetadata().withName("web2")
          .addToLabels("app", "web").endMetadata().build()).create();
      await().atMost(WAIT).until(() -> store.size() == 2);
      assertThat(store.listKeys()).containsExactlyInAnyOrder("ns1/web", "ns1/web2");
      assertThat(api.requests()).anyMatch(r -> r.startsWith("GET /api/v1/namespaces/ns1/pods?labelSelector=app%3Dweb"));
    } finally {
      reflector.stop();
      thread.join(WAIT.toMillis());
    }
    assertThat(thread.isAlive()).isFalse();
    assertThat(reflector.isWatching()).isFalse();
  }
}
