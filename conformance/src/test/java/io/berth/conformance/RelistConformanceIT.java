package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.informer.Fabric8ListerWatcher;
import io.berth.informer.ListPage;
import io.berth.informer.ListRequest;
import io.berth.informer.ListerWatcher;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedIndexInformer;
import io.berth.informer.WatchEvent;
import io.berth.informer.WatchRequest;
import io.berth.informer.WatchStream;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.PodTemplateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 410 Gone against the real server: Berth's informer, synced at a resourceVersion that etcd has since compacted,
 * watches from it, is refused with the real server's 410 (as an HTTP status or as a watch ERROR event, whichever the
 * real server sends), relists with a consistent read ({@code resourceVersion=""}) and converges, reporting what
 * changed while it was behind (adds, and deletions of objects gone from the new list), then watches on.
 *
 * <p>PodTemplates, because {@code conformance/up} turns the watch cache off for them
 * ({@code --watch-cache-sizes=podtemplates#0}): their watches go to etcd itself, which refuses a revision older than
 * its compaction, as any watch meets once the watch cache's window has moved past its resourceVersion.
 */
@ExtendWith(ControlPlaneExtension.class)
class RelistConformanceIT {

  private static final String NS = "berth-relist";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static ControlPlane plane;
  private static KubernetesClient admin;

  @BeforeAll
  static void namespace(ControlPlane controlPlane) throws Exception {
    plane = controlPlane;
    admin = plane.admin();
    Namespaces.create(admin, NS);
  }

  @AfterAll
  static void cleanUp() {
    if (admin != null) {
      Namespaces.delete(admin, NS);
      admin.close();
    }
  }

  private static void create(String name) {
    admin.resources(PodTemplate.class).inNamespace(NS).resource(new PodTemplateBuilder().withNewMetadata().withName(name)
        .addToLabels("test", "relist").endMetadata().withNewTemplate().withNewSpec().addNewContainer()
        .withName("main").withImage("registry.k8s.io/pause:3.10").endContainer().endSpec().endTemplate().build())
        .create();
  }

  /**
   * The real lister-watcher, but its first list answers with a page taken earlier (the informer's state when it
   * last synced, before it fell behind); records every request and every 410 the real server sent.
   */
  static final class BehindListerWatcher implements ListerWatcher<PodTemplate> {
    private final ListerWatcher<PodTemplate> real;
    private final ListPage<PodTemplate> earlier;
    private final AtomicBoolean first = new AtomicBoolean(true);
    final List<String> listResourceVersions = new CopyOnWriteArrayList<>();
    final List<String> watchResourceVersions = new CopyOnWriteArrayList<>();
    final List<KubernetesClientException> gone = new CopyOnWriteArrayList<>();

    BehindListerWatcher(ListerWatcher<PodTemplate> real, ListPage<PodTemplate> earlier) {
      this.real = real;
      this.earlier = earlier;
    }

    @Override
    public ListPage<PodTemplate> list(ListRequest request) {
      listResourceVersions.add(request.resourceVersion());
      return first.getAndSet(false) ? earlier : real.list(request);
    }

    @Override
    public WatchStream<PodTemplate> watch(WatchRequest request) {
      watchResourceVersions.add(request.resourceVersion());
      WatchStream<PodTemplate> stream;
      try {
        stream = real.watch(request);
      } catch (KubernetesClientException e) {
        recordIfGone(e);
        throw e;
      }
      return new WatchStream<>() {
        @Override
        public WatchEvent<PodTemplate> next() throws InterruptedException {
          WatchEvent<PodTemplate> event = stream.next();
          if (event.type() == WatchEvent.Type.ERROR) {
            event.cause().ifPresent(BehindListerWatcher.this::recordIfGone);
          }
          return event;
        }

        @Override
        public boolean isOpen() {
          return stream.isOpen();
        }

        @Override
        public void close() {
          stream.close();
        }
      };
    }

    private void recordIfGone(Throwable error) {
      if (error instanceof KubernetesClientException e && e.getCode() == 410) {
        gone.add(e);
      }
    }
  }

  @Test
  void aWatchFromACompactedResourceVersionIsRefusedWith410AndTheInformerRelists() throws Exception {
    for (int i = 0; i < 5; i++) {
      create("pt-" + i);
    }
    Fabric8ListerWatcher<PodTemplate> real = Fabric8ListerWatcher.of(admin, PodTemplate.class).inNamespace(NS)
        .withLabelSelector("test=relist");
    // What an informer synced now would hold; then it falls behind while objects come and go.
    ListPage<PodTemplate> earlier = real.list(new ListRequest("", 0, ""));
    assertThat(earlier.items()).hasSize(5);
    for (int i = 5; i < 10; i++) {
      create("pt-" + i);
    }
    for (int i = 0; i < 3; i++) {
      admin.resources(PodTemplate.class).inNamespace(NS).withName("pt-" + i).delete();
    }
    Etcd etcd = new Etcd(plane.etcdUrl());
    long compacted = etcd.compact(etcd.revision());
    assertThat(compacted).isGreaterThan(Long.parseLong(earlier.resourceVersion()));

    BehindListerWatcher lw = new BehindListerWatcher(real, earlier);
    SharedIndexInformer<PodTemplate> informer = SharedIndexInformer.create(lw, Duration.ZERO);
    Set<String> added = ConcurrentHashMap.newKeySet();
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(PodTemplate obj, boolean isInInitialList) {
        added.add(obj.getMetadata().getName());
      }

      @Override
      public void onDelete(PodTemplate obj, boolean finalStateUnknown) {
        deleted.add(obj.getMetadata().getName());
      }
    });
    informer.start();
    try {
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(lw.gone).as("the real server's 410 for a watch from %s (compacted at %d)",
            earlier.resourceVersion(), compacted).isNotEmpty();
        assertThat(cacheState(informer)).isEqualTo(serverState());
      });
      assertThat(lw.watchResourceVersions.get(0)).isEqualTo(earlier.resourceVersion());
      // first list "0" (any cached state), then, the resourceVersion being gone, a consistent read
      assertThat(lw.listResourceVersions).hasSizeGreaterThanOrEqualTo(2);
      assertThat(lw.listResourceVersions.get(0)).isEqualTo("0");
      assertThat(lw.listResourceVersions.get(1)).isEqualTo("");
      assertThat(cacheState(informer)).containsOnlyKeys("pt-3", "pt-4", "pt-5", "pt-6", "pt-7", "pt-8", "pt-9");
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(added).containsExactlyInAnyOrder("pt-0", "pt-1", "pt-2", "pt-3", "pt-4", "pt-5", "pt-6", "pt-7",
            "pt-8", "pt-9");
        assertThat(deleted).containsExactlyInAnyOrder("pt-0", "pt-1", "pt-2");
      });

      // and it watches on from the relist's resourceVersion, newer than the compaction
      create("pt-10");
      admin.resources(PodTemplate.class).inNamespace(NS).withName("pt-3").delete();
      await().atMost(WAIT).untilAsserted(() -> assertThat(cacheState(informer)).isEqualTo(serverState())
          .containsKey("pt-10").doesNotContainKey("pt-3"));
      String last = lw.watchResourceVersions.get(lw.watchResourceVersions.size() - 1);
      assertThat(Long.parseLong(last)).isGreaterThanOrEqualTo(compacted);
    } finally {
      informer.stop();
    }
  }

  private static Map<String, String> serverState() {
    return admin.resources(PodTemplate.class).inNamespace(NS).withLabelSelector("test=relist").list().getItems().stream()
        .collect(Collectors.toMap(t -> t.getMetadata().getName(), t -> t.getMetadata().getResourceVersion()));
  }

  private static Map<String, String> cacheState(SharedIndexInformer<PodTemplate> informer) {
    return informer.getStore().list().stream()
        .collect(Collectors.toMap(t -> t.getMetadata().getName(), t -> t.getMetadata().getResourceVersion()));
  }
}
