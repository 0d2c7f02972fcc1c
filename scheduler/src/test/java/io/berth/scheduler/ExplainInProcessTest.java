package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.component.EndpointRoutes;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.NodeToStatus;
import io.berth.framework.Status;
import io.berth.framework.runtime.PluginResults;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.debug.DebugEndpoints;
import io.berth.scheduler.debug.Simulation;
import io.berth.scheduler.debug.SnapshotReport;
import io.berth.scheduler.explain.Attempt;
import io.berth.scheduler.explain.AttemptRecorder;
import io.berth.scheduler.explain.ExplainStore;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The recording path inside one JVM, fed through the scheduler's informer handlers (no API
 * server): the scheduling loop records what the real default plugins said, the recorder takes
 * attempts from many threads at once, and a standby's debug paths name the leader.
 */
class ExplainInProcessTest {
  private final InTreeRegistryHolder holder = new InTreeRegistryHolder();
  private SchedulerAssembly assembly;

  private static final class InTreeRegistryHolder {
    final io.berth.framework.runtime.Registry registry = InTreeRegistry.create();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (assembly != null) {
      assembly.stop(Duration.ofSeconds(5));
    }
  }

  private SchedulerAssembly assembly(ExplainStore store) {
    SchedulerConfiguration cfg = SchedulerConfigLoader.defaults(holder.registry);
    assembly = SchedulerAssembly.builder(cfg, holder.registry).explainStore(store).build();
    return assembly;
  }

  private static Node node(String name, String cpu) {
    return new NodeBuilder().withNewMetadata().withName(name).withUid(name).endMetadata()
        .withNewStatus().withAllocatable(Map.of("cpu", new Quantity(cpu), "memory",
            new Quantity("8Gi"), "pods", new Quantity("110"))).endStatus().build();
  }

  private static Pod pod(String name, String cpu) {
    Pod p = SchedulerIT.pod(name, cpu, "default-scheduler");
    p.getMetadata().setUid(name);
    return p;
  }

  @Test
  void theLoopRecordsEveryRejectedNodeWithWhatItLacks() {
    SchedulerAssembly a = assembly(new ExplainStore(2, 10_000));
    for (int i = 0; i < 4; i++) {
      a.nodeHandler().onAdd(node("n" + i, (i + 1) + ""), true);
    }
    a.start();
    a.podHandler().onAdd(pod("huge", "4500m"), true);
    Attempt attempt = await().atMost(Duration.ofSeconds(20))
        .until(() -> a.explainer().store().latest("default", "huge"), Optional::isPresent).get();
    assertThat(attempt.outcome()).isEqualTo(Attempt.Outcome.UNSCHEDULABLE);
    assertThat(attempt.filter().rejected()).extracting(NodeVerdict::node)
        .containsExactly("n0", "n1", "n2", "n3");
    assertThat(attempt.filter().node("n3")).get().extracting(v -> v.lacks().orElse(""))
        .isEqualTo("needs 500m cpu more");
    assertThat(attempt.filter().node("n0")).get().extracting(v -> v.lacks().orElse(""))
        .isEqualTo("needs 3500m cpu more");
    assertThat(attempt.preFilter()).extracting(Attempt.PluginVerdict::plugin)
        .contains("NodeResourcesFit");
    assertThat(attempt.postFilter()).extracting(Attempt.PluginVerdict::plugin)
        .containsExactly("DynamicResources", "DefaultPreemption"); // the default profile's PostFilter order
    assertThat(a.explainer().explain("default", "huge").summary().get().nearest().get(0).node())
        .isEqualTo("n3");
  }

  @Test
  void preemptionCandidatesAndVictimsAreRecorded() {
    SchedulerAssembly a = assembly(new ExplainStore(2, 10_000));
    a.nodeHandler().onAdd(node("only", "2"), true);
    Pod low = pod("low", "1500m");
    low.getSpec().setNodeName("only");
    low.getSpec().setPriority(0);
    a.podHandler().onAdd(low, true);
    a.start();
    Pod high = pod("high", "1");
    high.getSpec().setPriority(1000);
    a.podHandler().onAdd(high, true);
    Attempt attempt = await().atMost(Duration.ofSeconds(20))
        .until(() -> a.explainer().store().latest("default", "high"), Optional::isPresent).get();
    assertThat(attempt.filter().node("only")).get().extracting(v -> v.lacks().orElse(""))
        .isEqualTo("needs 500m cpu more");
    assertThat(attempt.preemption()).hasValueSatisfying(p -> {
      assertThat(p.candidates()).extracting(Attempt.Candidate::node).containsExactly("only");
      assertThat(p.nominatedNode()).hasValue("only");
      assertThat(p.victims()).containsExactly("default/low");
    });
  }

  @Test
  void recordsFromManyThreadsAtOnce() throws Exception {
    ExplainStore store = new ExplainStore(2, 1_000_000);
    SchedulerAssembly a = assembly(new ExplainStore(0, 1));
    Framework fw = a.frameworks().get("default-scheduler");
    AttemptRecorder recorder = new AttemptRecorder(store, InstantSource.system(), List.of());
    int threads = 8;
    int perThread = 400;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        go.await();
        for (int i = 0; i < perThread; i++) {
          CycleState state = new CycleState();
          PluginResults results = PluginResults.install(state);
          NodeToStatus statuses = new NodeToStatus();
          statuses.set("n", Status.unschedulable("Insufficient cpu").withPlugin("NodeResourcesFit"));
          results.filtered(new PluginResults.Filtered(List.of(), statuses, 1));
          recorder.record(fw, state, pod("p-" + id + "-" + (i % 20), "1"), i + 1,
              Status.unschedulable("Insufficient cpu"), "0/1 nodes are available", null, null,
              List.of());
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    recorder.flush();
    long stored = 0;
    for (String key : store.pods()) {
      List<Attempt> ring = store.attempts("default", key.substring("default/".length()));
      assertThat(ring).hasSizeLessThanOrEqualTo(2);
      for (Attempt x : ring) {
        assertThat(x.filter().node("n")).get().extracting(NodeVerdict::plugin)
            .isEqualTo("NodeResourcesFit");
      }
      stored += ring.size();
    }
    // every pod keeps its ring of two unless the recorder dropped attempts it could not take
    assertThat(store.pods().size() + recorder.dropped()).isGreaterThanOrEqualTo(threads * 20);
    assertThat(stored).isPositive();
    recorder.close();
  }

  @Test
  void simulatePreemptsOnPaperAndReservesWithoutTouchingTheCache() {
    SchedulerAssembly a = assembly(new ExplainStore(2, 100));
    a.nodeHandler().onAdd(node("only", "2"), true);
    a.nodeHandler().onAdd(node("spare", "1"), true);
    Pod low = pod("low", "1500m");
    low.getSpec().setNodeName("only");
    low.getSpec().setPriority(0);
    a.podHandler().onAdd(low, true);
    Simulation sim = new Simulation(SchedulerConfigLoader.defaults(holder.registry),
        holder.registry, InformerListers.empty(), io.berth.framework.FeatureGates.defaults(),
        a.cache());
    Pod high = pod("high", "1500m");
    high.getSpec().setPriority(1000);
    Pod small = pod("small", "500m");
    List<Simulation.Result> results = sim.run(List.of(high, small), null);

    // PostFilter ran: the candidate, its victim and the nomination, as the scheduler would
    Attempt h = results.get(0).attempt();
    assertThat(h.outcome()).isEqualTo(Attempt.Outcome.UNSCHEDULABLE);
    assertThat(h.postFilter()).extracting(Attempt.PluginVerdict::plugin)
        .containsExactly("DynamicResources", "DefaultPreemption"); // the default profile's PostFilter order
    assertThat(h.nominatedNode()).hasValue("only");
    assertThat(h.preemption()).hasValueSatisfying(p -> {
      assertThat(p.victims()).containsExactly("default/low");
      assertThat(p.candidates()).extracting(Attempt.Candidate::node).containsExactly("only");
    });
    assertThat(h.message()).startsWith("0/2 nodes are available");
    // Reserve and Permit ran on the chosen node
    Attempt s = results.get(1).attempt();
    assertThat(s.outcome()).isEqualTo(Attempt.Outcome.SCHEDULED);
    assertThat(s.selectedNode()).hasValue("spare");
    assertThat(s.reserve()).isNotEmpty().allSatisfy(v -> assertThat(v.success()).isTrue());
    assertThat(s.reserve()).extracting(Attempt.PluginVerdict::plugin).contains("VolumeBinding");
    // nothing was evicted or placed in the scheduler's own cache
    assertThat(a.cache().dump().nodes().get("only").pods()).extracting(p -> p.pod().getMetadata()
        .getName()).containsExactly("low");
    assertThat(a.cache().dump().nodes().get("spare").pods()).isEmpty();
  }

  @Test
  void aStandbyAnswers503NamingTheLeader() {
    SchedulerAssembly a = assembly(new ExplainStore(2, 100));
    EndpointRoutes routes = new EndpointRoutes();
    new DebugEndpoints(a.explainer(), new SnapshotReport(a.cache(), a.queue(), List::of, List::of,
        p -> true), new Simulation(SchedulerConfigLoader.defaults(holder.registry), holder.registry,
        InformerListers.empty(), io.berth.framework.FeatureGates.defaults(), a.cache()),
        new DebugEndpoints.Leadership() {
          @Override
          public boolean leading() {
            return false;
          }

          @Override
          public Optional<String> leader() {
            return Optional.of("scheduler-0_abc");
          }
        }).register(routes);
    EndpointRoutes.Response r = routes.handler("/debug/explain/default/p").get()
        .get(URI.create("/debug/explain/default/p"));
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.body()).contains("\"leader\":\"scheduler-0_abc\"");
    assertThat(routes.postHandler("/debug/simulate").get().post(URI.create("/debug/simulate"),
        "{}").status()).isEqualTo(503);
  }
}
