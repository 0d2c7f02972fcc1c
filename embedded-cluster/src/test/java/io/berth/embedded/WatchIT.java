package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Watches: resume from a resourceVersion, 410 Gone, bookmarks, timeouts, dropped watches, volume. */
class WatchIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .bookmarkInterval(Duration.ofMillis(200)));

  private String watchUrl(String namespace, String query) {
    return CLUSTER.cluster().url() + "/api/v1/namespaces/" + namespace + "/pods?watch=true&" + query;
  }

  private void createNamespace(String name) {
    CLUSTER.client().namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
        .withNewMetadata().withName(name).endMetadata().build()).create();
  }

  @Test
  void watchFromResourceVersionReplaysExactlyTheLaterEvents() throws Exception {
    createNamespace("replay");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("replay").resource(Fixtures.pod("before")).create();
    String rv = client.pods().inNamespace("replay").list().getMetadata().getResourceVersion();
    client.pods().inNamespace("replay").resource(Fixtures.pod("after-1")).create();
    client.pods().inNamespace("replay").withName("before").edit(p -> {
      p.getMetadata().getLabels().put("touched", "yes");
      return p;
    });
    client.pods().inNamespace("replay").withName("after-1").withGracePeriod(0).delete();
    try (HttpWatch watch = new HttpWatch(watchUrl("replay", "resourceVersion=" + rv))) {
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> watch.summary().size() >= 3);
      assertThat(watch.summary()).containsExactly("ADDED:after-1", "MODIFIED:before", "DELETED:after-1");
    }
  }

  @Test
  void watchWithoutResourceVersionStartsWithSyntheticAdds() throws Exception {
    createNamespace("initial");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("initial").resource(Fixtures.pod("one")).create();
    client.pods().inNamespace("initial").resource(Fixtures.pod("two")).create();
    try (HttpWatch watch = new HttpWatch(watchUrl("initial", "resourceVersion=0"))) {
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> watch.summary().size() >= 2);
      assertThat(watch.summary()).containsExactlyInAnyOrder("ADDED:one", "ADDED:two");
    }
  }

  @Test
  void expiredResourceVersionGets410AsAWatchErrorEvent() throws Exception {
    createNamespace("expired");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("expired").resource(Fixtures.pod("x")).create();
    String old = client.pods().inNamespace("expired").list().getMetadata().getResourceVersion();
    client.pods().inNamespace("expired").resource(Fixtures.pod("y")).create();
    CLUSTER.cluster().compactHistory();
    try (HttpWatch watch = new HttpWatch(watchUrl("expired", "resourceVersion=" + old))) {
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> watch.ended);
      assertThat(watch.events).hasSize(1);
      assertThat(watch.events.get(0).path("type").asString()).isEqualTo("ERROR");
      assertThat(watch.events.get(0).path("object").path("code").asInt()).isEqualTo(410);
      assertThat(watch.events.get(0).path("object").path("reason").asString()).isEqualTo("Expired");
    }
  }

  @Test
  void fabric8WatcherSeesTheGoneError() {
    createNamespace("gone8");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("gone8").resource(Fixtures.pod("x")).create();
    String old = client.pods().inNamespace("gone8").list().getMetadata().getResourceVersion();
    client.pods().inNamespace("gone8").resource(Fixtures.pod("y")).create();
    CLUSTER.cluster().compactHistory();
    AtomicReference<WatcherException> closed = new AtomicReference<>();
    Watch watch = client.pods().inNamespace("gone8").watch(new ListOptionsBuilder().withResourceVersion(old).build(),
        new Watcher<Pod>() {
          @Override
          public void eventReceived(Action action, Pod resource) {
          }

          @Override
          public void onClose(WatcherException cause) {
            closed.set(cause);
          }
        });
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> closed.get() != null);
    assertThat(closed.get().isHttpGone()).isTrue();
    watch.close();
  }

  @Test
  void fabric8WebSocketWatchReplaysTheLaterEventsInOrderThenFollowsNewOnes() throws Exception {
    createNamespace("ws-replay");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("ws-replay").resource(Fixtures.pod("before")).create();
    String rv = client.pods().inNamespace("ws-replay").list().getMetadata().getResourceVersion();
    client.pods().inNamespace("ws-replay").resource(Fixtures.pod("after-1")).create();
    client.pods().inNamespace("ws-replay").withName("after-1").withGracePeriod(0).delete();
    List<String> seen = new CopyOnWriteArrayList<>();
    Watch watch = client.pods().inNamespace("ws-replay").watch(
        new ListOptionsBuilder().withResourceVersion(rv).build(), new Watcher<Pod>() {
          @Override
          public void eventReceived(Action action, Pod pod) {
            seen.add(action + ":" + pod.getMetadata().getName() + "@" + pod.getMetadata().getResourceVersion());
          }

          @Override
          public void onClose(WatcherException cause) {
          }
        });
    try {
      client.pods().inNamespace("ws-replay").resource(Fixtures.pod("after-2")).create();
      String last = client.pods().inNamespace("ws-replay").withName("after-2").get().getMetadata()
          .getResourceVersion();
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen.size() >= 3);
      assertThat(seen).hasSize(3);
      assertThat(seen.get(0)).startsWith("ADDED:after-1@");
      assertThat(seen.get(1)).startsWith("DELETED:after-1@");
      assertThat(seen.get(2)).isEqualTo("ADDED:after-2@" + last);
    } finally {
      watch.close();
    }
  }

  @Test
  void fabric8WebSocketWatchFromAMalformedResourceVersionIsRefusedWith400() {
    createNamespace("ws-bad");
    Watcher<Pod> ignore = new Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod resource) {
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    };
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> CLUSTER.client().pods().inNamespace("ws-bad")
        .watch(new ListOptionsBuilder().withResourceVersion("not-a-version").build(), ignore))
        .isInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class)
        .satisfies(e -> assertThat(((io.fabric8.kubernetes.client.KubernetesClientException) e).getCode())
            .isEqualTo(400));
  }

  @Test
  void bookmarksArriveOnlyWhenAllowedAndCarryTheCurrentVersion() throws Exception {
    createNamespace("bookmarks");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("bookmarks").resource(Fixtures.pod("b")).create();
    try (HttpWatch with = new HttpWatch(watchUrl("bookmarks", "allowWatchBookmarks=true"));
        HttpWatch without = new HttpWatch(watchUrl("bookmarks", "allowWatchBookmarks=false"))) {
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> with.events.stream()
          .anyMatch(e -> "BOOKMARK".equals(e.path("type").asString())));
      var bookmark = with.events.stream().filter(e -> "BOOKMARK".equals(e.path("type").asString())).findFirst()
          .orElseThrow();
      long bookmarkRv = Long.parseLong(bookmark.path("object").path("metadata").path("resourceVersion").asString());
      assertThat(bookmarkRv).isGreaterThanOrEqualTo(Long.parseLong(
          client.pods().inNamespace("bookmarks").withName("b").get().getMetadata().getResourceVersion()));
      assertThat(bookmark.path("object").path("kind").asString()).isEqualTo("Pod");
      Thread.sleep(500);
      assertThat(without.events).noneMatch(e -> "BOOKMARK".equals(e.path("type").asString()));
    }
  }

  @Test
  void timeoutSecondsEndsTheWatch() throws Exception {
    try (HttpWatch watch = new HttpWatch(watchUrl("default", "timeoutSeconds=1"))) {
      Awaitility.await().atLeast(500, TimeUnit.MILLISECONDS).atMost(5, TimeUnit.SECONDS).until(() -> watch.ended);
      assertThat(watch.status).isEqualTo(200);
    }
  }

  @Test
  void afterDroppingAllWatchesAResumedWatchSeesExactlyTheMissedEvents() throws Exception {
    createNamespace("dropped");
    KubernetesClient client = CLUSTER.client();
    String rv = client.pods().inNamespace("dropped").list().getMetadata().getResourceVersion();
    String resumeFrom;
    try (HttpWatch first = new HttpWatch(watchUrl("dropped", "resourceVersion=" + rv))) {
      client.pods().inNamespace("dropped").resource(Fixtures.pod("seen")).create();
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> first.summary().contains("ADDED:seen"));
      resumeFrom = first.lastResourceVersion();
      CLUSTER.cluster().faults().dropAllWatches();
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> first.ended);
    }
    client.pods().inNamespace("dropped").resource(Fixtures.pod("missed-1")).create();
    client.pods().inNamespace("dropped").resource(Fixtures.pod("missed-2")).create();
    client.pods().inNamespace("dropped").withName("seen").withGracePeriod(0).delete();
    try (HttpWatch resumed = new HttpWatch(watchUrl("dropped", "resourceVersion=" + resumeFrom))) {
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> resumed.summary().size() >= 3);
      Thread.sleep(200);
      assertThat(resumed.summary()).containsExactly("ADDED:missed-1", "ADDED:missed-2", "DELETED:seen");
    }
  }

  @Test
  void fieldSelectedWatchSeesAPodEnterTheSelectionAsAdded() throws Exception {
    createNamespace("selected");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("selected").resource(Fixtures.pod("unbound")).create();
    String rv = client.pods().inNamespace("selected").list().getMetadata().getResourceVersion();
    try (HttpWatch onNode = new HttpWatch(watchUrl("selected", "resourceVersion=" + rv
        + "&fieldSelector=spec.nodeName%3Dsel-node"));
        HttpWatch unassigned = new HttpWatch(watchUrl("selected", "resourceVersion=" + rv
            + "&fieldSelector=spec.nodeName%3D"))) {
      client.bindings().resource(new io.fabric8.kubernetes.api.model.BindingBuilder().withNewMetadata()
          .withName("unbound").withNamespace("selected").endMetadata().withNewTarget().withKind("Node")
          .withName("sel-node").endTarget().build()).create();
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> !onNode.summary().isEmpty()
          && !unassigned.summary().isEmpty());
      assertThat(onNode.summary()).containsExactly("ADDED:unbound");
      assertThat(unassigned.summary()).containsExactly("DELETED:unbound");
    }
  }

  @Test
  void tenThousandPodsAreAllSeenByAWatch() throws Exception {
    createNamespace("volume");
    KubernetesClient client = CLUSTER.client();
    Set<String> seen = ConcurrentHashMap.newKeySet();
    List<String> errors = new CopyOnWriteArrayList<>();
    Watch watch = client.pods().inNamespace("volume").watch(new Watcher<Pod>() {
      @Override
      public void eventReceived(Action action, Pod resource) {
        if (action == Action.ADDED) {
          seen.add(resource.getMetadata().getName());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        errors.add(String.valueOf(cause));
      }
    });
    int total = 10_000;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int offset = t;
        futures.add(pool.submit(() -> {
          for (int i = offset; i < total; i += 4) {
            client.pods().inNamespace("volume").resource(Fixtures.pod("p-" + i)).create();
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> seen.size() == total);
    assertThat(seen).hasSize(total);
    assertThat(errors).isEmpty();
    watch.close();
  }
}
