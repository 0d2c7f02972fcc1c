package io.berth.informer;

import static io.berth.informer.MockApiServer.watchPath;
import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fabric8 seam over real HTTP: what reaches the stream, and that fabric8 never reconnects. */
class Fabric8ListerWatcherTest {

  private static final String PODS = "/api/v1/pods";

  private MockApiServer api;
  private Fabric8ListerWatcher<Pod> lw;

  @BeforeEach
  void setUp() {
    api = new MockApiServer();
    lw = Fabric8ListerWatcher.of(api.client, Pod.class);
  }

  @AfterEach
  void tearDown() {
    api.close();
  }

  /** The next event, failing (instead of hanging) if none comes. */
  private static WatchEvent<Pod> next(WatchStream<Pod> stream) throws Exception {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return stream.next();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }).get(20, TimeUnit.SECONDS);
  }

  private static io.fabric8.kubernetes.api.model.WatchEvent event(Object object, String type) {
    return new io.fabric8.kubernetes.api.model.WatchEvent(object, type);
  }

  @Test
  void listSendsResourceVersionLimitAndContinueAndReadsTheListMeta() throws Exception {
    api.server.expect().get().withPath(PODS + "?continue=abc&limit=2&resourceVersion=7")
        .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("9").withContinue("def")
            .endMetadata().withItems(pod("ns", "a", "3")).build())
        .once();
    ListPage<Pod> page = lw.list(new ListRequest("7", 2, "abc"));
    assertThat(page.items()).extracting(p -> p.getMetadata().getName()).containsExactly("a");
    assertThat(page.resourceVersion()).isEqualTo("9");
    assertThat(page.continueToken()).isEqualTo("def");
  }

  @Test
  void consistentListSendsNoResourceVersion() throws Exception {
    api.client.pods().inNamespace("ns").resource(new PodBuilder().withNewMetadata().withName("a").endMetadata()
        .build()).create();
    ListPage<Pod> page = lw.inNamespace("ns").list(new ListRequest("", 0, ""));
    assertThat(page.items()).hasSize(1);
    assertThat(page.hasMore()).isFalse();
    assertThat(api.requests()).contains("GET /api/v1/namespaces/ns/pods");
  }

  @Test
  void watchEndedByTheServerEndsTheStreamInsteadOfReconnecting() throws Exception {
    api.server.expect().get().withPath(watchPath(PODS, "5"))
        .andUpgradeToWebSocket().open()
        .waitFor(10).andEmit(event(pod("ns", "a", "6"), "ADDED"))
        .waitFor(10).andEmit(event(pod("ns", "a", "7"), "MODIFIED"))
        .waitFor(10).andEmit(event(pod("ns", "a", "8"), "DELETED"))
        .done().once();
    WatchStream<Pod> stream = lw.watch(new WatchRequest("5", 300));
    assertThat(next(stream).type()).isEqualTo(WatchEvent.Type.ADDED);
    assertThat(next(stream).type()).isEqualTo(WatchEvent.Type.MODIFIED);
    WatchEvent<Pod> deleted = next(stream);
    assertThat(deleted.type()).isEqualTo(WatchEvent.Type.DELETED);
    assertThat(deleted.resourceVersion()).isEqualTo("8");
    // fabric8 would silently reconnect by default; here the end reaches us
    assertThat(next(stream).type()).isEqualTo(WatchEvent.Type.CLOSED);
    assertThat(stream.isOpen()).isFalse();
    assertThat(next(stream).type()).isEqualTo(WatchEvent.Type.CLOSED);
    assertThat(api.requests("GET " + PODS + "?allowWatchBookmarks")).hasSize(1);
  }

  @Test
  void bookmarkReachesTheStreamWithItsResourceVersion() throws Exception {
    Pod bookmark = new PodBuilder().withNewMetadata().withResourceVersion("42").endMetadata().build();
    api.server.expect().get().withPath(watchPath(PODS, "5"))
        .andUpgradeToWebSocket().open()
        .waitFor(10).andEmit(event(bookmark, "BOOKMARK"))
        .done().once();
    WatchStream<Pod> stream = lw.watch(new WatchRequest("5", 300));
    WatchEvent<Pod> event = next(stream);
    assertThat(event.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
    assertThat(event.resourceVersion()).isEqualTo("42");
    assertThat(event.object()).isEmpty();
  }

  @Test
  void errorEventWithStatus410EndsTheStreamWithGone() throws Exception {
    api.server.expect().get().withPath(watchPath(PODS, "5"))
        .andUpgradeToWebSocket().open()
        .waitFor(10).andEmit(event(new StatusBuilder().withCode(410).withReason("Expired")
            .withMessage("too old resource version").build(), "ERROR"))
        .done().once();
    WatchStream<Pod> stream = lw.watch(new WatchRequest("5", 300));
    WatchEvent<Pod> event = next(stream);
    assertThat(event.type()).isEqualTo(WatchEvent.Type.ERROR);
    assertThat(event.cause()).get().isInstanceOfSatisfying(KubernetesClientException.class,
        e -> assertThat(e.getCode()).isEqualTo(410));
    assertThat(ApiErrors.isExpired(event.cause().orElseThrow())).isTrue();
    assertThat(stream.isOpen()).isFalse();
  }

  @Test
  void watchRefusedWith410IsThrown() {
    api.server.expect().get().withPath(watchPath(PODS, "5"))
        .andReturn(410, new StatusBuilder().withCode(410).withReason("Expired").build()).once();
    assertThatThrownBy(() -> lw.watch(new WatchRequest("5", 300)))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
  }

  @Test
  void closingTheStreamEndsItAndTheWatch() throws Exception {
    WatchStream<Pod> stream = lw.watch(new WatchRequest("1", 300)); // served by the CRUD mock
    assertThat(stream.isOpen()).isTrue();
    stream.close();
    stream.close();
    assertThat(stream.isOpen()).isFalse();
    assertThat(next(stream).type()).isEqualTo(WatchEvent.Type.CLOSED);
  }

  @Test
  void describesTypeNamespaceAndSelectors() {
    assertThat(lw.description()).isEqualTo("Pod (all namespaces)");
    assertThat(lw.inNamespace("ns").withLabelSelector("app=web").withFieldSelector("spec.nodeName=n1")
        .description()).isEqualTo("Pod in ns labels=app=web fields=spec.nodeName=n1");
    assertThat(lw.inNamespace("").namespace()).isEmpty();
  }

  private static Pod withManagedFields(Pod pod) {
    pod.getMetadata().setManagedFields(java.util.List.of(new ManagedFieldsEntryBuilder().withManager("kubectl")
        .withOperation("Update").withApiVersion("v1").withFieldsType("FieldsV1").build()));
    return pod;
  }

  @Test
  void withoutManagedFieldsListsAndWatchesObjectsWithoutThem() throws Exception {
    api.server.expect().get().withPath(PODS + "?limit=500&resourceVersion=0")
        .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("4").endMetadata()
            .withItems(withManagedFields(pod("ns", "a", "3"))).build())
        .once();
    api.server.expect().get().withPath(watchPath(PODS, "4"))
        .andUpgradeToWebSocket().open()
        .waitFor(10).andEmit(event(withManagedFields(pod("ns", "a", "5")), "MODIFIED"))
        .done().once();
    Fabric8ListerWatcher<Pod> dropping = lw.withoutManagedFields();
    assertThat(dropping.dropsManagedFields()).isTrue();
    assertThat(lw.dropsManagedFields()).isFalse();
    assertThat(dropping.inNamespace("ns").withLabelSelector("a=b").dropsManagedFields()).isTrue();
    ListPage<Pod> page = dropping.list(new ListRequest("0", 500, ""));
    assertThat(page.items()).singleElement()
        .satisfies(p -> assertThat(p.getMetadata().getManagedFields()).isEmpty());
    WatchStream<Pod> stream = dropping.watch(new WatchRequest("4", 300));
    WatchEvent<Pod> event = next(stream);
    assertThat(event.type()).isEqualTo(WatchEvent.Type.MODIFIED);
    assertThat(event.object().orElseThrow().getMetadata().getManagedFields()).isEmpty();
    assertThat(event.object().orElseThrow().getMetadata().getName()).isEqualTo("a");
    stream.close();
  }
}
