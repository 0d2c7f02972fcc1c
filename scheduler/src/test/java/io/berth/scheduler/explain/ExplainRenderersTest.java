package io.berth.scheduler.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.scheduler.explain.Attempt.Outcome;
import io.berth.scheduler.explain.Attempt.PluginVerdict;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ExplainRenderersTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static Attempt mixed() {
    List<NodeVerdict> rejected = List.of(
        new NodeVerdict("gpu-1", false, "TaintToleration", "UnschedulableAndUnresolvable",
            "node(s) had untolerated taint {dedicated: gpu}", Optional.empty(), 0),
        new NodeVerdict("small-1", false, "NodeResourcesFit", "Unschedulable", "Insufficient cpu",
            Optional.of("needs 1500m cpu more"), 0.75),
        new NodeVerdict("small-2", false, "NodeResourcesFit", "Unschedulable", "Insufficient cpu",
            Optional.of("needs 500m cpu more"), 0.25));
    FilterTable filter = new FilterTable(List.of("TaintToleration", "NodeResourcesFit"), 3,
        List.of(), rejected, Optional.empty());
    return new Attempt("demo", "web", "u1", "default-scheduler",
        Instant.parse("2026-12-01T12:00:00Z"), 2, Outcome.UNSCHEDULABLE,
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu.",
        List.of(new PluginVerdict("NodeResourcesFit", "Success", "", Optional.empty())), filter,
        List.of(), ScoreTable.EMPTY, Optional.empty(), Optional.empty(),
        List.of(new PluginVerdict("DefaultPreemption", "Unschedulable",
            "preemption: not eligible", Optional.empty())), Optional.empty(), List.of(), List.of(),
        List.of(), List.of());
  }

  private static Attempt scored() {
    ScoreTable scores = new ScoreTable(List.of("NodeResourcesFit", "TaintToleration"),
        new int[] {1, 3}, List.of("a", "b"), new long[][] {{40, 70}, {0, 2}},
        new long[][] {{40, 70}, {100, 0}});
    FilterTable filter = new FilterTable(List.of("NodeResourcesFit"), 2, List.of("a", "b"),
        List.of(), Optional.empty());
    return new Attempt("demo", "api", "u2", "default-scheduler",
        Instant.parse("2026-12-01T12:00:00Z"), 1, Outcome.SCHEDULED, "", List.of(), filter,
        List.of(), scores, Optional.of("a"), Optional.empty(), List.of(), Optional.empty(),
        List.of(), List.of(), List.of(),
        List.of(new PluginVerdict("DefaultBinder", "Success", "", Optional.empty())));
  }

  @Test
  void summaryCountsRejectionsAndRanksTheNearestNodes() {
    Summary s = Summary.of(mixed().filter());
    assertThat(s.rejections()).containsExactly(
        java.util.Map.entry("NodeResourcesFit: Insufficient cpu", 2),
        java.util.Map.entry("TaintToleration: node(s) had untolerated taint {dedicated: gpu}", 1));
    // rejected by the later plugin first, smaller shortfall first
    assertThat(s.nearest()).extracting(NodeVerdict::node)
        .containsExactly("small-2", "small-1", "gpu-1");
  }

  @Test
  void textShowsTheSummaryAndEveryNode() {
    Explanation e = new Explanation("demo", "web", List.of(mixed()), Optional.of(new QueueState(
        "unschedulable", "unschedulable: waiting for a cluster event", List.of("NodeResourcesFit"),
        2, Optional.empty())));
    String text = ExplainText.render(e);
    assertThat(text).contains("Pod demo/web")
        .contains("Queue:    unschedulable")
        .contains("0/3 nodes are available")
        .containsPattern("2\\s+NodeResourcesFit: Insufficient cpu")
        .containsPattern("small-2\\s+NodeResourcesFit\\s+needs 500m cpu more")
        .containsPattern("gpu-1\\s+rejected\\s+TaintToleration\\s+node\\(s\\) had untolerated taint")
        .contains("DefaultPreemption");
  }

  @Test
  void textCutsLongNodeTablesAndSaysHowManyAreLeftOut() {
    Explanation e = new Explanation("ns", "p", List.of(Attempts.unschedulable("p", 1, 30)),
        Optional.empty());
    String text = ExplainText.render(e, 5);
    assertThat(text).contains("... 25 more node(s)");
    assertThat(text.lines().filter(l -> l.matches("\\s+node-\\d+\\s+rejected.*")).count())
        .isEqualTo(5);
  }

  @Test
  void textShowsTheScoreCellsAndTotals() {
    String text = ExplainText.render(new Explanation("demo", "api", List.of(scored()),
        Optional.empty()));
    assertThat(text).containsPattern("a\\s+40>40\\*1=40\\s+0>100\\*3=300\\s+340")
        .containsPattern("b\\s+70>70\\*1=70\\s+2>0\\*3=0\\s+70")
        .contains("Node:     a");
  }

  @Test
  void jsonHasEveryNodeAndScoresThatSumToTheTotal() throws Exception {
    Explanation e = new Explanation("demo", "api", List.of(mixed(), scored()), Optional.empty());
    JsonNode root = JSON.readTree(ExplainJson.render(e));
    assertThat(root.path("latest").path("outcome").asString()).isEqualTo("SCHEDULED");
    assertThat(root.path("latest").path("selectedNode").asString()).isEqualTo("a");
    JsonNode a = root.path("latest").path("scores").path("nodes").path("a");
    long sum = 0;
    for (JsonNode cell : a.path("plugins")) {
      assertThat(cell.path("weighted").asLong())
          .isEqualTo(cell.path("normalized").asLong() * cell.path("weight").asLong());
      sum += cell.path("weighted").asLong();
    }
    assertThat(a.path("total").asLong()).isEqualTo(sum).isEqualTo(340);
    assertThat(root.path("history")).hasSize(1);
    assertThat(root.path("history").get(0).path("outcome").asString()).isEqualTo("UNSCHEDULABLE");
    JsonNode first = ExplainJson.tree(new Explanation("demo", "web", List.of(mixed()),
        Optional.empty()));
    JsonNode nodes = first.path("latest").path("filter").path("nodes");
    assertThat(nodes.path("small-2").path("plugin").asString()).isEqualTo("NodeResourcesFit");
    assertThat(nodes.path("small-2").path("lacks").asString()).isEqualTo("needs 500m cpu more");
    assertThat(nodes.path("gpu-1").path("code").asString())
        .isEqualTo("UnschedulableAndUnresolvable");
    assertThat(first.path("summary").path("nearest").get(0).path("node").asString())
        .isEqualTo("small-2");
  }
}
