package io.berth.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PermitResult;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FrameworkRuntimeTest {
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  private final RecordingPlugin a = new RecordingPlugin("A", log);
  private final RecordingPlugin b = new RecordingPlugin("B", log);
  private final Pod pod = new PodBuilder().withNewMetadata().withNamespace("ns").withName("p")
      .withUid("uid-p").endMetadata().withNewSpec().endSpec().build();

  private Registry registry() {
    return new Registry().register("A", RecordingPlugin.factory(a))
        .register("B", RecordingPlugin.factory(b));
  }

  private FrameworkRuntime runtime(PluginSet multiPoint, Map<ExtensionPoint, PluginSet> sets) {
    ProfileConfig profile = new ProfileConfig("test", sets, multiPoint, Map.of(),
        OptionalInt.empty());
    return FrameworkRuntime.builder(registry(), profile).parallelizer(new DefaultParallelizer(4))
        .build();
  }

  private FrameworkRuntime bothMultiPoint() {
    // exactly one QueueSort: A only
    Map<ExtensionPoint, PluginSet> sets = new EnumMap<>(ExtensionPoint.class);
    sets.put(ExtensionPoint.QUEUE_SORT, new PluginSet(List.of(PluginRef.of("A")), List.of("*")));
    return runtime(PluginSet.enabled(new PluginRef("A", 2), new PluginRef("B", 3)), sets);
  }

  private static NodeInfo node(String name) {
    Node n = new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    return NodeInfo.of(n);
  }

  @Test
  void multiPointExpandsToEveryImplementedPointInOrder() {
    FrameworkRuntime fw = bothMultiPoint();
    assertThat(fw.listPlugins().get("Filter")).containsExactly("A", "B");
    assertThat(fw.listPlugins().get("QueueSort")).containsExactly("A");
    assertThat(fw.listPlugins().get("Bind")).containsExactly("A", "B");
  }

  @Test
  void explicitlyEnabledPluginsComeBeforeMultiPointOnes() {
    Map<ExtensionPoint, PluginSet> sets = new EnumMap<>(ExtensionPoint.class);
    sets.put(ExtensionPoint.QUEUE_SORT, new PluginSet(List.of(PluginRef.of("A")), List.of("*")));
    sets.put(ExtensionPoint.FILTER, PluginSet.enabled(PluginRef.of("B")));
    sets.put(ExtensionPoint.SCORE, new PluginSet(List.of(), List.of("A")));
    FrameworkRuntime fw = runtime(PluginSet.enabled(PluginRef.of("A"), PluginRef.of("B")), sets);
    assertThat(fw.listPlugins().get("Filter")).containsExactly("B", "A");
    assertThat(fw.listPlugins().get("Score")).containsExactly("B");
  }

  @Test
  void moreThanOneQueueSortIsAConfigError() {
    assertThatThrownBy(() -> runtime(PluginSet.enabled(PluginRef.of("A"), PluginRef.of("B")),
        Map.of())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queueSort");
  }

  @Test
  void unknownPluginIsAConfigErrorNamingIt() {
    assertThatThrownBy(() -> runtime(PluginSet.enabled(PluginRef.of("Nope")), Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"Nope\"");
  }

  @Test
  void preFilterSkipSkipsThatPluginsFilter() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preFilter = PreFilterResult.of(Status.skip());
    CycleState state = new CycleState();
    assertThat(fw.runPreFilterPlugins(state, pod, List.of()).status().isSuccess()).isTrue();
    assertThat(fw.runFilterPlugins(state, pod, node("n1")).isSuccess()).isTrue();
    assertThat(log).containsExactly("A.PreFilter", "B.PreFilter", "B.Filter(n1)");
  }

  @Test
  void filterFollowsEachCyclesSkipSetWhenCyclesAlternate() throws Exception {
    FrameworkRuntime fw = bothMultiPoint();
    CycleState skipA = new CycleState();
    skipA.skipFilterPlugins().add("A");
    CycleState skipNone = new CycleState();
    // alternating states (a cycle and a preemption dry run on another thread) each see their own skips
    for (int i = 0; i < 3; i++) {
      fw.runFilterPlugins(skipA, pod, node("a" + i));
      fw.runFilterPlugins(skipNone, pod, node("n" + i));
    }
    assertThat(log).containsExactly("B.Filter(a0)", "A.Filter(n0)", "B.Filter(n0)", "B.Filter(a1)",
        "A.Filter(n1)", "B.Filter(n1)", "B.Filter(a2)", "A.Filter(n2)", "B.Filter(n2)");
    // a skip added after the first Filter call counts from the next call on
    log.clear();
    skipNone.skipFilterPlugins().add("B");
    fw.runFilterPlugins(skipNone, pod, node("x"));
    assertThat(log).containsExactly("A.Filter(x)");
    // and on several threads at once
    log.clear();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      CycleState st = t % 2 == 0 ? skipA : skipNone;
      String prefix = t % 2 == 0 ? "skipA-" : "skipB-";
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 200; i++) {
          fw.runFilterPlugins(st, pod, node(prefix + i));
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    synchronized (log) {
      assertThat(log).hasSize(800).allSatisfy(entry -> assertThat(entry).matches(
          "B\\.Filter\\(skipA-\\d+\\)|A\\.Filter\\(skipB-\\d+\\)"));
    }
  }

  @Test
  void preFilterRejectionStopsAndNamesThePlugin() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preFilter = PreFilterResult.of(Status.unresolvable("nope"));
    PreFilterResult r = fw.runPreFilterPlugins(new CycleState(), pod, List.of());
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(r.status().plugin()).isEqualTo("A");
    assertThat(log).containsExactly("A.PreFilter");
  }

  @Test
  void preFilterNodeSetsIntersectAndEmptyIntersectionIsUnresolvable() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preFilter = PreFilterResult.nodes(Set.of("n1", "n2"));
    b.preFilter = PreFilterResult.nodes(Set.of("n2", "n3"));
    PreFilterResult r = fw.runPreFilterPlugins(new CycleState(), pod, List.of());
    assertThat(r.nodeNames()).contains(Set.of("n2"));
    b.preFilter = PreFilterResult.nodes(Set.of("n3"));
    r = fw.runPreFilterPlugins(new CycleState(), pod, List.of());
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(r.status().message()).isEqualTo("node(s) didn't satisfy plugin(s) [A, B] simultaneously");
  }

  @Test
  void filterStopsAtFirstRejectionAndWrapsErrors() {
    FrameworkRuntime fw = bothMultiPoint();
    a.filter = n -> Status.unschedulable("too small");
    Status s = fw.runFilterPlugins(new CycleState(), pod, node("n1"));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(s.plugin()).isEqualTo("A");
    assertThat(log).containsExactly("A.Filter(n1)");
    a.filter = n -> {
      throw new IllegalStateException("boom");
    };
    s = fw.runFilterPlugins(new CycleState(), pod, node("n1"));
    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(s.message()).contains("boom").contains("\"A\"");
  }

  @Test
  void scoresAreNormalizedThenWeightedAndSummed() {
    FrameworkRuntime fw = bothMultiPoint();
    a.score = n -> n.nodeName().equals("n1") ? 10L : 20L;
    a.normalize = scores -> {
      long max = scores.stream().mapToLong(x -> x.score()).max().orElse(1);
      scores.forEach(x -> x.setScore(x.score() * 100 / max));
      return Status.SUCCESS;
    };
    b.score = n -> n.nodeName().equals("n1") ? 7L : 1L;
    long[] total = fw.runScorePlugins(new CycleState(), pod, List.of(node("n1"), node("n2")));
    // A normalized to 50/100 with weight 2, B raw 7/1 with weight 3
    assertThat(total).containsExactly(50 * 2 + 7 * 3, 100 * 2 + 3);
  }

  @Test
  void preScoreSkipSkipsThatPluginsScore() {
    FrameworkRuntime fw = bothMultiPoint();
    b.preScore = Status.skip();
    b.score = n -> 99L;
    a.score = n -> 5L;
    CycleState state = new CycleState();
    assertThat(fw.runPreScorePlugins(state, pod, List.of()).isSuccess()).isTrue();
    assertThat(fw.runScorePlugins(state, pod, List.of(node("n1")))).containsExactly(10);
  }

  @Test
  void scoreOutOfRangeIsAnError() {
    FrameworkRuntime fw = bothMultiPoint();
    a.score = n -> 101L;
    assertThatThrownBy(() -> fw.runScorePlugins(new CycleState(), pod, List.of(node("n1"))))
        .isInstanceOf(StatusException.class).hasMessageContaining("invalid score 101");
  }

  @Test
  void unreserveRunsInReverseOrder() {
    FrameworkRuntime fw = bothMultiPoint();
    b.reserve = Status.unschedulable("no");
    Status s = fw.runReservePluginsReserve(new CycleState(), pod, "n1");
    assertThat(s.plugin()).isEqualTo("B");
    fw.runReservePluginsUnreserve(new CycleState(), pod, "n1");
    assertThat(log).containsExactly("A.Reserve", "B.Reserve", "B.Unreserve", "A.Unreserve");
  }

  @Test
  void permitWaitIsAllowedByEveryWaitingPlugin() throws Exception {
    FrameworkRuntime fw = bothMultiPoint();
    a.permit = PermitResult.waitFor(Duration.ofMinutes(1));
    b.permit = PermitResult.waitFor(Duration.ofMinutes(1));
    assertThat(fw.runPermitPlugins(new CycleState(), pod, "n1").code()).isEqualTo(Code.WAIT);
    CompletableFuture<Status> waited = CompletableFuture.supplyAsync(() -> {
      try {
        return fw.waitOnPermit(pod);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    var wp = fw.getWaitingPod("uid-p").orElseThrow();
    assertThat(wp.pendingPlugins()).containsExactly("A", "B");
    wp.allow("A");
    assertThat(waited).isNotDone();
    wp.allow("B");
    assertThat(waited.get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
    assertThat(fw.getWaitingPod("uid-p")).isEmpty();
  }

  @Test
  void permitRejectFromAnotherThreadFailsTheWaitingPod() throws Exception {
    FrameworkRuntime fw = bothMultiPoint();
    a.permit = PermitResult.waitFor(Duration.ofMinutes(1));
    fw.runPermitPlugins(new CycleState(), pod, "n1");
    Thread rejecter = new Thread(() -> fw.iterateOverWaitingPods(wp -> wp.reject("B", "gang incomplete")));
    rejecter.start();
    Status s = fw.waitOnPermit(pod);
    rejecter.join();
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(s.plugin()).isEqualTo("B");
    assertThat(s.message()).isEqualTo("gang incomplete");
  }

  @Test
  void permitTimeoutRejects() throws Exception {
    FrameworkRuntime fw = bothMultiPoint();
    a.permit = PermitResult.waitFor(Duration.ofMillis(20));
    fw.runPermitPlugins(new CycleState(), pod, "n1");
    Status s = fw.waitOnPermit(pod);
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(s.message()).isEqualTo("rejected due to timeout after waiting 20ms at plugin A");
  }

  @Test
  void permitRejectionShortCircuits() {
    FrameworkRuntime fw = bothMultiPoint();
    a.permit = PermitResult.of(Status.unschedulable("denied"));
    Status s = fw.runPermitPlugins(new CycleState(), pod, "n1");
    assertThat(s.plugin()).isEqualTo("A");
    assertThat(log).containsExactly("A.Permit");
    assertThat(fw.getWaitingPod("uid-p")).isEmpty();
  }

  @Test
  void bindSkipPassesToTheNextBinder() {
    FrameworkRuntime fw = bothMultiPoint();
    a.bind = Status.skip();
    Status s = fw.runBindPlugins(new CycleState(), pod, "n1");
    assertThat(s.isSuccess()).isTrue();
    assertThat(s.plugin()).isEqualTo("B");
    assertThat(log).containsExactly("A.Bind", "B.Bind");
  }

  @Test
  void preBindFailureIsReportedWithItsPlugin() {
    FrameworkRuntime fw = bothMultiPoint();
    b.preBind = Status.error("volume");
    Status s = fw.runPreBindPlugins(new CycleState(), pod, "n1");
    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(s.plugin()).isEqualTo("B");
  }

  @Test
  void preBindPreFlightsSucceedWhenAnyPluginHasWork() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preBindPreFlight = Status.skip();

    assertThat(fw.runPreBindPreFlights(new CycleState(), pod, "n1")).isEqualTo(Status.SUCCESS);
    assertThat(log).containsExactly("A.PreBindPreFlight", "B.PreBindPreFlight");
  }

  @Test
  void aPluginThatSkipsItsPreFlightDoesNotRunPreBind() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preBindPreFlight = Status.skip();
    CycleState state = new CycleState();
    fw.runPreBindPreFlights(state, pod, "n1");
    log.clear();

    assertThat(fw.runPreBindPlugins(state, pod, "n1")).isEqualTo(Status.SUCCESS);

    assertThat(log).containsExactly("B.PreBind");
    assertThat(state.copy().skipPreBindPlugins()).containsExactly("A");
  }

  @Test
  void withoutPreFlightsEveryPreBindRuns() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preBindPreFlight = Status.skip();

    fw.runPreBindPlugins(new CycleState(), pod, "n1");

    assertThat(log).containsExactly("A.PreBind", "B.PreBind");
  }

  @Test
  void preBindPreFlightsSkipWhenEveryPluginSkips() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preBindPreFlight = Status.skip();
    b.preBindPreFlight = Status.skip();

    assertThat(fw.runPreBindPreFlights(new CycleState(), pod, "n1").isSkip()).isTrue();
  }

  @Test
  void preBindPreFlightErrorIsReportedWithItsPlugin() {
    FrameworkRuntime fw = bothMultiPoint();
    b.preBindPreFlight = Status.error("no volume");

    Status s = fw.runPreBindPreFlights(new CycleState(), pod, "n1");

    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(s.plugin()).isEqualTo("B");
    assertThat(s.message()).contains("running PreBindPreFlight \"B\"");
  }

  @Test
  void aPreBindPreFlightRejectionIsAnUnsupportedStatusError() {
    FrameworkRuntime fw = bothMultiPoint();
    a.preBindPreFlight = Status.unschedulable("nope");

    Status s = fw.runPreBindPreFlights(new CycleState(), pod, "n1");

    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(s.message()).contains("PreBindPreFlight A returned").contains("unsupported");
    assertThat(log).containsExactly("A.PreBindPreFlight");
  }

  @Test
  void aPreBindPluginWithoutPreFlightIsAssumedToHaveWork() {
    PreBindPlugin legacy = new PreBindPlugin() {
      @Override
      public String name() {
        return "Legacy";
      }

      @Override
      public Status preBind(CycleState state, Pod p, String nodeName) {
        return Status.SUCCESS;
      }
    };

    assertThat(legacy.preBindPreFlight(new CycleState(), pod, "n1")).isEqualTo(Status.SUCCESS);
  }

  @Test
  void nominatedPodsOfHigherPriorityAreAddedWhenFiltering() {
    Pod nominated = new PodBuilder().withNewMetadata().withNamespace("ns").withName("big")
        .withUid("uid-big").endMetadata().withNewSpec().withPriority(10).endSpec().build();
    Map<ExtensionPoint, PluginSet> sets = new EnumMap<>(ExtensionPoint.class);
    sets.put(ExtensionPoint.QUEUE_SORT, new PluginSet(List.of(PluginRef.of("A")), List.of("*")));
    ProfileConfig profile = new ProfileConfig("test", sets,
        PluginSet.enabled(PluginRef.of("A"), PluginRef.of("B")), Map.of(), OptionalInt.empty());
    FrameworkRuntime fw = FrameworkRuntime.builder(registry(), profile)
        .nominator(n -> n.equals("n1") ? List.of(io.berth.framework.PodInfo.of(nominated)) : List.of())
        .build();
    // A rejects a node holding the nominated pod: the pod must fit with it
    a.filter = n -> n.pods().isEmpty() ? Status.SUCCESS : Status.unschedulable("occupied");
    Status s = fw.runFilterPluginsWithNominatedPods(new CycleState(), pod, node("n1"));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(fw.runFilterPluginsWithNominatedPods(new CycleState(), pod, node("n2")).isSuccess())
        .isTrue();
  }

  /** Upstream's rule: nominated pods of equal or higher priority are added, lower ones and the pod itself are not. */
  @Test
  void onlyOtherNominatedPodsOfEqualOrHigherPriorityAreAdded() {
    Pod self = new PodBuilder().withNewMetadata().withNamespace("ns").withName("self")
        .withUid(new String("uid-self")).endMetadata().withNewSpec().withPriority(5).endSpec().build();
    java.util.function.BiFunction<String, Integer, Pod> nominatedPod = (name, priority) -> new PodBuilder()
        .withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name).endMetadata()
        .withNewSpec().withPriority(priority).endSpec().build();
    List<io.berth.framework.PodInfo> nominated = List.of(
        io.berth.framework.PodInfo.of(nominatedPod.apply("lower", 4)),
        io.berth.framework.PodInfo.of(nominatedPod.apply("self", 9)), // the pod itself, an older version
        io.berth.framework.PodInfo.of(nominatedPod.apply("equal", 5)),
        io.berth.framework.PodInfo.of(nominatedPod.apply("higher", 6)),
        io.berth.framework.PodInfo.of(new PodBuilder().withNewMetadata().withNamespace("ns").withName("unset")
            .withUid("uid-unset").endMetadata().build()));
    Map<ExtensionPoint, PluginSet> sets = new EnumMap<>(ExtensionPoint.class);
    sets.put(ExtensionPoint.QUEUE_SORT, new PluginSet(List.of(PluginRef.of("A")), List.of("*")));
    ProfileConfig profile = new ProfileConfig("test", sets,
        PluginSet.enabled(PluginRef.of("A"), PluginRef.of("B")), Map.of(), OptionalInt.empty());
    FrameworkRuntime fw = FrameworkRuntime.builder(registry(), profile)
        .nominator(n -> n.equals("n1") ? nominated : List.of())
        .build();
    List<List<String>> seen = new ArrayList<>();
    a.filter = n -> {
      seen.add(n.pods().stream().map(p -> p.pod().getMetadata().getName()).toList());
      return Status.SUCCESS;
    };
    assertThat(fw.runFilterPluginsWithNominatedPods(new CycleState(), self, node("n1")).isSuccess()).isTrue();
    // once with the kept nominated pods, once without any
    assertThat(seen).containsExactly(List.of("equal", "higher"), List.of());

    // a pod of priority 0 also keeps the one without a priority (read as 0)
    seen.clear();
    Pod low = nominatedPod.apply("low", 0);
    assertThat(fw.runFilterPluginsWithNominatedPods(new CycleState(), low, node("n1")).isSuccess()).isTrue();
    assertThat(seen).containsExactly(List.of("lower", "self", "equal", "higher", "unset"), List.of());
  }

  @Test
  void filterRunsConcurrentlyOverManyNodes() {
    FrameworkRuntime fw = bothMultiPoint();
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      nodes.add(node("n" + i));
    }
    a.filter = n -> Integer.parseInt(n.nodeName().substring(1)) % 2 == 0 ? Status.SUCCESS
        : Status.unschedulable("odd");
    boolean[] ok = new boolean[nodes.size()];
    CycleState state = new CycleState();
    fw.parallelizer().until(nodes.size(), i -> ok[i] = fw.runFilterPlugins(state, pod, nodes.get(i))
        .isSuccess());
    for (int i = 0; i < ok.length; i++) {
      assertThat(ok[i]).as("node %d", i).isEqualTo(i % 2 == 0);
    }
  }
}
