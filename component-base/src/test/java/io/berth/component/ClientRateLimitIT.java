package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.informer.SharedIndexInformer;
import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client-side rate limiter installed in a real fabric8 client against the embedded API server. Time is a fake
 * whose sleeps advance it, so the test counts the waits the bucket imposed instead of measuring wall time.
 */
class ClientRateLimitIT {

  private static final long SECOND = 1_000_000_000L;

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static void namespace(String name) {
    CLUSTER.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata()
        .build()).create();
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("k", "v").build();
  }

  private static long requestsTo(String namespace) {
    return CLUSTER.cluster().requestLog().entries(r -> r.namespace().equals(namespace)).size();
  }

  @Test
  void nRequestsAtQpsQWaitOncePerRequestBeyondTheBurst() {
    namespace("limited");
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(5, 3, ticker);
    try (KubernetesClient client = KubeClients.create(CLUSTER.cluster().clientConfig(), Optional.of(limiter))) {
      int requests = 12;
      for (int i = 0; i < requests; i++) {
        client.configMaps().inNamespace("limited").resource(configMap("cm-" + i)).create();
      }
      assertThat(requestsTo("limited")).isEqualTo(requests);
      assertThat(limiter.acquired()).isEqualTo(requests);
      assertThat(limiter.waits()).isEqualTo(requests - 3);
      assertThat(ticker.sleeps()).hasSize(requests - 3).containsOnly(SECOND / 5);
      assertThat(limiter.waitedNanos()).isEqualTo((requests - 3) * SECOND / 5);
    }
  }

  @Test
  void aWatchTakesOneTokenToOpenAndNoneWhileItStreams() throws Exception {
    namespace("watched");
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(1, 1, ticker);
    try (KubernetesClient client = KubeClients.create(CLUSTER.cluster().clientConfig(), Optional.of(limiter))) {
      AtomicInteger events = new AtomicInteger();
      try (Watch watch = client.configMaps().inNamespace("watched").watch(new Watcher<>() {
        @Override
        public void eventReceived(Action action, ConfigMap resource) {
          events.incrementAndGet();
        }

        @Override
        public void onClose(WatcherException cause) {
        }
      })) {
        assertThat(limiter.acquired()).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
          CLUSTER.client().configMaps().inNamespace("watched").resource(configMap("w-" + i)).create();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> events.get() == 5);
        assertThat(limiter.acquired()).isEqualTo(1);
        assertThat(limiter.waits()).isZero();
      }
    }
  }

  @Test
  void informersOfTheLimitedClientAreLimitedToo() throws Exception {
    namespace("informed");
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter limiter = new TokenBucketRateLimiter(100, 100, ticker);
    try (KubernetesClient client = KubeClients.create(CLUSTER.cluster().clientConfig(), Optional.of(limiter))) {
      SharedInformerFactory factory = new SharedInformerFactory(client);
      SharedIndexInformer<ConfigMap> informer = factory.informerFor(ConfigMap.class, "informed");
      factory.start();
      try {
        assertThat(factory.waitForCacheSync(Duration.ofSeconds(10))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(informer::isWatching);
        // At least the list and the watch went through the bucket (the derived informer client shares it).
        assertThat(limiter.acquired()).isGreaterThanOrEqualTo(2);
      } finally {
        factory.shutdown();
      }
    }
  }

  @Test
  void settingsWithANegativeQpsBuildAnUnlimitedClient() {
    ClientSettings unlimited = new ClientSettings(Optional.empty(), -1, 0, "test");
    assertThat(unlimited.rateLimited()).isFalse();
    try (KubernetesClient client = KubeClients.create(CLUSTER.cluster().clientConfig(), unlimited)) {
      assertThat(client.namespaces().withName("default").get()).isNotNull();
      assertThat(client.getConfiguration().getUserAgent()).isEqualTo("test");
    }
  }
}
