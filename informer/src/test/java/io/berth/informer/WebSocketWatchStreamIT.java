package io.berth.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The WebSocket watch against the embedded API server while 4 threads create pods: the event loop produces frames,
 * the test thread consumes them; every pod arrives once, in resourceVersion order.
 */
class WebSocketWatchStreamIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(EmbeddedCluster::builder);

  @Test
  void everyConcurrentCreateArrivesOnceInResourceVersionOrder() throws Exception {
    KubernetesClient client = CLUSTER.client();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("ws").endMetadata().build())
        .create();
    Fabric8ListerWatcher<Pod> lw = Fabric8ListerWatcher.of(client, Pod.class).inNamespace("ws");
    String from = lw.list(new ListRequest("", 0, "")).resourceVersion();
    int pods = 1000;
    try (WatchStream<Pod> stream = lw.watch(new WatchRequest(from, 300))) {
      ExecutorService creators = Executors.newFixedThreadPool(4);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t;
        futures.add(creators.submit(() -> {
          for (int i = first; i < pods; i += 4) {
            client.pods().inNamespace("ws").resource(new PodBuilder().withNewMetadata().withName("p-" + i)
                .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer()
                .endSpec().build()).create();
          }
        }));
      }
      Set<String> seen = new HashSet<>();
      long lastRv = Long.parseLong(from);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (seen.size() < pods && System.nanoTime() < deadline) {
        WatchEvent<Pod> event = stream.next();
        assertThat(event.type().isTerminal()).as("%s", event).isFalse();
        if (event.type() == WatchEvent.Type.BOOKMARK) {
          continue;
        }
        long rv = Long.parseLong(event.resourceVersion());
        assertThat(rv).isGreaterThan(lastRv);
        lastRv = rv;
        if (event.type() == WatchEvent.Type.ADDED) {
          assertThat(seen.add(event.object().orElseThrow().getMetadata().getName())).isTrue();
        }
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      creators.shutdown();
      assertThat(seen).hasSize(pods);
    }
  }
}
