package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.informer.Fabric8ListerWatcher;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Berth's informer against the real kube-apiserver (its watch cache, its resourceVersions, its bookmarks and its
 * list paging): the cache converges on the server's state under concurrent writers, every object is added once, and
 * deletions arrive; a label-selected informer sees exactly its objects as labels change under it.
 */
@ExtendWith(ControlPlaneExtension.class)
class InformerConformanceIT {

  private static final String NS = "berth-informer";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static KubernetesClient admin;

  @BeforeAll
  static void namespace(ControlPlane plane) throws Exception {
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

  private static ConfigMap configMap(String name, String group) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).addToLabels("group", group).endMetadata()
        .addToData("v", "0").build();
  }

  private static Map<String, String> serverState(String labelSelector) {
    return admin.configMaps().inNamespace(NS).withLabelSelector(labelSelector).list().getItems().stream()
        .collect(Collectors.toMap(c -> c.getMetadata().getName(), c -> c.getMetadata().getResourceVersion()));
  }

  private static Map<String, String> cacheState(SharedIndexInformer<ConfigMap> informer) {
    return informer.getStore().list().stream()
        .collect(Collectors.toMap(c -> c.getMetadata().getName(), c -> c.getMetadata().getResourceVersion()));
  }

  @Test
  void theCacheConvergesOnTheRealServerUnderConcurrentWriters() throws Exception {
    for (int i = 0; i < 600; i++) {
      admin.configMaps().inNamespace(NS).resource(configMap("pre-" + i, "converge")).create();
    }
    // Selected by label: the namespace also holds kube-controller-manager's kube-root-ca.crt and the other test's.
    SharedIndexInformer<ConfigMap> informer = SharedIndexInformer.create(
        Fabric8ListerWatcher.of(admin, ConfigMap.class).inNamespace(NS).withLabelSelector("group=converge"),
        Duration.ZERO);
    Set<String> added = ConcurrentHashMap.newKeySet();
    List<String> duplicateAdds = java.util.Collections.synchronizedList(new ArrayList<>());
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(ConfigMap obj, boolean isInInitialList) {
        if (!added.add(obj.getMetadata().getName())) {
          duplicateAdds.add(obj.getMetadata().getName());
        }
      }

      @Override
      public void onDelete(ConfigMap obj, boolean finalStateUnknown) {
        deleted.add(obj.getMetadata().getName());
      }
    });
    informer.start();
    try {
      await().atMost(WAIT).until(informer::hasSynced);
      // Handlers are called on their own thread: the initial adds arrive shortly after the sync.
      await().atMost(WAIT).untilAsserted(() -> assertThat(added).as("the initial list, over more than one page")
          .hasSize(600));
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int id = t;
        writers.add(pool.submit(() -> {
          for (int i = 0; i < 60; i++) {
            String name = "w" + id + "-" + i;
            admin.configMaps().inNamespace(NS).resource(configMap(name, "converge")).create();
            if (i % 3 == 0) {
              admin.configMaps().inNamespace(NS).withName(name).edit(c -> {
                c.getData().put("v", "1");
                return c;
              });
            }
            if (i % 2 == 0) {
              admin.configMaps().inNamespace(NS).withName("pre-" + (id * 100 + i)).delete();
            }
          }
          return null;
        }));
      }
      for (Future<?> writer : writers) {
        writer.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      await().atMost(WAIT).untilAsserted(() -> assertThat(cacheState(informer))
          .isEqualTo(serverState("group=converge")));
      assertThat(added).hasSize(600 + 180);
      assertThat(duplicateAdds).isEmpty();
      assertThat(deleted).hasSize(90).allSatisfy(name -> assertThat(name).startsWith("pre-"));
    } finally {
      informer.stop();
    }
  }

  @Test
  void aLabelSelectedInformerSeesObjectsEnterAndLeaveItsSelection() {
    admin.configMaps().inNamespace(NS).resource(configMap("in", "selected")).create();
    admin.configMaps().inNamespace(NS).resource(configMap("out", "other")).create();
    SharedIndexInformer<ConfigMap> informer = SharedIndexInformer.create(
        Fabric8ListerWatcher.of(admin, ConfigMap.class).inNamespace(NS).withLabelSelector("group=selected"),
        Duration.ZERO);
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onDelete(ConfigMap obj, boolean finalStateUnknown) {
        deleted.add(obj.getMetadata().getName());
      }
    });
    informer.start();
    try {
      await().atMost(WAIT).until(informer::hasSynced);
      assertThat(cacheState(informer)).containsOnlyKeys("in");
      admin.configMaps().inNamespace(NS).withName("out").edit(c -> {
        c.getMetadata().getLabels().put("group", "selected");
        return c;
      });
      admin.configMaps().inNamespace(NS).withName("in").edit(c -> {
        c.getMetadata().getLabels().put("group", "other");
        return c;
      });
      // The real watch reports an object leaving the selection as DELETED (and one entering as ADDED).
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(cacheState(informer)).isEqualTo(serverState("group=selected"));
        assertThat(cacheState(informer)).containsOnlyKeys("out");
        assertThat(deleted).containsExactly("in");
      });
    } finally {
      informer.stop();
    }
  }
}
