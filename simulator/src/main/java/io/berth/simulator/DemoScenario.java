package io.berth.simulator;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.informer.Lister;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo the simulator runs on a {@link SimulatorStack}: an embedded cluster with simulated nodes across zones,
 * Berth's ReplicaSet and Deployment controllers, Berth's scheduler with the default profile, informers on pods and
 * nodes that log what they see, and a script: a Deployment rolled out and updated, a cordoned node and a graceful
 * deletion, a scale-up while every watch is dropped (the informers resume from their resourceVersions), and an
 * expired resourceVersion (the informers relist and learn of a missed delete as a tombstone). Ends with the pod
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
  private final SimulatorStack stack = new SimulatorStack();
  // set by run(), from the stack
  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private Consumer<RunningCluster> onStarted = r -> { };
  private Consumer<String> onStep = s -> { };

  DemoScenario(Options options) {
    this.options = options;
  }

  /**
   * Hands the running parts to {@code started} once the daemons run (before the first step), and each step's line
   * to {@code steps}; the simulator's dashboard uses both.
   */
  DemoScenario observe(Consumer<RunningCluster> started, Consumer<String> steps) {
    this.onStarted = started;
    this.onStep = steps;
    return this;
  }

  /** The running cluster (after {@link #run()} started it). */
  EmbeddedCluster cluster() {
    return cluster;
  }

  Summary run() throws InterruptedException {
    step("starting the embedded API server with %d simulated nodes in %d zones, informers on pods and nodes"
        + " (our Reflector, DeltaFIFO and Indexer over fabric8 list/watch), Berth's scheduler (default profile) and"
        + " its ReplicaSet and Deployment controllers on the same informers", options.nodes(), options.zones());
    InformerLog<Pod> podLog = new InformerLog<>("pod", DemoScenario::describe);
    RunningCluster running = stack.start(options.port(), options.kubeconfig(), Optional.empty(),
        (started, k, factory) -> {
          for (int i = 0; i < options.nodes(); i++) {
            started.nodes().add(NodeSpec.node("node-" + i).withZone("zone-" + (char) ('a' + i % options.zones()))
                .withRegion("region-1"));
          }
          k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
              .create();
          factory.informerFor(Pod.class, NS).addEventHandler(podLog);
          factory.informerFor(Node.class).addEventHandler(new InformerLog<>("node", DemoScenario::describe));
        });
    cluster = running.cluster();
    client = running.client();
    Lister<Pod> pods = running.informers().lister(Pod.class, NS);
    onStarted.accept(running);
    int replicas = options.pods();

    step("creating Deployment web with %d replicas: a ReplicaSet, its pods, spread over zones by Berth's "
        + "scheduler, run by the simulated kubelet", replicas);
    client.apps().deployments().inNamespace(NS).resource(deployment(replicas, "nginx:1.27")).create();
    await("web available", () -> rolledOut(replicas) && running(pods) == replicas);

    step("rolling update of web to nginx:1.28 (maxSurge 25%%, maxUnavailable 25%%)");
    client.apps().deployments().inNamespace(NS).withName("web").edit(d -> new DeploymentBuilder(d).editSpec()
        .editTemplate().editSpec().editFirstContainer().withImage("nginx:1.28").endContainer().endSpec()
        .endTemplate().endSpec().build());
    await("web rolled out", () -> rolledOut(replicas) && pods.list(NS).size() == replicas
        && pods.list(NS).stream().allMatch(p -> "nginx:1.28".equals(p.getSpec().getContainers().get(0).getImage())));

    step("cordoning node-0 and deleting one pod gracefully: Terminating, gone once its kubelet stops it, replaced");
    cluster.nodes().cordon("node-0");
    String victim = pods.list(NS).get(0).getMetadata().getName();
    client.pods().inNamespace(NS).withName(victim).delete();
    await(victim + " gone from the cache", () -> pods.get(NS, victim).isEmpty());
    await("a replacement running", () -> running(pods) == replicas);

    step("dropping every watch while web is scaled to %d; the informers resume from their resourceVersions",
        replicas + 2);
    cluster.faults().dropAllWatches();
    client.apps().deployments().inNamespace(NS).withName("web").scale(replicas + 2);
    await("web scaled", () -> rolledOut(replicas + 2) && running(pods) == replicas + 2);

    step("expiring the informers' resourceVersions (history compacted) while a pod is deleted: relist + tombstone");
    String gone = pods.list(NS).get(0).getMetadata().getName();
    cluster.faults().failNext("watch", "pods", 2, 503);
    cluster.faults().dropAllWatches();
    client.pods().inNamespace(NS).withName(gone).withGracePeriod(0L).delete();
    cluster.compactHistory();
    await(gone + " gone from the cache", () -> pods.get(NS, gone).isEmpty());
    await("every pod running again", () -> running(pods) == replicas + 2 && rolledOut(replicas + 2));

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

  /** The Deployment's status says every replica is updated and available for its current generation. */
  private boolean rolledOut(int replicas) {
    Deployment d = client.apps().deployments().inNamespace(NS).withName("web").get();
    if (d == null || d.getStatus() == null || d.getStatus().getObservedGeneration() == null) {
      return false;
    }
    return d.getStatus().getObservedGeneration() >= d.getMetadata().getGeneration()
        && Integer.valueOf(replicas).equals(d.getStatus().getUpdatedReplicas())
        && Integer.valueOf(replicas).equals(d.getStatus().getAvailableReplicas())
        && Integer.valueOf(replicas).equals(d.getStatus().getReplicas());
  }

  private static Deployment deployment(int replicas, String image) {
    return new DeploymentBuilder().withNewMetadata().withName("web").endMetadata().withNewSpec()
        .withReplicas(replicas).withNewSelector().addToMatchLabels("app", "web").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata().withNewSpec()
        .addNewContainer().withName("web").withImage(image).withNewResources()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("64Mi")).endResources()
        .endContainer().endSpec().endTemplate().endSpec().build();
  }

  private static long running(Lister<Pod> pods) {
    return pods.list(NS).stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
        .count();
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

  private void step(String format, Object... args) {
    String line = String.format(format, args);
    LOG.info("== " + line);
    onStep.accept(line);
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
    stack.close();
  }
}
