package io.berth.bench.scheduler;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.framework.runtime.Registry;
import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedInformerFactory;
import io.berth.plugins.InTreeRegistry;
import io.berth.framework.EventRecorder;
import io.berth.scheduler.InformerListers;
import io.berth.scheduler.KubernetesEventRecorder;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler end to end against the embedded API server over HTTP: informers, the binding
 * subresource, events and status writes. Creates the nodes, then the pods from 4 client threads,
 * and reports pods/s from the first create to the last pod seen bound, the mean Bind call and how
 * much of the pod's cost is the server's (compared with the in-process harness at the same size).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.SchedulerEndToEndRun
 * [nodes] [pods]}; defaults 500 2000. Events are recorded through the daemon's
 * {@link KubernetesEventRecorder} unless {@code -Dberth.bench.events=false}; the CPU is reported
 * when the last pod is bound and again once the server has every pod's {@code Scheduled} event, with
 * the Java threads' CPU split by group. The end-to-end part runs twice ({@code
 * -Dberth.bench.passes}, default 2), each pass on a fresh cluster and scheduler in the same JVM:
 * "cold" meets the HTTP paths uncompiled, "warm" after the first pass compiled them.
 *
 * <p>The informers are the daemon's ({@link SharedInformerFactory#droppingManagedFields}). The pods
 * are created by {@link PodCreators}: by default each pod's JSON is encoded before the clock starts
 * and POSTed through the client's HTTP client, reading only the status code, as scheduler_perf's
 * client-go load generator reads back only what it needs; {@code -Dberth.bench.creates=fabric8}
 * creates them through fabric8's DSL ({@code create()}: serialize, send, decode the answered Pod),
 * the load generator of the rows in BENCHMARKS.md before 2026-12-02 06:00 UTC.
 */
public final class SchedulerEndToEndRun {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerEndToEndRun.class);

  private SchedulerEndToEndRun() {}

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    // the same size in process first (its second run, warm), then over HTTP
    SchedulerThroughputRun.run(PerfWorkload.schedulingBasic(nodes, 0, pods));
    var inProcess = SchedulerThroughputRun.run(PerfWorkload.schedulingBasic(nodes, 0, pods));
    LOG.info("in process: {}", SchedulerThroughputRun.format(inProcess));
    int passes = Integer.getInteger("berth.bench.passes", 2);
    for (int pass = 1; pass <= passes; pass++) {
      System.gc();
      endToEnd(nodes, pods, pass == 1 ? "cold" : "warm", inProcess);
    }
  }

  /**
   * One pass on a fresh embedded cluster and a fresh scheduler; the first pass of a JVM meets the
   * HTTP, fabric8 and server paths uncompiled (JIT), later passes ({@code -Dberth.bench.passes})
   * meet them warm, as a long-running daemon and server would.
   */
  private static void endToEnd(int nodes, int pods, String label,
      SchedulerThroughputRun.Result inProcess) throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      for (int i = 0; i < nodes; i++) {
        cluster.nodes().add(NodeSpec.node("node-" + i).withCpu("4").withMemory("32Gi"));
      }
      KubernetesClient client = cluster.newClient();
      Registry registry = InTreeRegistry.create();
      SimpleMeterRegistry metrics = new SimpleMeterRegistry();
      SharedInformerFactory informers = SharedInformerFactory.droppingManagedFields(client, Duration.ZERO);
      Lister<Pod> podLister = informers.lister(Pod.class);
      SchedulerAssembly assembly = SchedulerAssembly.builder(SchedulerConfigLoader.defaults(registry),
          registry).client(client).listers(new InformerListers(informers)).meterRegistry(metrics)
          .featureGates(io.berth.framework.FeatureGates.parse(System.getProperty("berth.featureGates", "")))
          .eventRecorders(name -> Boolean.parseBoolean(System.getProperty("berth.bench.events", "true"))
              ? new KubernetesEventRecorder(client, name, metrics) : EventRecorder.NOOP)
          .informerPod(p -> podLister.get(p.getMetadata().getNamespace(), p.getMetadata().getName()))
          .build();
      AtomicInteger bound = new AtomicInteger();
      informers.informerFor(Pod.class).addEventHandler(assembly.podHandler());
      informers.informerFor(Pod.class).addEventHandler(new ResourceEventHandler<>() {
        @Override
        public void onUpdate(Pod oldPod, Pod newPod) {
          if (oldPod.getSpec().getNodeName() == null && newPod.getSpec().getNodeName() != null) {
            bound.incrementAndGet();
          }
        }
      });
      informers.informerFor(Node.class).addEventHandler(assembly.nodeHandler());
      informers.start();
      informers.waitForCacheSync(Duration.ofMinutes(2));
      assembly.start();
      List<Pod> toCreate = new ArrayList<>(pods);
      for (int i = 0; i < pods; i++) {
        toCreate.add(PerfObjects.pod("default", "e2e-" + i, b -> b.editMetadata().withUid(null)
            .withResourceVersion(null).withCreationTimestamp(null).endMetadata()));
      }
      PodCreators creators = new PodCreators(client, PodCreators.Mode.fromSystemProperty(), "default", toCreate);
      LOG.info("end to end ({}): creating {} pods ({} creates) from {} UTC epoch ms", label, pods,
          creators.mode().name().toLowerCase(java.util.Locale.ROOT), System.currentTimeMillis());
      ThreadCpuSplit threads = ThreadCpuSplit.start();
      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      creators.run(4);
      long created = System.nanoTime() - t0;
      while (bound.get() < pods) {
        Thread.sleep(10);
      }
      long elapsed = System.nanoTime() - t0;
      long cpu = processCpuNanos() - cpu0;
      // the Scheduled events may still be on their way: wait for the server to have them all
      boolean events = Boolean.parseBoolean(System.getProperty("berth.bench.events", "true"));
      long eventsDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (events && cluster.requestLog().count("create", "events") < pods
          && System.nanoTime() < eventsDeadline) {
        Thread.sleep(10);
      }
      long eventsWritten = cluster.requestLog().count("create", "events");
      long eventsElapsed = System.nanoTime() - t0;
      long cpuWithEvents = processCpuNanos() - cpu0;
      String split = threads.report(pods);
      Timer bind = metrics.find("scheduler.framework.extension.point.duration")
          .tag("extension_point", "Bind").timer();
      double bindMeanMs = bind == null ? Double.NaN : bind.mean(TimeUnit.MILLISECONDS);
      double e2ePerPodMs = elapsed / 1e6 / pods;
      double inProcPerPodMs = 1000.0 / inProcess.overallPodsPerSecond();
      LOG.info(String.format("%nend to end (%s): %d nodes, %d pods: %.0f pods/s (creates took %.1f s,"
          + " all bound after %.1f s); mean Bind call %.2f ms; in process %.0f pods/s;"
          + " server share of the per-pod time %.0f%%", label, nodes, pods, pods / (elapsed / 1e9),
          created / 1e9, elapsed / 1e9, bindMeanMs, inProcess.overallPodsPerSecond(),
          100 * (1 - inProcPerPodMs / e2ePerPodMs)));
      // CPU time of the whole JVM (clients, server, scheduler) per pod: comparable on a loaded machine.
      LOG.info(String.format("end to end (%s): process CPU %.2f ms per pod", label, cpu / 1e6 / pods));
      LOG.info(String.format("end to end (%s): %d Scheduled events created %.1f s after the first create;"
          + " process CPU %.2f ms per pod by then; recorder %s%n%s", label, eventsWritten, eventsElapsed / 1e9,
          cpuWithEvents / 1e6 / pods, metrics.find("berth_scheduler_events").counters().stream()
              .map(c -> c.getId().getTag("result") + "=" + (long) c.count()).sorted().toList(), split));
      creators.close();
      assembly.stop(Duration.ofSeconds(10));
      informers.shutdown();
      client.close();
    }
  }
}
