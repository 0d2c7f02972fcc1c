package io.berth.bench.embedded;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The baseline: the plain fabric8 {@link KubernetesMockServer} in CRUD mode (a {@link KubernetesCrudDispatcher},
 * plain HTTP like the embedded server), driven by the same {@link HttpOps} calls through a client configured as
 * {@code EmbeddedCluster.clientConfig()} configures its own. One thread creates pods in namespace {@code bench} in
 * chunks of 1,000 (scaled) up to {@code pods}, stopping early once {@code budgetSeconds} have passed; then, at the
 * size reached, it times random gets and whole lists (fabric8 and raw bytes). Used once, from one thread.
 */
final class MockCrudScenario {

  private final int pods;
  private final int chunk;
  private final long budgetNanos;
  private final ResultTable table = new ResultTable();
  private final List<HttpOps.Timed> curve = new ArrayList<>();
  private int reached;

  MockCrudScenario(int pods, int chunk, long budgetSeconds) {
    this.pods = pods;
    this.chunk = chunk;
    this.budgetNanos = budgetSeconds * 1_000_000_000L;
  }

  ResultTable table() {
    return table;
  }

  /** The create samples, one entry per chunk. */
  List<HttpOps.Timed> curve() {
    return curve;
  }

  /** How many pods the mock held when the create phase stopped. */
  int reached() {
    return reached;
  }

  void run() {
    KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init();
    Config config = new ConfigBuilder(Config.empty()).withMasterUrl(server.url("/")).withNamespace("default")
        .withRequestRetryBackoffLimit(0).withConnectionTimeout(10_000).withRequestTimeout(120_000).build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      List<String> names = HttpOps.names("pod", 0, pods);
      Latencies all = new Latencies();
      long wall = 0;
      long start = System.nanoTime();
      for (int from = 0; from < pods && System.nanoTime() - start < budgetNanos; from += chunk) {
        HttpOps.Timed part = HttpOps.create(client, "bench", names.subList(from, Math.min(pods, from + chunk)), 1);
        curve.add(part);
        all.merge(part.latencies());
        wall += part.wallNanos();
        reached = Math.min(pods, from + chunk);
      }
      table.add(String.format("create, 1 thread, store 0 → %,d pods", reached), new HttpOps.Timed(all, wall));
      List<String> present = names.subList(0, reached);
      String at = String.format(" at %,d pods", reached);
      table.add("get, 1 thread" + at, HttpOps.get(client, "bench", present, Math.max(1, chunk / 2), reached));
      table.add(String.format("list %,d pods (fabric8 PodList)", reached) + at,
          HttpOps.list(client, "bench", 3, reached));
      table.add(String.format("list %,d pods (raw bytes, JDK client)", reached) + at,
          HttpOps.listRaw(server.url("/"), "bench", 3));
    } finally {
      server.destroy();
    }
  }
}
