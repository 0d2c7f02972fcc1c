package io.berth.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.BatchMetrics;
import io.berth.framework.CycleState;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeHints.NodeHint;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.PodSignature;
import io.berth.framework.SortedScoredNodes;
import io.berth.framework.Status;
import io.berth.framework.testing.ListNodeInfoLister;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's {@code runtime/batch_test.go} (TestBatchBasic) translated, plus the invalidations it
 * does not reach (age, a missing node) and the metrics each path records.
 */
class OpportunisticBatchTest {
  /** Each node holds at most one pod whose UID starts with this: such pods block each other. */
  private static final char BLOCKING = 'b';
  private static final char NON_BLOCKING = 'a';

  private final AtomicReference<NodeInfoLister> snapshot =
      new AtomicReference<>(new ListNodeInfoLister(List.of()));
  private final AtomicReference<PodSignature> signature = new AtomicReference<>();
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final RecordingMetrics metrics = new RecordingMetrics();
  private final OpportunisticBatch batch = new OpportunisticBatch(runtime(), p -> signature.get(),
      metrics, clock::get);

  /** The batchTest Filter plugin of upstream's test. */
  static final class BlockingFilter implements FilterPlugin {
    @Override
    public String name() {
      return "batchTest";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
      String uid = pod.getMetadata().getUid();
      for (var p : nodeInfo.pods()) {
        if (uid.charAt(0) == BLOCKING && p.pod().getMetadata().getUid().charAt(0) == BLOCKING) {
          return Status.unschedulable("unsched");
        }
      }
      return Status.SUCCESS;
    }
  }

  private FrameworkRuntime runtime() {
    RecordingPlugin sortAndBind = new RecordingPlugin("Q", new ArrayList<>());
    Registry registry = new Registry().register("Q", RecordingPlugin.factory(sortAndBind))
        .register("batchTest", (args, h) -> new BlockingFilter());
    Map<ExtensionPoint, PluginSet> sets = new EnumMap<>(ExtensionPoint.class);
    sets.put(ExtensionPoint.QUEUE_SORT, PluginSet.enabled(PluginRef.of("Q")));
    sets.put(ExtensionPoint.BIND, PluginSet.enabled(PluginRef.of("Q")));
    sets.put(ExtensionPoint.FILTER, PluginSet.enabled(PluginRef.of("batchTest")));
    ProfileConfig profile = new ProfileConfig("test", sets, PluginSet.EMPTY, Map.of(),
        OptionalInt.empty());
    return FrameworkRuntime.builder(registry, profile).snapshot(snapshot::get).build();
  }

  static PodSignature sig(String s) {
    return PodSignature.of(Map.of("test", s));
  }

  static Pod pod(String uid) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName("pod-" + uid)
        .withUid(uid).endMetadata().withNewSpec().endSpec().build();
  }

  static String blocking(String suffix) {
    return BLOCKING + "-" + suffix;
  }

  static String nonBlocking(String suffix) {
    return NON_BLOCKING + "-" + suffix;
  }

  /** A sorted list that hands out its names in order. */
  static final class ListNodes implements SortedScoredNodes {
    private final List<String> names;

    ListNodes(String... names) {
      this.names = new ArrayList<>(List.of(names));
    }

    @Override
    public String pop() {
      return names.remove(0);
    }

    @Override
    public int size() {
      return names.size();
    }
  }

  /** One row of upstream's table. */
  record Case(String name, String firstPodId, String firstSig, boolean firstScheduled,
      String firstChosenNode, SortedScoredNodes firstOtherNodes, boolean skipPod,
      String secondPodId, String secondSig, String secondChosenNode, String expectedHint,
      String expectedStateSig, int expectedRemaining) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> basicCases() {
    return Stream.of(
        new Case("a second pod with the same signature gets a hint", blocking("1"), "sig", true,
            "n3", new ListNodes("n1"), false, blocking("2"), "sig", "n1", "n1", null, 0),
        new Case("a second pod with a different signature doesn't get a hint", nonBlocking("1"),
            "sig", true, "n3", new ListNodes("n1"), false, nonBlocking("2"), "sig2", "n1", null,
            null, 0),
        new Case("a second pod doesn't get a hint if it's not 1-pod-per-node", nonBlocking("1"),
            "sig", true, "n3", new ListNodes("n1"), false, nonBlocking("2"), "sig", "n1", null,
            null, 0),
        new Case("pod doesn't get hint if previous pod didn't get scheduled", blocking("1"), "sig",
            false, "n3", new ListNodes("n1"), false, blocking("2"), "sig", "n1", null, null, 0),
        new Case("empty list", blocking("1"), "sig", true, "n3", new ListNodes(), false,
            blocking("2"), "sig", "n4", null, null, 0),
        new Case("nil list", blocking("1"), "sig", true, "n3", null, false, blocking("2"), "sig",
            "n4", null, null, 0),
        new Case("pod doesn't get hint because the previous pod is to a different profile",
            blocking("1"), "sig", true, "n3", new ListNodes("n1"), true, blocking("2"), "sig", "n1",
            null, null, 0),
        new Case("pod uses batch from preceding pod and leaves remaining batch to next pod",
            blocking("1"), "sig", true, "n3", new ListNodes("n1", "n2"), false, blocking("2"),
            "sig", "n1", "n1", "sig", 1)
    ).map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("basicCases")
  void secondPodGetsTheHintOnlyWhenTheFirstCycleStillApplies(Case tt) {
    Pod first = pod(tt.firstPodId());
    signature.set(sig(tt.firstSig()));
    CycleState state = new CycleState();
    NodeHint hint = batch.getNodeHint(state, first, 1);
    assertThat(hint.node()).isNull();
    if (tt.firstScheduled()) {
      batch.storeScheduleResults(sig(tt.firstSig()), hint.node(), tt.firstChosenNode(),
          tt.firstOtherNodes(), 1);
    }
    long cycle = tt.skipPod() ? 3 : 2;
    // the first pod is now on the node it was given
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName(tt.firstChosenNode()).withUid(tt.firstChosenNode()).endMetadata().build(),
        first))));
    signature.set(sig(tt.secondSig()));
    hint = batch.getNodeHint(state, pod(tt.secondPodId()), cycle);
    assertThat(hint.node()).isEqualTo(tt.expectedHint());
    assertThat(hint.signature()).isEqualTo(sig(tt.secondSig()));
    batch.storeScheduleResults(sig(tt.secondSig()), hint.node(), tt.secondChosenNode(), null,
        cycle);
    // upstream's "empty" state: none, or no nodes left
    assertThat(batch.remainingNodes()).isEqualTo(tt.expectedRemaining());
    if (tt.expectedStateSig() != null) {
      assertThat(batch.stateSignature()).isEqualTo(sig(tt.expectedStateSig()));
    }
  }

  private void scheduleFirstBlockingPodOn(String node, SortedScoredNodes others) {
    Pod first = pod(blocking("1"));
    signature.set(sig("sig"));
    NodeHint hint = batch.getNodeHint(new CycleState(), first, 1);
    batch.storeScheduleResults(hint.signature(), hint.node(), node, others, 1);
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName(node).endMetadata().build(), first))));
  }

  @Test
  void aHintIsRecordedAsUsedWhenThePodGoesToIt() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1", "n2"));
    NodeHint hint = batch.getNodeHint(new CycleState(), pod(blocking("2")), 2);
    batch.storeScheduleResults(hint.signature(), hint.node(), "n1", null, 2);
    assertThat(metrics.attempts).containsEntry("test/no_hint", 1L).containsEntry("test/hint_used",
        1L);
    assertThat(batch.batchedPods()).isEqualTo(1);
    // the next pod still gets the one after
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName("n1").endMetadata().build(), pod(blocking("2"))))));
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("3")), 3).node()).isEqualTo("n2");
  }

  @Test
  void aHintNotUsedReplacesTheStateWithTheNewCycle() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1", "n2"));
    NodeHint hint = batch.getNodeHint(new CycleState(), pod(blocking("2")), 2);
    assertThat(hint.node()).isEqualTo("n1");
    // the hint failed Filter: the full cycle chose n5 and left n6, n7
    batch.storeScheduleResults(hint.signature(), hint.node(), "n5", new ListNodes("n6", "n7"), 2);
    assertThat(metrics.attempts).containsEntry("test/hint_not_used", 1L);
    assertThat(batch.remainingNodes()).isEqualTo(2);
  }

  @Test
  void stateOlderThanTheMaximumAgeIsFlushed() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1"));
    clock.addAndGet(OpportunisticBatch.MAX_BATCH_AGE.toNanos() + 1);
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("2")), 2).node()).isNull();
    assertThat(metrics.flushes).containsEntry("test/expired", 1L);
  }

  @Test
  void stateJustYoungerThanTheMaximumAgeIsUsed() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1"));
    clock.addAndGet(OpportunisticBatch.MAX_BATCH_AGE.toNanos() - 1);
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("2")), 2).node()).isEqualTo("n1");
  }

  @Test
  void previousNodeGoneFromTheSnapshotFlushesTheState() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1"));
    snapshot.set(new ListNodeInfoLister(List.of()));
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("2")), 2).node()).isNull();
    assertThat(metrics.flushes).containsEntry("test/node_missing", 1L);
  }

  @Test
  void flushReasonsAreRecordedByName() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1", "n2"));
    signature.set(sig("other"));
    batch.getNodeHint(new CycleState(), pod(blocking("2")), 2);
    signature.set(sig("sig"));
    batch.getNodeHint(new CycleState(), pod(blocking("3")), 9);
    batch.getNodeHint(new CycleState(), pod(nonBlocking("4")), 2);
    assertThat(metrics.flushes).containsEntry("test/pod_incompatible", 1L)
        .containsEntry("test/pod_skipped", 1L).containsEntry("test/node_not_full", 1L);
  }

  @Test
  void anUnsignablePodWithOtherNodesFlushesAsNotBatchable() {
    batch.storeScheduleResults(null, null, "n1", new ListNodes("n2"), 1);
    batch.storeScheduleResults(sig("sig"), null, "n1", null, 2);
    assertThat(metrics.flushes).containsEntry("test/pod_not_batchable", 1L)
        .containsEntry("test/empty_list", 1L);
    assertThat(batch.remainingNodes()).isZero();
  }

  @Test
  void anUnsignablePodNeverGetsAHint() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1"));
    signature.set(null);
    NodeHint hint = batch.getNodeHint(new CycleState(), pod(blocking("2")), 2);
    assertThat(hint.node()).isNull();
    assertThat(hint.signature()).isNull();
  }

  @Test
  void hintDurationsAreObservedWithTheHintedLabel() {
    scheduleFirstBlockingPodOn("n3", new ListNodes("n1"));
    batch.getNodeHint(new CycleState(), pod(blocking("2")), 2);
    assertThat(metrics.hintDurations).containsEntry("no_hint/test", 1L)
        .containsEntry("hint/test", 1L);
    assertThat(metrics.storeDurations).containsEntry("test", 1L);
  }

  /** A sorted list that takes back the nodes it is told to, with a fixed place (first). */
  static final class RefreshingNodes implements SortedScoredNodes {
    final List<String> names;
    final List<String> refreshed = new ArrayList<>();
    volatile boolean refuse;

    RefreshingNodes(String... names) {
      this.names = new ArrayList<>(List.of(names));
    }

    @Override
    public String pop() {
      return names.remove(0);
    }

    @Override
    public int size() {
      return names.size();
    }

    @Override
    public boolean refresh(CycleState state, Pod pod, NodeInfo node) {
      if (refuse) {
        return false;
      }
      refreshed.add(node.nodeName());
      names.add(0, node.nodeName());
      return true;
    }
  }

  @Test
  void onTheSameSnapshotAPreviousNodeThatStillFitsIsRefreshedAndHandedOutAgain() {
    // a non-blocking pod leaves its node fitting the next one: per pod that flushes the batch
    Pod first = pod(nonBlocking("1"));
    signature.set(sig("sig"));
    NodeHint hint = batch.getNodeHint(new CycleState(), first, 1, false);
    RefreshingNodes others = new RefreshingNodes("n1", "n2");
    batch.storeScheduleResults(hint.signature(), hint.node(), "n3", others, 1);
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName("n3").endMetadata().build(), first))));
    // a group cycle's next member: n3 still fits, is re-scored and (here) comes out on top again
    hint = batch.getNodeHint(new CycleState(), pod(nonBlocking("2")), 2, true);
    assertThat(hint.node()).isEqualTo("n3");
    assertThat(others.refreshed).containsExactly("n3");
    assertThat(batch.refreshedNodes()).isEqualTo(1);
    assertThat(metrics.flushes).isEmpty();
    batch.storeScheduleResults(hint.signature(), hint.node(), "n3", null, 2);
    assertThat(batch.batchedPods()).isEqualTo(1);
    assertThat(batch.remainingNodes()).isEqualTo(2);
  }

  @Test
  void onTheSameSnapshotAFullPreviousNodeIsDroppedAsPerPod() {
    RefreshingNodes others = new RefreshingNodes("n1", "n2");
    scheduleFirstBlockingPodOn("n3", others);
    NodeHint hint = batch.getNodeHint(new CycleState(), pod(blocking("2")), 2, true);
    assertThat(hint.node()).isEqualTo("n1");
    assertThat(others.refreshed).isEmpty();
  }

  @Test
  void withoutTheSameSnapshotAFittingPreviousNodeStillFlushesAsUpstream() {
    Pod first = pod(nonBlocking("1"));
    signature.set(sig("sig"));
    RefreshingNodes others = new RefreshingNodes("n1");
    batch.storeScheduleResults(sig("sig"), null, "n3", others, 1);
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName("n3").endMetadata().build(), first))));
    assertThat(batch.getNodeHint(new CycleState(), pod(nonBlocking("2")), 2).node()).isNull();
    assertThat(others.refreshed).isEmpty();
    assertThat(metrics.flushes).containsEntry("test/node_not_full", 1L);
  }

  @Test
  void aRefreshTheListRefusesFlushesAsNodeNotFull() {
    Pod first = pod(nonBlocking("1"));
    signature.set(sig("sig"));
    RefreshingNodes others = new RefreshingNodes("n1");
    others.refuse = true;
    batch.storeScheduleResults(sig("sig"), null, "n3", others, 1);
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName("n3").endMetadata().build(), first))));
    assertThat(batch.getNodeHint(new CycleState(), pod(nonBlocking("2")), 2, true).node()).isNull();
    assertThat(metrics.flushes).containsEntry("test/node_not_full", 1L);
  }

  @Test
  void onTheSameSnapshotTheBatchDoesNotAgeOutButOtherwiseFollowsTheSameRules() {
    scheduleFirstBlockingPodOn("n3", new RefreshingNodes("n1", "n2"));
    clock.addAndGet(OpportunisticBatch.MAX_BATCH_AGE.toNanos() + 1);
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("2")), 2, true).node())
        .isEqualTo("n1");
    // another signature, or a cycle in between, still flushes
    signature.set(sig("other"));
    batch.storeScheduleResults(sig("sig"), "n1", "n1", null, 2);
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("3")), 3, true).node()).isNull();
    assertThat(metrics.flushes).containsEntry("test/pod_incompatible", 1L)
        .doesNotContainKey("test/expired");
  }

  @Test
  void onTheSameSnapshotAnEmptiedListTakesTheStillFittingPreviousNodeBack() {
    RefreshingNodes others = new RefreshingNodes("n1");
    scheduleFirstBlockingPodOn("n3", others);
    // the second member (blocking) finds n3 full and takes the last node, n1: the list is empty
    NodeHint h2 = batch.getNodeHint(new CycleState(), pod(blocking("2")), 2, true);
    assertThat(h2.node()).isEqualTo("n1");
    batch.storeScheduleResults(h2.signature(), h2.node(), "n1", null, 2);
    assertThat(batch.remainingNodes()).isZero();
    snapshot.set(new ListNodeInfoLister(List.of(NodeInfo.of(new NodeBuilder().withNewMetadata()
        .withName("n1").endMetadata().build(), pod(blocking("2"))))));
    // a third that n1 still fits gets n1 back rather than a full cycle
    NodeHint h3 = batch.getNodeHint(new CycleState(), pod(nonBlocking("3")), 3, true);
    assertThat(h3.node()).isEqualTo("n1");
    assertThat(others.refreshed).containsExactly("n1");
    // a blocking one finds nothing left: no hint, and no flush is recorded for an empty list
    batch.storeScheduleResults(h3.signature(), h3.node(), "n1", null, 3);
    assertThat(batch.getNodeHint(new CycleState(), pod(blocking("4")), 4, true).node()).isNull();
    assertThat(metrics.flushes).isEmpty();
  }

  /** Counts what the batch reports, by "profile/label". */
  static final class RecordingMetrics implements BatchMetrics {
    final Map<String, Long> attempts = new ConcurrentHashMap<>();
    final Map<String, Long> flushes = new ConcurrentHashMap<>();
    final Map<String, Long> hintDurations = new ConcurrentHashMap<>();
    final Map<String, Long> storeDurations = new ConcurrentHashMap<>();

    @Override
    public void batchAttempt(String profile, String result) {
      attempts.merge(profile + "/" + result, 1L, Long::sum);
    }

    @Override
    public void batchCacheFlushed(String profile, String reason) {
      flushes.merge(profile + "/" + reason, 1L, Long::sum);
    }

    @Override
    public void nodeHintDuration(boolean hinted, String profile, long nanos) {
      hintDurations.merge((hinted ? "hint" : "no_hint") + "/" + profile, 1L, Long::sum);
    }

    @Override
    public void storeScheduleResultsDuration(String profile, long nanos) {
      storeDurations.merge(profile, 1L, Long::sum);
    }
  }
}
