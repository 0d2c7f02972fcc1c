package io.berth.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScores;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Score pass with its per-plugin scores kept ({@link FrameworkRuntime#runScorePluginsKeeping}):
 * re-scoring one node gives what a full pass over the same nodes gives, and is refused when the
 * node's raw score for a plugin with NormalizeScore moved (the normalization of every node could
 * change) or PreScore now skips another plugin.
 */
class RetainedScoresTest {
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  // A: no normalization, reads a per-node value the test changes; B: normalized to max 100
  private final RecordingPlugin a = new RecordingPlugin("A", log);
  private final RecordingPlugin b = new RecordingPlugin("B", log);
  private final Map<String, Long> aScore = new ConcurrentHashMap<>();
  private final Map<String, Long> bScore = new ConcurrentHashMap<>();
  private final Pod pod = new PodBuilder().withNewMetadata().withNamespace("ns").withName("p")
      .withUid("uid-p").endMetadata().withNewSpec().endSpec().build();
  private final List<NodeInfo> nodes = List.of(node("n0"), node("n1"), node("n2"));
  private FrameworkRuntime fw;

  @BeforeEach
  void setUp() {
    a.score = n -> aScore.get(n.nodeName());
    b.score = n -> bScore.get(n.nodeName());
    b.normalize = scores -> {
      long max = scores.stream().mapToLong(x -> x.score()).max().orElse(1);
      scores.forEach(x -> x.setScore(max == 0 ? 0 : x.score() * 100 / max));
      return Status.SUCCESS;
    };
    aScore.putAll(Map.of("n0", 10L, "n1", 60L, "n2", 30L));
    bScore.putAll(Map.of("n0", 4L, "n1", 2L, "n2", 1L));
    Map<ExtensionPoint, PluginSet> sets = new EnumMap<>(ExtensionPoint.class);
    sets.put(ExtensionPoint.QUEUE_SORT, new PluginSet(List.of(PluginRef.of("A")), List.of("*")));
    ProfileConfig profile = new ProfileConfig("test", sets,
        PluginSet.enabled(new PluginRef("A", 2), new PluginRef("B", 3)), Map.of(),
        OptionalInt.empty());
    fw = FrameworkRuntime.builder(new Registry().register("A", RecordingPlugin.factory(a))
        .register("B", RecordingPlugin.factory(b)), profile)
        .parallelizer(new DefaultParallelizer(2)).build();
  }

  private static NodeInfo node(String name) {
    return NodeInfo.of(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build());
  }

  @Test
  void keptTotalsAreThoseOfThePlainPass() {
    long[] plain = fw.runScorePlugins(new CycleState(), pod, nodes);
    NodeScores kept = fw.runScorePluginsKeeping(new CycleState(), pod, nodes);
    assertThat(kept.totals()).containsExactly(plain);
    // B normalized to 100/50/25 with weight 3, A raw with weight 2
    assertThat(plain).containsExactly(10 * 2 + 100 * 3, 60 * 2 + 50 * 3, 30 * 2 + 25 * 3);
  }

  @Test
  void aNodeWhoseUnnormalizedScoreMovedIsRescoredAsAFullPassWouldScoreIt() {
    NodeScores kept = fw.runScorePluginsKeeping(new CycleState(), pod, nodes);
    aScore.put("n1", 5L);
    long full = fw.runScorePlugins(new CycleState(), pod, nodes)[1];
    assertThat(kept.rescore(new CycleState(), pod, 1, node("n1"))).hasValue(full);
    assertThat(kept.totals()[1]).isEqualTo(full);
    // the others keep theirs
    assertThat(kept.totals()[0]).isEqualTo(10 * 2 + 100 * 3);
  }

  @Test
  void aNodeWhoseNormalizedPluginsRawScoreMovedIsRefused() {
    NodeScores kept = fw.runScorePluginsKeeping(new CycleState(), pod, nodes);
    long before = kept.totals()[0];
    // n0 is B's maximum: lowering it rescales every node, so one node cannot be refreshed alone
    bScore.put("n0", 3L);
    assertThat(kept.rescore(new CycleState(), pod, 0, node("n0"))).isEmpty();
    assertThat(kept.totals()[0]).isEqualTo(before);
  }

  @Test
  void aPreScoreThatSkipsAnotherPluginIsRefused() {
    NodeScores kept = fw.runScorePluginsKeeping(new CycleState(), pod, nodes);
    a.preScore = Status.skip();
    CycleState state = new CycleState();
    assertThat(kept.rescore(state, pod, 2, node("n2"))).isEmpty();
    // PreScore ran on a copy: the member's own state is untouched
    assertThat(state.skipScorePlugins()).isEmpty();
  }

  @Test
  void aPluginFailureOrAnOutOfRangeScoreIsRefusedNotThrown() {
    NodeScores kept = fw.runScorePluginsKeeping(new CycleState(), pod, nodes);
    aScore.put("n2", 101L);
    assertThat(kept.rescore(new CycleState(), pod, 2, node("n2"))).isEmpty();
    a.score = n -> {
      throw new IllegalStateException("boom");
    };
    assertThat(kept.rescore(new CycleState(), pod, 2, node("n2"))).isEmpty();
    assertThat(kept.rescore(new CycleState(), pod, 7, node("n2"))).isEmpty();
  }
}
