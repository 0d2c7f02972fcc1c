package io.berth.bench.embedded;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.JulBridge;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ResourceTypes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Harness main for bulk loading: on a fresh embedded cluster with a fabric8 watch on nodes open over HTTP, times
 * {@code EmbeddedCluster.nodes().addAll} of {@code nodes} Ready nodes (default 5,000) until the call returns and
 * until the watcher has received every ADDED event (the nodes are then ready for any informer), then
 * {@code operations().createAll} of {@code pods} pods (default 100,000, in batches of 5,000). Logs wall time and
 * the calling thread's CPU time.
 *
 * <p>Run: {@code java -Xmx3g -cp benchmarks/target/benchmarks.jar io.berth.bench.embedded.BulkLoadRun [nodes [pods]]}.
 * Used once, from its main thread.
 */
public final class BulkLoadRun {

  private static final Logger LOG = LoggerFactory.getLogger(BulkLoadRun.class);
  private static final int POD_BATCH = 5_000;

  private BulkLoadRun() {
  }

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    JulBridge.install();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start(); KubernetesClient client = cluster.newClient()) {
      List<NodeSpec> specs = new ArrayList<>(nodes);
      for (int i = 0; i < nodes; i++) {
        specs.add(NodeSpec.node(String.format("node-%05d", i)).withZone("zone-" + (i % 3)).withCpu("32")
            .withMemory("128Gi"));
      }
      CountDownLatch seen = new CountDownLatch(nodes);
      try (Watch watch = client.nodes().watch(new Watcher<Node>() {
        @Override
        public void eventReceived(Action action, Node node) {
          if (action == Action.ADDED) {
            seen.countDown();
          }
        }

        @Override
        public void onClose(WatcherException cause) {
        }
      })) {
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        cluster.nodes().addAll(specs);
        long stored = System.nanoTime() - t0;
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        if (!seen.await(600, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the watcher saw " + (nodes - seen.getCount()) + " of " + nodes + " nodes");
        }
        long watched = System.nanoTime() - t0;
        LOG.info("{} nodes: addAll returned after {} ms ({} ms CPU of the calling thread); a fabric8 watch over HTTP "
            + "had every ADDED event after {} ms", nodes, stored / 1_000_000, cpu / 1_000_000, watched / 1_000_000);
      }
      ObjectNode ns = Json.object();
      ns.putObject("metadata").put("name", "bulk");
      cluster.operations().create(ResourceTypes.NAMESPACES, "", ns);
      long cpu0 = threads.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      for (int from = 0; from < pods; from += POD_BATCH) {
        List<ObjectNode> batch = new ArrayList<>(POD_BATCH);
        for (int i = from; i < Math.min(pods, from + POD_BATCH); i++) {
          batch.add(BenchPods.tree(BenchPods.name("pod", i)));
        }
        cluster.operations().createAll(ResourceTypes.PODS, "bulk", batch);
      }
      long took = System.nanoTime() - t0;
      LOG.info("{} pods: createAll in batches of {} took {} ms ({} ms CPU of the calling thread), {} pods/s", pods,
          POD_BATCH, took / 1_000_000, (threads.getCurrentThreadCpuTime() - cpu0) / 1_000_000,
          String.format("%.0f", pods / (took / 1e9)));
    }
  }
}
