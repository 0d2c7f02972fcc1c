package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ClientVertxTest {

  @Test
  void everyCallerGetsTheOneFactoryUntilClosed() throws Exception {
    ClientVertx vertx = new ClientVertx(2);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpClient.Factory>> factories = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        factories.add(pool.submit(() -> {
          go.await();
          return vertx.factory();
        }));
      }
      go.countDown();
      HttpClient.Factory first = factories.get(0).get();
      for (Future<HttpClient.Factory> f : factories) {
        assertThat(f.get()).isSameAs(first);
      }
    } finally {
      pool.shutdownNow();
      vertx.close();
    }
    assertThatThrownBy(vertx::factory).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    vertx.close(); // idempotent
  }

  @Test
  void aNonPositiveEventLoopCountIsRefused() {
    assertThatThrownBy(() -> new ClientVertx(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("event loops");
  }
}
