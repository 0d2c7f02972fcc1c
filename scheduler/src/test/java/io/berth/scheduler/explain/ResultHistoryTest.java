package io.berth.scheduler.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The {@code result-history} annotation's value: appended per attempt, kept within budget. */
class ResultHistoryTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static Map<String, String> values(String node, int padding) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(ResultAnnotations.SELECTED_NODE, node);
    m.put(ResultAnnotations.FILTER, "{\"pad\":\"" + "x".repeat(padding) + "\"}");
    return m;
  }

  @Test
  void eachAttemptIsAppendedPerPod() {
    ResultAnnotations r = new ResultAnnotations(null, new SimpleMeterRegistry());
    r.appendHistory("uid-a", values("", 1));
    r.appendHistory("uid-b", values("other", 1));
    JsonNode h = JSON.readTree(r.appendHistory("uid-a", values("n1", 1)));
    assertThat(h.size()).isEqualTo(2);
    assertThat(h.get(0).path(ResultAnnotations.SELECTED_NODE).asString()).isEmpty();
    assertThat(h.get(1).path(ResultAnnotations.SELECTED_NODE).asString()).isEqualTo("n1");
  }

  @Test
  void anAttemptThatEndedAsThePreviousOneIsNotListedAgain() {
    ResultAnnotations r = new ResultAnnotations(null, new SimpleMeterRegistry());
    String first = r.appendHistory("uid", values("", 1));
    assertThat(r.appendHistory("uid", values("", 1))).isEqualTo(first);
    assertThat(JSON.readTree(r.appendHistory("uid", values("n", 1))).size()).isEqualTo(2);
  }

  @Test
  void theOldestAttemptsGoWhenTheHistoryWouldPassTheBudget() {
    ResultAnnotations r = new ResultAnnotations(null, new SimpleMeterRegistry());
    int big = ResultAnnotations.BUDGET / 5;
    String last = "";
    for (int i = 0; i < 6; i++) {
      last = r.appendHistory("uid", values("n" + i, big));
    }
    JsonNode h = JSON.readTree(last);
    // the current values take a fifth of the budget, each history entry as much
    assertThat(h.size()).isBetween(1, 3);
    assertThat(h.get(h.size() - 1).path(ResultAnnotations.SELECTED_NODE).asString())
        .isEqualTo("n5");
    assertThat(last.length() + big).isLessThanOrEqualTo(ResultAnnotations.BUDGET);
  }

  @Test
  void aHistoryThatCannotFitIsEmpty() {
    ResultAnnotations r = new ResultAnnotations(null, new SimpleMeterRegistry());
    assertThat(r.appendHistory("uid", values("n", ResultAnnotations.BUDGET - 100))).isEqualTo("[]");
  }
}
