package io.berth.bench.informer;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.JulBridge;
import io.berth.informer.Fabric8ListerWatcher;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Time and retained heap to list-and-cache N pods and deliver them to 3 handlers: Berth's informer (with a
 * transform dropping managedFields, and without one) side by side with fabric8's own SharedIndexInformer, against the same embedded
 * API server and the same data, in one run, alternating rounds. Heap is measured as the used heap after full GCs
 * with the synced informer still reachable, minus the used heap before it started, per pod.
 *
 * <p>Usage: {@code java -Xmx4g -cp benchmarks/target/benchmarks.jar io.berth.bench.informer.InformerSyncRun
 * [pods=20000] [rounds=5]}. Logs one line per round and a summary. Not thread-safe; run from main.
 */
public final class InformerSyncRun {

  private static final Logger LOG = LoggerFactory.getLogger(InformerSyncRun.class);
  private static final String NS = "bench";
  private static final int HANDLERS = 3;

  /** One measured sync: wall time and retained bytes per pod. */
  record Sample(String informer, double seconds, double bytesPerPod) {
  }

  private InformerSyncRun() {
  }

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    JulBridge.install();
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
        KubernetesClient client = cluster.newClient()) {
      createPods(client, pods);
      List<Sample> samples = new ArrayList<>();
      for (int round = 0; round < rounds + 1; round++) {
        Sample berth = measure("berth", pods, () -> berthInformer(client, true));
        Sample plain = measure("berth-no-transform", pods, () -> berthInformer(client, false));
        Sample fabric8 = measure("fabric8", pods, () -> fabric8Informer(client));
        if (round == 0) {
          LOG.info("warm-up round: berth {} s, berth without transform {} s, fabric8 {} s", fmt(berth.seconds()),
              fmt(plain.seconds()), fmt(fabric8.seconds()));
          continue;
        }
        samples.add(berth);
        samples.add(plain);
        samples.add(fabric8);
        LOG.info("round {}: berth {} s {} B/pod | berth without transform {} s {} B/pod | fabric8 {} s {} B/pod",
            round, fmt(berth.seconds()), Math.round(berth.bytesPerPod()), fmt(plain.seconds()),
            Math.round(plain.bytesPerPod()), fmt(fabric8.seconds()), Math.round(fabric8.bytesPerPod()));
      }
      summarize(samples, "berth");
      summarize(samples, "berth-no-transform");
      summarize(samples, "fabric8");
    }
  }

  private static void summarize(List<Sample> samples, String informer) {
    List<Sample> mine = samples.stream().filter(s -> s.informer().equals(informer)).toList();
    double[] t = mine.stream().mapToDouble(Sample::seconds).sorted().toArray();
    double[] h = mine.stream().mapToDouble(Sample::bytesPerPod).sorted().toArray();
    LOG.info("SUMMARY {}: sync time median {} s (min {}, max {}); retained heap median {} B/pod (min {}, max {})",
        informer, fmt(t[t.length / 2]), fmt(t[0]), fmt(t[t.length - 1]), Math.round(h[h.length / 2]),
        Math.round(h[0]), Math.round(h[h.length - 1]));
  }

  private static String fmt(double seconds) {
    return String.format("%.3f", seconds);
  }

  /** A running informer with HANDLERS counting handlers; {@code close} stops it. */
  interface Running extends AutoCloseable {
    boolean synced();

    int delivered();

    @Override
    void close();
  }

  private static Sample measure(String name, int pods, Supplier<Running> start) throws InterruptedException {
    long before = usedHeapAfterGc();
    before = Math.min(before, usedHeapAfterGc());
    long t0 = System.nanoTime();
    Running running = start.get();
    try {
      while (!running.synced() || running.delivered() < pods * HANDLERS) {
        Thread.sleep(1);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long after = usedHeapAfterGc();
      double perPod = (after - before) / (double) pods;
      if (!running.synced()) {
        throw new IllegalStateException(name + " lost sync");
      }
      return new Sample(name, seconds, perPod);
    } finally {
      running.close();
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static Running berthInformer(KubernetesClient client, boolean dropManagedFields) {
    SharedIndexInformer<Pod> informer = SharedIndexInformer.create(
        Fabric8ListerWatcher.of(client, Pod.class).inNamespace(NS), Duration.ZERO);
    if (dropManagedFields) {
      informer.setTransform(pod -> {
        pod.getMetadata().setManagedFields(null);
        return pod;
      });
    }
    AtomicInteger delivered = new AtomicInteger();
    for (int i = 0; i < HANDLERS; i++) {
      informer.addEventHandler(new ResourceEventHandler<Pod>() {
        @Override
        public void onAdd(Pod obj, boolean isInInitialList) {
          delivered.incrementAndGet();
        }
      });
    }
    informer.start();
    return new Running() {
      @Override
      public boolean synced() {
        return informer.hasSynced();
      }

      @Override
      public int delivered() {
        return delivered.get();
      }

      @Override
      public void close() {
        informer.stop();
      }
    };
  }

  private static Running fabric8Informer(KubernetesClient client) {
    io.fabric8.kubernetes.client.informers.SharedIndexInformer<Pod> informer =
        client.pods().inNamespace(NS).runnableInformer(0);
    AtomicInteger delivered = new AtomicInteger();
    for (int i = 0; i < HANDLERS; i++) {
      informer.addEventHandler(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<Pod>() {
        @Override
        public void onAdd(Pod obj) {
          delivered.incrementAndGet();
        }

        @Override
        public void onUpdate(Pod oldObj, Pod newObj) {
        }

        @Override
        public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
        }
      });
    }
    informer.start();
    return new Running() {
      @Override
      public boolean synced() {
        return informer.hasSynced();
      }

      @Override
      public int delivered() {
        return delivered.get();
      }

      @Override
      public void close() {
        informer.close();
      }
    };
  }

  /** Pods as a controller would create them, with managedFields as kube-apiserver records them. */
  private static void createPods(KubernetesClient client, int pods) throws Exception {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int offset = t;
      futures.add(pool.submit(() -> {
        for (int i = offset; i < pods; i += 4) {
          client.pods().inNamespace(NS).resource(pod(i)).create();
        }
      }));
    }
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.MINUTES);
    }
    pool.shutdown();
    LOG.info("created {} pods in {} s", pods, fmt((System.nanoTime() - t0) / 1e9));
  }

  private static Pod pod(int i) {
    Map<String, Object> fields = Map.of("f:metadata", Map.of("f:labels", Map.of("f:app", Map.of(),
        "f:pod-template-hash", Map.of())), "f:spec", Map.of("f:containers", Map.of("k:{\"name\":\"web\"}",
        Map.of("f:image", Map.of(), "f:name", Map.of(), "f:resources", Map.of("f:requests", Map.of())))));
    return new PodBuilder().withNewMetadata().withName("web-" + i).withNamespace(NS)
        .addToLabels("app", "web").addToLabels("pod-template-hash", "7d9f8c6b5")
        .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("web-7d9f8c6b5")
        .withUid("11111111-2222-3333-4444-555555555555").withController(true).withBlockOwnerDeletion(true)
        .endOwnerReference()
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kube-controller-manager")
            .withOperation("Update").withApiVersion("v1").withTime("2026-01-01T00:00:00Z").withFieldsType("FieldsV1")
            .withNewFieldsV1().addToAdditionalProperties(fields).endFieldsV1().build())
        .endMetadata()
        .withNewSpec().withNodeName("node-" + (i % 100)).addNewContainer().withName("web").withImage("nginx:1.27")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("64Mi"))
        .endResources().addNewPort().withContainerPort(80).withProtocol("TCP").endPort().endContainer().endSpec()
        .build();
  }
}
