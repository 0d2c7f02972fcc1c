package io.berth.simulator;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.informer.Lister;
import io.berth.informer.SharedIndexInformer;
import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo the simulator runs: an embedded cluster with simulated nodes across zones, informers on pods and nodes
 * that log what they see, a stand-in binder, and a script that exercises what a daemon must survive: pods starting,
 * a cordoned node, graceful deletion, every watch dropped (the informer resumes from its resourceVersion), and an
 * expired resourceVersion (the informer relists and learns of a missed delete as a tombstone). Ends with the
 * informer's cache compared to the server.
 *
 * <p>Not thread-safe: run once, from one thread.
 */
final class DemoScenario implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.berth.simulator.demo");
  private static final String NS = "demo";
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** What the demo ended with; immutable. */
  record Summary(int serverPods, int cachedPods, boolean inSync, long podAdds, long podDeletes, long tombstones,
      long runningPods) {
  }

  /** Options of the demo; immutable. */
  record Options(int port, Path kubeconfig, int nodes, int zones, int pods) {
  }

  private final Options options;
  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private SharedInformerFactory informers;
  private DemoBinder binder;

  DemoScenario(Options options) {
    this.options = options;
  }

  /** The running cluster (after {@link #run()} started it). */
  EmbeddedCluster cluster() {
    return cluster;
  }

  Summary run() throws InterruptedException {
    step("starting the embedded API server with %d simulated nodes in %d zones", options.nodes(), options.zones());
    cluster = EmbeddedCluster.builder().port(options.port()).kubeconfig(options.kubeconfig())
        .bookmarkInterval(Duration.ofSeconds(5))
        .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(300))
            .withTerminationDelay(Duration.ofMillis(500)))
        .start();
    for (int i = 0; i < options.nodes(); i++) {
      cluster.nodes().add(NodeSpec.node("node-" + i).withZone("zone-" + (char) ('a' + i % options.zones()))
          .withRegion("region-1"));
    }
    client = cluster.newClient();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();

    step("starting informers on pods and nodes (our Reflector, DeltaFIFO and Indexer over fabric8 list/watch)");
    informers = new SharedInformerFactory(client);
    SharedIndexInformer<Pod> podInformer = informers.informerFor(Pod.class, NS);
    SharedIndexInformer<Node> nodeInformer = informers.informerFor(Node.class);
    InformerLog<Pod> podLog = new InformerLog<>("pod", DemoScenario::describe);
    podInformer.addEventHandler(podLog);
    nodeInformer.addEventHandler(new InformerLog<>("node", DemoScenario::describe));
    Lister<Pod> pods = informers.lister(Pod.class, NS);
    Lister<Node> nodes = informers.lister(Node.class);
    binder = new DemoBinder(client, pods, nodes);
    podInformer.addEventHandler(binder);
    informers.start();
    if (!informers.waitForCacheSync(WAIT)) {
      throw new IllegalStateException("informers did not sync within " + WAIT);
    }

    step("creating %d pods; the stand-in binder places them round robin, the simulated kubelet runs them",
        options.pods());
    for (int i = 0; i < options.pods(); i++) {
      client.pods().inNamespace(NS).resource(pod("web-" + i)).create();
    }
    await("every pod running", () -> running(pods) == options.pods());

    step("cordoning node-0 and deleting web-0 gracefully (Terminating, then gone once the kubelet stops it)");
    cluster.nodes().cordon("node-0");
    client.pods().inNamespace(NS).withName("web-0").delete();
    await("web-0 gone from the cache", () -> pods.get(NS, "web-0").isEmpty());

    step("dropping every watch; two pods are created meanwhile; the informer resumes from its resourceVersion");
    cluster.faults().dropAllWatches();
    client.pods().inNamespace(NS).resource(pod("late-1")).create();
    client.pods().inNamespace(NS).resource(pod("late-2")).create();
    await("late pods seen", () -> pods.get(NS, "late-2").isPresent() && pods.get(NS, "late-1").isPresent());

    step("expiring the informer's resourceVersion (history compacted) while web-1 is deleted: relist + tombstone");
    cluster.faults().failNext("watch", "pods", 2, 503);
    cluster.faults().dropAllWatches();
    client.pods().inNamespace(NS).withName("web-1").withGracePeriod(0L).delete();
    cluster.compactHistory();
    await("web-1 gone from the cache", () -> pods.get(NS, "web-1").isEmpty());
    await("every pod running", () -> running(pods) == pods.list(NS).size());

    Set<String> server = client.pods().inNamespace(NS).list().getItems().stream()
        .map(p -> p.getMetadata().getName() + "@" + p.getMetadata().getResourceVersion())
        .collect(Collectors.toCollection(TreeSet::new));
    Set<String> cached = pods.list(NS).stream()
        .map(p -> p.getMetadata().getName() + "@" + p.getMetadata().getResourceVersion())
        .collect(Collectors.toCollection(TreeSet::new));
    Summary summary = new Summary(server.size(), cached.size(), server.equals(cached), podLog.adds.get(),
        podLog.deletes.get(), podLog.tombstones.get(), running(pods));
    step("done: server has %d pods, the informer cache %d (%s); pod events: %d adds, %d deletes (%d tombstones)",
        summary.serverPods(), summary.cachedPods(), summary.inSync() ? "in sync" : "OUT OF SYNC",
        summary.podAdds(), summary.podDeletes(), summary.tombstones());
    return summary;
  }

  private static long running(Lister<Pod> pods) {
    return pods.list(NS).stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
        .count();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "web").endMetadata()
        .withNewSpec().addNewContainer().withName("web").withImage("nginx:1.27").withNewResources()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("64Mi")).endResources()
        .endContainer().endSpec().build();
  }

  static String describe(Pod p) {
    String phase = p.getStatus() == null ? "?" : p.getStatus().getPhase();
    String node = p.getSpec().getNodeName() == null ? "unbound" : "on " + p.getSpec().getNodeName();
    return (p.getMetadata().getDeletionTimestamp() != null ? "Terminating" : phase) + " " + node;
  }

  static String describe(Node n) {
    boolean ready = n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions()
        .stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    String zone = n.getMetadata().getLabels().get("topology.kubernetes.io/zone");
    return (ready ? "Ready" : "NotReady") + (Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        ? ",SchedulingDisabled" : "") + " zone=" + zone;
  }

  private static void step(String format, Object... args) {
    LOG.info("== " + String.format(format, args));
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plus(WAIT);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    if (binder != null) {
      binder.close();
    }
    if (informers != null) {
      informers.shutdown();
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}
