package io.berth.bench.embedded;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.JulBridge;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Harness main for the heap cost of a stored pod: starts an embedded cluster with {@value #NODES} simulated nodes,
 * measures the heap in use after a full GC, creates {@code pods} pods (default 100,000) in process through
 * {@link ResourceOperations#create} (the full write path: validation, defaults, listeners), each bound to a node at
 * creation, waits until the simulated kubelet has made every one Running (so each pod has its status, and the watch
 * history holds the versions it replaced), and measures again. Logs bytes per pod (the difference over the pod
 * count, so the history's share is included) and the top of the class histogram
 * ({@code GC.class_histogram}, the same as {@code jcmd <pid> GC.class_histogram}).
 *
 * <p>Run: {@code java -Xmx3g -cp benchmarks/target/benchmarks.jar io.berth.bench.embedded.StoreMemoryRun [pods]}.
 * Used once, from its main thread.
 */
public final class StoreMemoryRun {

  private static final Logger LOG = LoggerFactory.getLogger(StoreMemoryRun.class);

  static final int NODES = 1_000;
  static final String NAMESPACE = "bench";
  private static final int HISTOGRAM_ROWS = 25;

  private StoreMemoryRun() {
  }

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    JulBridge.install();
    KubeletSettings kubelet = KubeletSettings.defaults().withStartupDelay(Duration.ZERO);
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().kubelet(kubelet).start()) {
      ResourceOperations ops = cluster.operations();
      ObjectStore store = cluster.store();
      ObjectNode namespace = Json.object();
      namespace.putObject("metadata").put("name", NAMESPACE);
      ops.create(ResourceTypes.NAMESPACES, "", namespace);
      for (int n = 0; n < NODES; n++) {
        cluster.nodes().add(NodeSpec.node(nodeName(n)).withCpu("16"));
      }
      // counted from the events (under the store's lock, while the tree is at hand): polling lists would hold the
      // read lock the kubelet's writes wait for
      LongAdder started = new LongAdder();
      store.addListener(e -> {
        if (e.object().type() == ResourceTypes.PODS && e.previous() != null
            && "Pending".equals(Json.text(e.previous().tree(), "status", "phase"))
            && !"Pending".equals(Json.text(e.object().tree(), "status", "phase"))) {
          started.increment();
        }
      });
      long before = usedHeapAfterGc();
      long start = System.nanoTime();
      for (int i = 0; i < pods; i++) {
        ObjectNode pod = BenchPods.tree(BenchPods.name("pod", i));
        Json.objectAt(pod, "spec").put("nodeName", nodeName(i % NODES));
        ops.create(ResourceTypes.PODS, NAMESPACE, pod);
      }
      long created = System.nanoTime() - start;
      while (started.sum() < pods) {
        Thread.sleep(500);
      }
      long settled = System.nanoTime() - start;
      long after = usedHeapAfterGc();
      LOG.info("{} pods created in {} s, all past Pending after {} s; store resourceVersion {}", pods,
          String.format("%.1f", created / 1e9), String.format("%.1f", settled / 1e9), store.resourceVersion());
      LOG.info("heap in use after a full GC: {} MB before the pods, {} MB after: {} bytes per stored pod "
              + "(history of the last 20,000 pod events included)", before / 1_000_000, after / 1_000_000,
          (after - before) / pods);
      for (String row : histogram()) {
        LOG.info("{}", row);
      }
      if (store.count(ResourceTypes.PODS) != pods) {
        throw new IllegalStateException("the store holds " + store.count(ResourceTypes.PODS) + " pods");
      }
    }
  }

  private static String nodeName(int n) {
    return String.format("node-%05d", n);
  }

  private static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /** The first rows of the live-object class histogram (forces a full GC, as jcmd does). */
  private static List<String> histogram() throws Exception {
    ObjectName dcmd = new ObjectName("com.sun.management:type=DiagnosticCommand");
    String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(dcmd, "gcClassHistogram",
        new Object[] {new String[0]}, new String[] {String[].class.getName()});
    String[] lines = text.split("\n");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < Math.min(lines.length, HISTOGRAM_ROWS + 2); i++) {
      out.add(lines[i]);
    }
    out.add(lines[lines.length - 1]);
    return out;
  }
}
