package io.berth.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The informer against the embedded cluster, whose watches resume from a resourceVersion, send bookmarks and answer
 * 410 once history is compacted: the cases the plain mock cannot show.
 */
class EmbeddedClusterInformerIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .bookmarkInterval(Duration.ofMillis(300)));

  private static void namespace(String name) {
    CLUSTER.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata()
        .build()).create();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "informer").endMetadata()
        .withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer().endSpec().build();
  }

  private static SharedIndexInformer<Pod> informer(String namespace) {
    return SharedIndexInformer.create(Fabric8ListerWatcher.of(CLUSTER.client(), Pod.class).inNamespace(namespace),
        Duration.ZERO);
  }

  private static Map<String, String> serverState(String namespace) {
    return CLUSTER.client().pods().inNamespace(namespace).list().getItems().stream()
        .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getResourceVersion()));
  }

  private static Map<String, String> cacheState(SharedIndexInformer<Pod> informer) {
    return informer.getStore().list().stream()
        .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getResourceVersion()));
  }

  /** Lists the informer made (it always names a resourceVersion; the test's own checks do not). */
  private static long informerLists(String namespace) {
    return CLUSTER.cluster().requestLog().entries(r -> r.verb().equals("list") && r.namespace().equals(namespace)
        && r.query().containsKey("resourceVersion")).size();
  }

  @Test
  void theCacheConvergesOnTheServerUnderConcurrentWrites() throws Exception {
    namespace("converge");
    KubernetesClient client = CLUSTER.client();
    for (int i = 0; i < 200; i++) {
      client.pods().inNamespace("converge").resource(pod("pre-" + i)).create();
    }
    SharedIndexInformer<Pod> informer = informer("converge");
    Set<String> added = ConcurrentHashMap.newKeySet();
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        added.add(obj.getMetadata().getName());
      }
    });
    informer.start();
    try {
      await().atMost(WAIT).until(informer::hasSynced);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> futures = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int id = t;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 250; i++) {
            String name = "w" + id + "-" + i;
            client.pods().inNamespace("converge").resource(pod(name)).create();
            if (i % 3 == 0) {
              client.pods().inNamespace("converge").withName(name).edit(p -> {
                p.getMetadata().getLabels().put("edited", "yes");
                return p;
              });
            }
            if (i % 5 == 0) {
              client.pods().inNamespace("converge").withName("pre-" + (id * 50 + i / 5)).delete();
            }
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      await().atMost(WAIT).untilAsserted(() -> assertThat(cacheState(informer)).isEqualTo(serverState("converge")));
      assertThat(added).hasSize(1200);
    } finally {
      informer.stop();
    }
  }

  @Test
  void afterAllWatchesDropTheInformerResumesWithoutRelistingAndSeesTheMissedEvents() {
    namespace("resume");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("resume").resource(pod("first")).create();
    SharedIndexInformer<Pod> informer = informer("resume");
    informer.start();
    try {
      await().atMost(WAIT).until(() -> informer.hasSynced() && informer.isWatching());
      // A watch that ends in its first second without events counts as failed (client-go's "very short watch").
      await().pollDelay(Duration.ofMillis(1200)).until(() -> true);
      long listsBefore = informerLists("resume");
      CLUSTER.cluster().faults().dropAllWatches();
      client.pods().inNamespace("resume").resource(pod("while-down-1")).create();
      client.pods().inNamespace("resume").withName("first").delete();
      client.pods().inNamespace("resume").resource(pod("while-down-2")).create();
      await().atMost(WAIT).untilAsserted(() -> assertThat(cacheState(informer)).isEqualTo(serverState("resume")));
      await().atMost(WAIT).until(informer::isWatching);
      long listsAfter = informerLists("resume");
      assertThat(listsAfter).as("a resumable watch needs no relist: %s", CLUSTER.cluster().requestLog()
          .entries(r -> r.namespace().equals("resume")).stream().map(r -> r.time() + " " + r.verb()).toList())
          .isEqualTo(listsBefore);
    } finally {
      informer.stop();
    }
  }

  @Test
  void anExpiredVersionRelistsAndDeletesMissedMeanwhileArriveAsTombstones() {
    namespace("expired");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("expired").resource(pod("doomed")).create();
    client.pods().inNamespace("expired").resource(pod("kept")).create();
    SharedIndexInformer<Pod> informer = informer("expired");
    List<String> tombstones = new CopyOnWriteArrayList<>();
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onDelete(Pod obj, boolean finalStateUnknown) {
        if (finalStateUnknown) {
          tombstones.add(obj.getMetadata().getName());
        }
      }
    });
    informer.start();
    try {
      await().atMost(WAIT).until(() -> informer.hasSynced() && informer.isWatching());
      // Delete and compact while the watch is down, so that resuming is impossible.
      CLUSTER.cluster().faults().failNext("watch", "pods", 3, 503);
      CLUSTER.cluster().faults().dropAllWatches();
      client.pods().inNamespace("expired").withName("doomed").withGracePeriod(0).delete();
      CLUSTER.cluster().compactHistory();
      await().atMost(WAIT).untilAsserted(() -> assertThat(tombstones).containsExactly("doomed"));
      assertThat(cacheState(informer)).containsOnlyKeys("kept");
      // The test itself never lists this namespace: every list is the informer's, the initial one and the relist.
      assertThat(CLUSTER.cluster().requestLog().entries(r -> r.verb().equals("list")
          && r.namespace().equals("expired"))).hasSizeGreaterThanOrEqualTo(2);
    } finally {
      CLUSTER.cluster().faults().clear();
      informer.stop();
    }
  }

  @Test
  void bookmarksAdvanceTheLastSyncedVersionPastChangesElsewhere() {
    namespace("quiet");
    namespace("busy");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("quiet").resource(pod("only")).create();
    SharedIndexInformer<Pod> informer = informer("quiet");
    informer.start();
    try {
      await().atMost(WAIT).until(informer::hasSynced);
      String busyRv = client.pods().inNamespace("busy").resource(pod("elsewhere")).create().getMetadata()
          .getResourceVersion();
      await().atMost(WAIT).until(() -> Long.parseLong(informer.lastSyncResourceVersion()) >= Long.parseLong(busyRv));
      assertThat(cacheState(informer)).containsOnlyKeys("only");
    } finally {
      informer.stop();
    }
  }

  @Test
  void aLateHandlerGetsTheCurrentContentsAsInitialAdds() {
    namespace("late");
    KubernetesClient client = CLUSTER.client();
    client.pods().inNamespace("late").resource(pod("a")).create();
    client.pods().inNamespace("late").resource(pod("b")).create();
    SharedIndexInformer<Pod> informer = informer("late");
    informer.start();
    try {
      await().atMost(WAIT).until(informer::hasSynced);
      Set<String> initial = ConcurrentHashMap.newKeySet();
      ResourceEventHandlerRegistration registration = informer.addEventHandler(new ResourceEventHandler<>() {
        @Override
        public void onAdd(Pod obj, boolean isInInitialList) {
          if (isInInitialList) {
            initial.add(obj.getMetadata().getName());
          }
        }
      });
      await().atMost(WAIT).until(registration::hasSynced);
      assertThat(initial).containsExactlyInAnyOrder("a", "b");
    } finally {
      informer.stop();
    }
  }
}
