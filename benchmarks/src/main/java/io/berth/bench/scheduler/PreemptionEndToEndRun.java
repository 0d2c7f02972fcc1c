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
import io.berth.framework.EventRecorder;
import io.berth.scheduler.InformerListers;
import io.berth.scheduler.KubernetesEventRecorder;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.berth.embedded.fault.RequestRecord;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * scheduler_perf's PreemptionBasic end to end on the embedded API server (preemption deletes real
 * victims, so it needs a server): nodes of 4 cpu filled by low-priority pods of 900m, then
 * high-priority pods of 3000m that each must preempt; reports preemptors bound per second from
 * their first create to the last one bound, then where the time went: the process CPU per
 * preemptor and its split by thread group ({@link ThreadCpuSplit}), the scheduling attempts by
 * result with their mean duration (a preemptor's failing attempt, its retries, the binding one),
 * the preparations of asynchronous preemption and their mean duration, and the API requests the
 * server received per preemptor by verb and resource (its request log), and the scheduling thread's own CPU per
 * preemptor (the thread every attempt runs on).
 *
 * <p>The wiring is the daemon's: informers that drop {@code managedFields}
 * ({@link SharedInformerFactory#droppingManagedFields}) and events through
 * {@link KubernetesEventRecorder} ({@code Preempted}, {@code FailedScheduling}, {@code Scheduled}),
 * unless {@code -Dberth.bench.events=false}. {@code -Dberth.bench.passes=N} (default 1) runs the
 * whole thing N times in the same JVM, each on a fresh cluster and scheduler: pass 1 is "cold"
 * (the JIT compiles while it runs), later passes "warm".
 *
 * <p>{@code java [-Dberth.featureGates=...] [-Dberth.bench.passes=2] [-Dberth.bench.events=false]
 * -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.PreemptionEndToEndRun [nodes]
 * [lowPods] [highPods]}; defaults 1000 4000 1000. The pods are created by {@link PodCreators}
 * (raw JSON by default; {@code -Dberth.bench.creates=fabric8} for fabric8's DSL, as before
 * 2026-12-02 06:00 UTC).
 */
public final class PreemptionEndToEndRun {
  private static final Logger LOG = LoggerFactory.getLogger(PreemptionEndToEndRun.class);

  private PreemptionEndToEndRun() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int low = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
    int high = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    int passes = Integer.getInteger("berth.bench.passes", 1);
    for (int pass = 1; pass <= passes; pass++) {
      System.gc();
      pass(nodes, low, high, pass == 1 ? "cold" : "warm");
    }
  }

  /**
   * One pass on a fresh embedded cluster and a fresh scheduler; the first pass of a JVM meets the
   * HTTP, fabric8, server and preemption paths uncompiled (JIT), later ones meet them warm.
   */
  private static void pass(int nodes, int low, int high, String label) throws Exception {
    boolean events = Boolean.parseBoolean(System.getProperty("berth.bench.events", "true"));
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
      // the daemon's informer factory (Daemon: managedFields dropped while parsing)
      SharedInformerFactory informers = SharedInformerFactory.droppingManagedFields(client,
          Duration.ZERO);
      Lister<Pod> podLister = informers.lister(Pod.class);
      SimpleMeterRegistry metrics = new SimpleMeterRegistry();
      SchedulerAssembly assembly = SchedulerAssembly.builder(SchedulerConfigLoader.defaults(registry),
          registry).client(client).listers(new InformerListers(informers)).meterRegistry(metrics)
          .featureGates(FeatureGates.parse(System.getProperty("berth.featureGates", "")))
          .eventRecorders(name -> events ? new KubernetesEventRecorder(client, name, metrics)
              : EventRecorder.NOOP)
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
      // the low-priority pods' Scheduled events must not land in the window
      long eventsDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (events && cluster.requestLog().count("create", "events") < low
          && System.nanoTime() < eventsDeadline) {
        Thread.sleep(10);
      }
      Map<String, Long> attempts0 = attempts(metrics);
      Map<String, Double> attemptNanos0 = attemptNanos(metrics);
      cluster.requestLog().clear();
      LOG.info("{} pass: creating {} preemptors from {} UTC epoch ms", label, high,
          System.currentTimeMillis());
      ThreadCpuSplit threads = ThreadCpuSplit.start();
      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      create(client, "high", high, "3000m");
      long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      while (highBound.get() < high && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      long elapsed = System.nanoTime() - t0;
      long cpu = processCpuNanos() - cpu0;
      String split = threads.report(high) + String.format("%nof which the scheduling thread (scheduler-loop)"
          + " %.3f ms per preemptor", threads.millisPerPod("scheduler-loop", high));
      report(metrics, attempts0, attemptNanos0, cluster.requestLog().entries(), high, cpu);
      LOG.info("{}", split);
      if (events) {
        reportEvents(cluster, client, metrics, high, t0, cpu0);
      }
      LOG.info(String.format("%nPreemptionBasic end to end (%s, events %s): %d nodes, %d low-priority"
          + " pods, %d preemptors: %d bound in %.1f s = %.0f preemptors/s; low-priority pods left %d",
          label, events ? "on" : "off", nodes, low, high, highBound.get(), elapsed / 1e9,
          highBound.get() / (elapsed / 1e9),
          client.pods().inNamespace("default").list().getItems().stream()
              .filter(p -> p.getMetadata().getName().startsWith("low")).count()));
      assembly.stop(Duration.ofSeconds(10));
      informers.shutdown();
      client.close();
    }
  }

  /**
   * The events may still be on their way when the last preemptor is bound: waits (up to 30 s) for
   * the server's count of event creates to stop growing, then logs the events per preemptor, the
   * process CPU by then, and the window's events by reason as the server holds them (upstream
   * writes 3 Preempted, 1 FailedScheduling and 1 Scheduled for each preemptor here).
   */
  private static void reportEvents(EmbeddedCluster cluster, KubernetesClient client,
      SimpleMeterRegistry metrics, int high, long t0, long cpu0) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    long seen = -1;
    long now = cluster.requestLog().count("create", "events");
    while (now != seen && System.nanoTime() < deadline) {
      seen = now;
      Thread.sleep(500);
      now = cluster.requestLog().count("create", "events");
    }
    long elapsed = System.nanoTime() - t0;
    long cpu = processCpuNanos() - cpu0;
    Map<String, Long> byReason = new TreeMap<>();
    for (var e : client.v1().events().inNamespace("default").list().getItems()) {
      String name = e.getInvolvedObject() == null ? "" : e.getInvolvedObject().getName();
      boolean window = name.startsWith("high") || "Preempted".equals(e.getReason());
      if (window) {
        byReason.merge(e.getReason(), (long) io.berth.scheduler.EventOccurrences.count(e), Long::sum);
      }
    }
    StringBuilder out = new StringBuilder(String.format("%nevents: %.2f creates per preemptor,"
        + " settled %.1f s after the first preemptor's create; process CPU %.2f ms per preemptor"
        + " by then; by reason, per preemptor:", (double) now / high, elapsed / 1e9,
        cpu / 1e6 / high));
    byReason.forEach((reason, n) -> out.append(String.format("%n  %-20s %6.2f", reason,
        (double) n / high)));
    out.append("\nrecorder: ").append(metrics.find("berth_scheduler_events").counters().stream()
        .map(c -> c.getId().getTag("result") + "=" + (long) c.count()).sorted().toList());
    LOG.info("{}", out);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** Scheduling attempts so far by result (scheduled, unschedulable, error). */
  private static Map<String, Long> attempts(SimpleMeterRegistry metrics) {
    Map<String, Long> out = new TreeMap<>();
    metrics.find("scheduler.schedule.attempts").counters().forEach(c ->
        out.merge(c.getId().getTag("result"), (long) c.count(), Long::sum));
    return out;
  }

  /** Total time of the scheduling attempts so far by result, in nanoseconds. */
  private static Map<String, Double> attemptNanos(SimpleMeterRegistry metrics) {
    Map<String, Double> out = new TreeMap<>();
    metrics.find("scheduler.scheduling.attempt.duration").timers().forEach(t ->
        out.merge(t.getId().getTag("result"), t.totalTime(TimeUnit.NANOSECONDS), Double::sum));
    return out;
  }

  /** Logs where the measured window's time went (see the class comment). */
  private static void report(SimpleMeterRegistry metrics, Map<String, Long> attempts0,
      Map<String, Double> attemptNanos0, List<RequestRecord> requests, int high, long cpuNanos) {
    StringBuilder out = new StringBuilder(String.format(
        "%nprocess CPU %.2f ms per preemptor; scheduling attempts in the window (count, per"
            + " preemptor, mean ms):", cpuNanos / 1e6 / high));
    Map<String, Double> nanos = attemptNanos(metrics);
    attempts(metrics).forEach((result, count) -> {
      long n = count - attempts0.getOrDefault(result, 0L);
      double ns = nanos.getOrDefault(result, 0.0) - attemptNanos0.getOrDefault(result, 0.0);
      out.append(String.format("%n  %-15s %6d  %5.2f  %6.2f", result, n, (double) n / high,
          n == 0 ? 0 : ns / 1e6 / n));
    });
    Timer async = metrics.find("scheduler.preemption.goroutines.duration").timer();
    if (async != null) {
      out.append(String.format("%nasynchronous preparations: %d, mean %.2f ms, max %.2f ms",
          async.count(), async.mean(TimeUnit.MILLISECONDS), async.max(TimeUnit.MILLISECONDS)));
    }
    // since the scheduler started: the low-priority pods (1 attempt each) are in these too
    for (Timer sli : metrics.find("scheduler.pod.scheduling.sli.duration").timers()) {
      out.append(String.format("%nfirst attempt to bound (all pods so far): %d pods, mean %.0f ms, max %.0f ms",
          sli.count(), sli.mean(TimeUnit.MILLISECONDS), sli.max(TimeUnit.MILLISECONDS)));
    }
    Map<String, Long> byRequest = new TreeMap<>();
    for (RequestRecord r : requests) {
      byRequest.merge(r.verb() + " " + r.resourcePath(), 1L, Long::sum);
    }
    out.append("\nAPI requests in the window, per preemptor:");
    byRequest.forEach((what, n) -> out.append(String.format("%n  %-30s %6.2f", what,
        (double) n / high)));
    LOG.info("{}", out);
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
    try (PodCreators creators = new PodCreators(client, PodCreators.Mode.fromSystemProperty(), "default", pods)) {
      creators.run(4);
    }
  }
}
