package io.berth.bench.scheduler;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.framework.FeatureGates;
import io.berth.framework.runtime.Registry;
import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedInformerFactory;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.InformerListers;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * scheduler_perf's PreemptionBasic end to end on the embedded API server (preemption deletes real
 * victims, so it needs a server): nodes of 4 cpu filled by low-priority pods of 900m, then
 * high-priority pods of 3000m that each must preempt; reports preemptors bound per second from
 * their first create to the last one bound.
 *
 * <p>{@code java [-Dberth.featureGates=SchedulerAsyncPreemption=true] -cp
 * benchmarks/target/benchmarks.jar io.berth.bench.scheduler.PreemptionEndToEndRun [nodes]
 * [lowPods] [highPods]}; defaults 1000 4000 1000.
 */
public final class PreemptionEndToEndRun {
  private static final Logger LOG = LoggerFactory.getLogger(PreemptionEndToEndRun.class);

  private PreemptionEndToEndRun() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int low = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
    int high = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ZERO).withTerminationDelay(Duration.ZERO)).start()) {
      for (int i = 0; i < nodes; i++) {
        cluster.nodes().add(NodeSpec.node("node-" + i).withCpu("4").withMemory("32Gi"));
      }
      KubernetesClient client = cluster.newClient();
      client.resource(new PriorityClassBuilder().withNewMetadata().withName("low").endMetadata()
          .withValue(10).build()).create();
      client.resource(new PriorityClassBuilder().withNewMetadata().withName("high").endMetadata()
          .withValue(10000).build()).create();
      Registry registry = InTreeRegistry.create();
      SharedInformerFactory informers = new SharedInformerFactory(client);
      Lister<Pod> podLister = informers.lister(Pod.class);
      SchedulerAssembly assembly = SchedulerAssembly.builder(SchedulerConfigLoader.defaults(registry),
          registry).client(client).listers(new InformerListers(informers))
          .featureGates(FeatureGates.parse(System.getProperty("berth.featureGates", "")))
          .informerPod(p -> podLister.get(p.getMetadata().getNamespace(), p.getMetadata().getName()))
          .build();
      AtomicInteger lowBound = new AtomicInteger();
      AtomicInteger highBound = new AtomicInteger();
      informers.informerFor(Pod.class).addEventHandler(assembly.podHandler());
      informers.informerFor(Pod.class).addEventHandler(new ResourceEventHandler<>() {
        @Override
        public void onUpdate(Pod oldPod, Pod newPod) {
          if (oldPod.getSpec().getNodeName() == null && newPod.getSpec().getNodeName() != null) {
            (newPod.getMetadata().getName().startsWith("high") ? highBound : lowBound)
                .incrementAndGet();
          }
        }
      });
      informers.informerFor(Node.class).addEventHandler(assembly.nodeHandler());
      informers.start();
      informers.waitForCacheSync(Duration.ofMinutes(2));
      assembly.start();
      create(client, "low", low, "900m");
      while (lowBound.get() < low) {
        Thread.sleep(10);
      }
      long t0 = System.nanoTime();
      create(client, "high", high, "3000m");
      long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      while (highBound.get() < high && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      long elapsed = System.nanoTime() - t0;
      LOG.info(String.format("%nPreemptionBasic end to end: %d nodes, %d low-priority pods, %d"
          + " preemptors: %d bound in %.1f s = %.0f preemptors/s; low-priority pods left %d",
          nodes, low, high, highBound.get(), elapsed / 1e9, highBound.get() / (elapsed / 1e9),
          client.pods().inNamespace("default").list().getItems().stream()
              .filter(p -> p.getMetadata().getName().startsWith("low")).count()));
      assembly.stop(Duration.ofSeconds(10));
      informers.shutdown();
      client.close();
    }
  }

  private static void create(KubernetesClient client, String prefix, int count, String cpu)
      throws Exception {
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pods.add(PerfObjects.pod("default", prefix + "-" + i, b -> b.editMetadata().withUid(null)
          .withResourceVersion(null).withCreationTimestamp(null).endMetadata().editSpec()
          .withPriorityClassName(prefix).editFirstContainer().editResources()
          .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()));
    }
    ExecutorService creators = Executors.newFixedThreadPool(4);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int first = t;
      futures.add(creators.submit(() -> {
        for (int i = first; i < count; i += 4) {
          client.pods().inNamespace("default").resource(pods.get(i)).create();
        }
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    creators.shutdown();
  }
}
