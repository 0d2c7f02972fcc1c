package io.berth.bench.controller;

import io.berth.component.ClientSettings;
import io.berth.component.KubeClients;
import io.berth.controller.InProcessControllers;
import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.JulBridge;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.fault.RequestRecord;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoredObject;
import io.berth.embedded.server.WatchEvent;
import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller manager's throughput on the embedded cluster: time for a Deployment of N replicas to reach N
 * available pods from nothing, and for a rolling update of M replicas to finish, with pods bound in process the
 * moment they exist and run at once by the simulated kubelet (no scheduler in the way, no HTTP for binding).
 * Compared, at the same client QPS, with N raw pod creates from 16 threads; API calls per pod are counted from the
 * server's request log (everything in the namespace but the driver's one Deployment create).
 *
 * <p>Usage: {@code java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar
 * io.berth.bench.controller.DeploymentRolloutRun [replicas=5000] [rollingReplicas=1000] [qps=200]} (qps -1: no
 * client-side limit). Not thread-safe; run from main.
 */
public final class DeploymentRolloutRun {

  private static final Logger LOG = LoggerFactory.getLogger(DeploymentRolloutRun.class);

  private DeploymentRolloutRun() {
  }

  public static void main(String[] args) throws Exception {
    int replicas = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int rolling = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    double qps = args.length > 2 ? Double.parseDouble(args[2]) : 200;
    JulBridge.install();
    double raw = rawCreates(replicas, qps);
    LOG.info("raw: {} pod creates at qps {} from 16 threads took {} s ({} pods/s)", replicas, qps(qps), fmt(raw),
        Math.round(replicas / raw));
    rollout(replicas, qps, raw);
    rollingUpdate(rolling, qps);
  }

  private static String qps(double qps) {
    return qps < 0 ? "unlimited" : String.valueOf((int) qps);
  }

  private static String fmt(double seconds) {
    return String.format("%.2f", seconds);
  }

  private static EmbeddedCluster cluster(int pods) {
    EmbeddedCluster cluster = EmbeddedCluster.builder().historyCapacity(200_000)
        .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO).withTerminationDelay(Duration.ZERO))
        .start();
    int nodes = Math.max(1, pods / 100 + 1);
    for (int i = 0; i < nodes; i++) {
      cluster.nodes().add(NodeSpec.node("node-" + i).withPods(250).withCpu("64").withMemory("256Gi"));
    }
    new InstantBinder(cluster, nodes);
    return cluster;
  }

  private static KubernetesClient limitedClient(EmbeddedCluster cluster, double qps) {
    int burst = qps < 0 ? 0 : (int) Math.max(1, qps);
    return KubeClients.create(cluster.clientConfig(), new ClientSettings(Optional.empty(), qps, burst,
        "berth-benchmark"));
  }

  private static void namespace(KubernetesClient client, String ns) {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "raw").endMetadata().withNewSpec()
        .addNewContainer().withName("main").withImage("nginx:1.27").endContainer().endSpec().build();
  }

  private static double rawCreates(int count, double qps) throws Exception {
    try (EmbeddedCluster cluster = cluster(count); KubernetesClient client = limitedClient(cluster, qps)) {
      namespace(client, "raw");
      List<Pod> pods = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        pods.add(pod("raw-" + i));
      }
      ExecutorService pool = Executors.newFixedThreadPool(16);
      AtomicInteger next = new AtomicInteger();
      long t0 = System.nanoTime();
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        futures.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
            client.pods().inNamespace("raw").resource(pods.get(i)).create();
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.MINUTES);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      pool.shutdown();
      return seconds;
    }
  }

  /** The ReplicaSet and Deployment controllers on one rate-limited client, as the daemon runs them. */
  private static final class Controllers implements AutoCloseable {
    final KubernetesClient client;
    final SharedInformerFactory informers;
    final InProcessControllers controllers;

    Controllers(EmbeddedCluster cluster, double qps) throws InterruptedException {
      client = limitedClient(cluster, qps);
      informers = new SharedInformerFactory(client);
      controllers = new InProcessControllers(client, informers);
      informers.start();
      if (!informers.waitForCacheSync(Duration.ofSeconds(60))) {
        throw new IllegalStateException("informers did not sync");
      }
      controllers.start(5);
    }

    @Override
    public void close() throws InterruptedException {
      controllers.close();
      informers.shutdown();
      client.close();
    }
  }

  private static Deployment deployment(String name, int replicas, String image) {
    return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec()
        .addNewContainer().withName("main").withImage(image).endContainer().endSpec().endTemplate().endSpec().build();
  }

  private static void rollout(int replicas, double qps, double raw) throws Exception {
    try (EmbeddedCluster cluster = cluster(replicas); Controllers controllers = new Controllers(cluster, qps);
        KubernetesClient driver = cluster.newClient()) {
      namespace(driver, "bench");
      cluster.requestLog().clear();
      long t0 = System.nanoTime();
      driver.apps().deployments().inNamespace("bench").resource(deployment("web", replicas, "nginx:1.27")).create();
      double created = waitFor(() -> podCount(cluster, "bench") >= replicas, t0);
      double available = waitFor(() -> availableReplicas(cluster, "bench", "web") == replicas, t0);
      Map<String, Integer> calls = controllerCalls(cluster, "bench");
      int total = calls.values().stream().mapToInt(Integer::intValue).sum();
      LOG.info("deployment of {} replicas at qps {}: all pods created after {} s ({} pods/s), all available after "
          + "{} s; controller API calls {} ({} per pod): {}", replicas, qps(qps), fmt(created),
          Math.round(replicas / created), fmt(available), total, String.format("%.3f", total / (double) replicas),
          calls);
      LOG.info("ratio of the controller's create time to {} raw creates at the same qps: {} (overhead {} %)",
          replicas, String.format("%.3f", created / raw), Math.round((created / raw - 1) * 100));
    }
  }

  private static void rollingUpdate(int replicas, double qps) throws Exception {
    try (EmbeddedCluster cluster = cluster(replicas * 2); Controllers controllers = new Controllers(cluster, qps);
        KubernetesClient driver = cluster.newClient()) {
      namespace(driver, "rolling");
      driver.apps().deployments().inNamespace("rolling").resource(deployment("app", replicas, "nginx:1.27"))
          .create();
      waitFor(() -> availableReplicas(cluster, "rolling", "app") == replicas, System.nanoTime());
      cluster.requestLog().clear();
      long t0 = System.nanoTime();
      driver.apps().deployments().inNamespace("rolling").withName("app").edit(d -> new DeploymentBuilder(d)
          .editSpec().editTemplate().editSpec().editFirstContainer().withImage("nginx:1.28").endContainer()
          .endSpec().endTemplate().endSpec().build());
      double done = waitFor(() -> rolloutComplete(cluster, "rolling", "app", replicas), t0);
      Map<String, Integer> calls = controllerCalls(cluster, "rolling");
      int total = calls.values().stream().mapToInt(Integer::intValue).sum();
      LOG.info("rolling update of {} replicas (25%/25%) at qps {}: complete after {} s; controller API calls {} ({} "
          + "per replaced pod): {}", replicas, qps(qps), fmt(done), total,
          String.format("%.3f", total / (double) replicas), calls);
    }
  }

  private static double waitFor(BooleanSupplier condition, long t0) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out");
      }
      Thread.sleep(10);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  private static int podCount(EmbeddedCluster cluster, String ns) {
    return cluster.store().list(ResourceTypes.PODS, ns, p -> !p.terminating()).items().size();
  }

  private static int availableReplicas(EmbeddedCluster cluster, String ns, String name) {
    return cluster.store().get(ResourceTypes.DEPLOYMENTS, ns, name)
        .map(d -> d.tree().path("status").path("availableReplicas").asInt(0)).orElse(0);
  }

  private static boolean rolloutComplete(EmbeddedCluster cluster, String ns, String name, int replicas) {
    Optional<StoredObject> d = cluster.store().get(ResourceTypes.DEPLOYMENTS, ns, name);
    if (d.isEmpty()) {
      return false;
    }
    var tree = d.get().tree();
    var status = tree.path("status");
    return status.path("observedGeneration").asLong(0) >= tree.path("metadata").path("generation").asLong(1)
        && status.path("updatedReplicas").asInt(0) == replicas && status.path("replicas").asInt(0) == replicas
        && status.path("availableReplicas").asInt(0) == replicas
        && podCount(cluster, ns) == replicas;
  }

  /** The controllers' requests in a namespace, by verb and resource (watches and the driver's calls excluded). */
  private static Map<String, Integer> controllerCalls(EmbeddedCluster cluster, String ns) {
    Map<String, Integer> calls = new TreeMap<>();
    for (RequestRecord r : cluster.requestLog().entries(r -> ns.equals(r.namespace()))) {
      if (r.verb().equals("watch") || (r.resource().equals("deployments") && r.subresource().isEmpty()
          && (r.verb().equals("create") || r.verb().equals("patch") || r.verb().equals("get")))) {
        continue;
      }
      calls.merge(r.verb() + " " + r.resourcePath(), 1, Integer::sum);
    }
    return calls;
  }

  /**
   * Binds every new unbound pod the moment it is stored, round robin over the nodes, in process (no HTTP), so
   * that the simulated kubelet runs it at once: "pods made ready as soon as they exist".
   */
  private static final class InstantBinder {
    InstantBinder(EmbeddedCluster cluster, int nodes) {
      ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "instant-binder");
        t.setDaemon(true);
        return t;
      });
      AtomicInteger next = new AtomicInteger();
      cluster.store().addListener(event -> {
        StoredObject pod = event.object();
        if (pod.type() != ResourceTypes.PODS || event.type() != WatchEvent.Type.ADDED
            || Json.text(pod.tree(), "spec", "nodeName") != null) {
          return;
        }
        String node = "node-" + Math.floorMod(next.getAndIncrement(), nodes);
        executor.execute(() -> cluster.operations().mutate(ResourceTypes.PODS, pod.namespace(), pod.name(), obj -> {
          Json.objectAt(obj, "spec").put("nodeName", node);
          return obj;
        }, false));
      });
    }
  }
}
