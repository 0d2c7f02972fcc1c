package io.berth.plugins.helper;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeScore;
import io.berth.framework.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NormalizeScoreTest {

  // cases from upstream's helper/normalize_score_test.go
  static Stream<Arguments> upstreamCases() {
    return Stream.of(
        Arguments.of(false, List.of(1L, 2L, 3L, 4L), List.of(25L, 50L, 75L, 100L)),
        Arguments.of(true, List.of(1L, 2L, 3L, 4L), List.of(75L, 50L, 25L, 0L)),
        Arguments.of(false, List.of(1000L, 10L, 20L, 30L), List.of(100L, 1L, 2L, 3L)),
        Arguments.of(true, List.of(1000L, 10L, 20L, 30L), List.of(0L, 99L, 98L, 97L)),
        Arguments.of(false, List.of(1L, 1L, 1L, 1L), List.of(100L, 100L, 100L, 100L)),
        Arguments.of(false, List.of(1000L, 1L, 1L, 1L), List.of(100L, 0L, 0L, 0L)),
        Arguments.of(true, List.of(0L, 1L, 1L, 1L), List.of(100L, 0L, 0L, 0L)));
  }

  @ParameterizedTest(name = "reverse={0} {1} -> {2}")
  @MethodSource("upstreamCases")
  void scalesToMaxPriorityAndOptionallyReverses(boolean reverse, List<Long> raw,
      List<Long> expected) {
    List<NodeScore> scores = scores(raw);

    Status status = NormalizeScore.defaultNormalizeScore(100, reverse, scores);

    assertThat(status.isSuccess()).isTrue();
    assertThat(scores).extracting(NodeScore::score).containsExactlyElementsOf(expected);
  }

  @Test
  void allZeroScoresStayZeroUnlessReversed() {
    List<NodeScore> plain = scores(List.of(0L, 0L));
    List<NodeScore> reversed = scores(List.of(0L, 0L));

    NormalizeScore.defaultNormalizeScore(100, false, plain);
    NormalizeScore.defaultNormalizeScore(100, true, reversed);

    assertThat(plain).extracting(NodeScore::score).containsExactly(0L, 0L);
    assertThat(reversed).extracting(NodeScore::score).containsExactly(100L, 100L);
  }

  @Test
  void honoursAnotherMaxPriorityAndKeepsNames() {
    List<NodeScore> scores = scores(List.of(3L, 6L));

    NormalizeScore.defaultNormalizeScore(10, false, scores);

    assertThat(scores).extracting(NodeScore::score).containsExactly(5L, 10L);
    assertThat(scores).extracting(NodeScore::name).containsExactly("node0", "node1");
  }

  @Test
  void emptyListIsFine() {
    assertThat(NormalizeScore.defaultNormalizeScore(100, true, new ArrayList<>()).isSuccess())
        .isTrue();
  }

  private static List<NodeScore> scores(List<Long> raw) {
    List<NodeScore> out = new ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      out.add(new NodeScore("node" + i, raw.get(i)));
    }
    return out;
  }
}
