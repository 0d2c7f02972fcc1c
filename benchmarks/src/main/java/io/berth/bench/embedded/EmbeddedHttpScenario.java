package io.berth.bench.embedded;

import io.berth.embedded.EmbeddedCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP scenario against a fresh embedded cluster, through one fabric8 client from
 * {@link EmbeddedCluster#newClient()}, in this order (sizes for {@code scale = 1}):
 * <ol>
 *   <li>1 thread creates 10,000 pods in namespace {@code bench} (in chunks of 1,000: the growth curve);</li>
 *   <li>at 10,000 pods: random gets, whole lists of {@code bench} (fabric8 and raw bytes), paginated walks with
 *       limit 500, 2,000 creates then 2,000 deletes in namespace {@code probe}, and 2,000 creates as raw JSON
 *       POSTs through the JDK client (deleted again, untimed);</li>
 *   <li>4 threads create 10,000 pods in {@code bench4} (10,000 → 20,000);</li>
 *   <li>1 thread binds the 10,000 pods of {@code bench}, 4 threads bind those of {@code bench4} (to 100 node
 *       names that have no Node object, so that the simulated kubelet leaves the pods alone and the figure is the
 *       API server's);</li>
 *   <li>4 threads create 30,000 pods in {@code fill} (20,000 → 50,000);</li>
 *   <li>at 50,000 pods: the same gets, creates, deletes and lists (of {@code bench}, 10,000 of the 50,000).</li>
 * </ol>
 * A {@code scale} below 1 shrinks every count (the warm-up). Used once, from one thread.
 */
final class EmbeddedHttpScenario {

  static final int NODES = 100;

  private final double scale;
  private final ResultTable table = new ResultTable();
  private final List<HttpOps.Timed> curve = new ArrayList<>();

  EmbeddedHttpScenario(double scale) {
    this.scale = scale;
  }

  ResultTable table() {
    return table;
  }

  /** The 1-thread create samples of the first pods, one entry per chunk of 1,000 (scaled). */
  List<HttpOps.Timed> curve() {
    return curve;
  }

  private int n(int count) {
    return Math.max(1, (int) Math.round(count * scale));
  }

  void run() {
    int nsPods = n(10_000);
    int chunk = n(1_000);
    int probe = n(2_000);
    int fill = n(30_000);
    int gets = n(5_000);
    int lists = scale < 1 ? 2 : 10;
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
        KubernetesClient client = cluster.newClient()) {
      for (String ns : List.of("bench", "bench4", "probe", "probe50", "fill")) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
            .create();
      }
      List<String> bench = HttpOps.names("pod", 0, nsPods);
      Latencies firstCreates = new Latencies();
      long wall = 0;
      for (int from = 0; from < nsPods; from += chunk) {
        HttpOps.Timed part = HttpOps.create(client, "bench", bench.subList(from, Math.min(nsPods, from + chunk)), 1);
        curve.add(part);
        firstCreates.merge(part.latencies());
        wall += part.wallNanos();
      }
      table.add(String.format("create, 1 thread, store 0 → %,d pods", nsPods), new HttpOps.Timed(firstCreates, wall));

      atSize(cluster, client, bench, nsPods, probe, gets, lists, "probe");

      List<String> bench4 = HttpOps.names("pod", 0, nsPods);
      table.add(String.format("create, 4 threads, store %,d → %,d pods", nsPods, 2 * nsPods),
          HttpOps.create(client, "bench4", bench4, 4));
      table.add(String.format("bind, 1 thread, %,d pods", nsPods),
          HttpOps.bind(client, "bench", bench, 1, i -> node(i)));
      table.add(String.format("bind, 4 threads, %,d pods", nsPods),
          HttpOps.bind(client, "bench4", bench4, 4, i -> node(i)));
      table.add(String.format("create, 4 threads, store %,d → %,d pods", 2 * nsPods, 2 * nsPods + fill),
          HttpOps.create(client, "fill", HttpOps.names("pod", 0, fill), 4));

      atSize(cluster, client, bench, 2 * nsPods + fill, probe, gets, lists, "probe50");
    }
  }

  private static String node(int index) {
    return String.format("bench-node-%03d", index % NODES);
  }

  /** Gets, lists of {@code bench}, then creates and deletes of {@code probe} pods, with {@code size} in store. */
  private void atSize(EmbeddedCluster cluster, KubernetesClient client, List<String> bench, int size, int probe,
      int gets, int lists, String probeNamespace) {
    String at = String.format(" at %,d pods", size);
    table.add("get, 1 thread" + at, HttpOps.get(client, "bench", bench, gets, size));
    table.add(String.format("list %,d pods (fabric8 PodList)", bench.size()) + at,
        HttpOps.list(client, "bench", lists, bench.size()));
    table.add(String.format("list %,d pods (raw bytes, JDK client)", bench.size()) + at,
        HttpOps.listRaw(cluster.url(), "bench", lists));
    table.add(String.format("list %,d pods in pages of 500, whole walk", bench.size()) + at,
        HttpOps.listPaged(client, "bench", 500, lists, bench.size()));
    List<String> probes = HttpOps.names("probe", 0, probe);
    table.add("create, 1 thread" + at, HttpOps.create(client, probeNamespace, probes, 1));
    table.add("delete, 1 thread" + at, HttpOps.delete(client, probeNamespace, probes));
    List<String> raw = HttpOps.names("raw", 0, probe);
    table.add("create, 1 thread, raw JSON POST (JDK client)" + at, HttpOps.createRaw(cluster.url(), probeNamespace, raw));
    HttpOps.delete(client, probeNamespace, raw);
  }
}
