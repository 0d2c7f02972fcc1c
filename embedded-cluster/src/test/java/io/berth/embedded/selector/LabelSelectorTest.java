package io.berth.embedded.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.selector.LabelRequirement.Operator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class LabelSelectorTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Map<String, String> WEB_PROD = Map.of("app", "web", "env", "prod", "tier", "frontend");

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "\t\n"})
  void emptyOrBlankSelectorMatchesEverything(String selector) {
    LabelSelector parsed = LabelSelector.parse(selector);

    assertThat(parsed.isEmpty()).isTrue();
    assertThat(parsed.matches(Map.of())).isTrue();
    assertThat(parsed.matches(WEB_PROD)).isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "app=web            | true",
      "app==web           | true",
      "app=db             | false",
      "app!=db            | true",
      "app!=web           | false",
      "missing!=x         | true",
      "missing=x          | false",
      "app                | true",
      "missing            | false",
      "!missing           | true",
      "!app               | false",
      "env in (dev,prod)  | true",
      "env in (dev)       | false",
      "missing in (a)     | false",
      "env notin (dev)    | true",
      "env notin (prod)   | false",
      "missing notin (a)  | true",
      "app=web,env=prod   | true",
      "app=web,env=dev    | false",
  })
  void matchesWithUpstreamSemantics(String selector, boolean expected) {
    assertThat(LabelSelector.parse(selector).matches(WEB_PROD)).isEqualTo(expected);
  }

  @Test
  void toleratesWhitespaceAroundTokens() {
    LabelSelector parsed = LabelSelector.parse("  app = web ,  env   in ( dev , prod ) ,  ! canary ");

    assertThat(parsed.requirements()).containsExactly(
        new LabelRequirement("app", Operator.EQUALS, List.of("web")),
        new LabelRequirement("canary", Operator.DOES_NOT_EXIST, List.of()),
        new LabelRequirement("env", Operator.IN, List.of("dev", "prod")));
    assertThat(parsed.matches(WEB_PROD)).isTrue();
  }

  @Test
  void requirementsAreSortedByKeyAndRenderCanonically() {
    LabelSelector parsed = LabelSelector.parse("z=1,a in (y,x,x),!m");

    assertThat(parsed.toString()).isEqualTo("a in (x,y),!m,z=1");
    assertThat(LabelSelector.parse(parsed.toString())).isEqualTo(parsed);
  }

  @Test
  void emptyValuesAreAllowedForEqualityAndSets() {
    assertThat(LabelSelector.parse("app=").matches(Map.of("app", ""))).isTrue();
    assertThat(LabelSelector.parse("app=").matches(Map.of("app", "web"))).isFalse();
    assertThat(LabelSelector.parse("app in ()").requirements().get(0).values()).containsExactly("");
    assertThat(LabelSelector.parse("app in (,a)").requirements().get(0).values()).containsExactly("", "a");
    assertThat(LabelSelector.parse("app in (a,)").requirements().get(0).values()).containsExactly("", "a");
  }

  @Test
  void keywordsAreOrdinaryIdentifiersOutsideOperatorPosition() {
    LabelSelector parsed = LabelSelector.parse("in in (notin,in)");

    assertThat(parsed.matches(Map.of("in", "notin"))).isTrue();
    assertThat(parsed.matches(Map.of("in", "x"))).isFalse();
  }

  @Test
  void prefixedKeysAreAccepted() {
    LabelSelector parsed = LabelSelector.parse("app.kubernetes.io/name=web,!node-role.kubernetes.io/control-plane");

    assertThat(parsed.matches(Map.of("app.kubernetes.io/name", "web"))).isTrue();
    assertThat(parsed.matches(Map.of("app.kubernetes.io/name", "web", "node-role.kubernetes.io/control-plane", "")))
        .isFalse();
  }

  @Test
  void greaterAndLessThanCompareIntegers() {
    assertThat(LabelSelector.parse("rank>5").matches(Map.of("rank", "6"))).isTrue();
    assertThat(LabelSelector.parse("rank>5").matches(Map.of("rank", "5"))).isFalse();
    assertThat(LabelSelector.parse("rank<5").matches(Map.of("rank", "-1"))).isTrue();
    assertThat(LabelSelector.parse("rank<5").matches(Map.of("rank", "abc"))).isFalse();
    assertThat(LabelSelector.parse("rank<5").matches(Map.of())).isFalse();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "app=web x         | found 'x', expected: ',' or 'end of string'",
      "app x             | found 'x', expected: in, notin, =, ==, !=, gt, lt",
      "app in x          | found 'x' expected: '('",
      "app in (a b)      | found 'b', expected: ',' or ')'",
      "app in (a         | found '', expected: ',' or ')'",
      "app=web,          | found '', expected: identifier after ','",
      "=web              | found '=', expected: !, identifier, or 'end of string'",
      "!app=web          | found '=', expected: ',' or 'end of string'",
      "app=(             | found '(', expected: identifier",
      "bad/key/x=1       | key: Invalid value: \"bad/key/x\"",
      "-app=1            | key: Invalid value: \"-app\"",
      "app=bad$value     | Invalid value: \"bad$value\"",
      "rank>x            | the value must be an integer",
  })
  void malformedSelectorNamesTheOffendingPart(String selector, String expectedMessagePart) {
    assertThatThrownBy(() -> LabelSelector.parse(selector))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(expectedMessagePart);
  }

  @Test
  void valueLongerThanSixtyThreeCharactersIsRejected() {
    String longValue = "v".repeat(64);

    assertThatThrownBy(() -> LabelSelector.parse("app=" + longValue))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be no more than 63 characters");
  }

  @Test
  void metaLabelSelectorCombinesMatchLabelsAndExpressions() {
    LabelSelector selector = LabelSelector.fromLabelSelector(json("""
        {"matchLabels": {"app": "web"},
         "matchExpressions": [
           {"key": "env", "operator": "In", "values": ["prod", "staging"]},
           {"key": "tier", "operator": "NotIn", "values": ["db"]},
           {"key": "team", "operator": "Exists"},
           {"key": "canary", "operator": "DoesNotExist"}]}
        """));

    assertThat(selector.matches(Map.of("app", "web", "env", "prod", "tier", "frontend", "team", "a"))).isTrue();
    assertThat(selector.matches(Map.of("app", "web", "env", "prod", "team", "a"))).isTrue();
    assertThat(selector.matches(Map.of("app", "web", "env", "prod", "tier", "db", "team", "a"))).isFalse();
    assertThat(selector.matches(Map.of("app", "web", "env", "prod", "team", "a", "canary", "1"))).isFalse();
    assertThat(selector.matches(Map.of("app", "web", "env", "prod"))).isFalse();
    assertThat(selector.matches(Map.of("app", "api", "env", "prod", "team", "a"))).isFalse();
  }

  @Test
  void emptyMetaLabelSelectorMatchesEverything() {
    LabelSelector selector = LabelSelector.fromLabelSelector(json("{}"));

    assertThat(selector.isEmpty()).isTrue();
    assertThat(selector.matches(WEB_PROD)).isTrue();
  }

  @Test
  void nullMetaLabelSelectorMatchesNothing() {
    assertThat(LabelSelector.fromLabelSelector(null).matches(Map.of())).isFalse();
    assertThat(LabelSelector.fromLabelSelector(json("null")).matches(WEB_PROD)).isFalse();
    assertThat(LabelSelector.fromLabelSelector(json("{\"spec\":{}}").path("selector")).matchesNothing()).isTrue();
    assertThat(LabelSelector.nothing().isEmpty()).isFalse();
  }

  @Test
  void metaLabelSelectorWithUnknownOperatorIsRejected() {
    assertThatThrownBy(() -> LabelSelector.fromLabelSelector(
        json("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"Gt\" is not a valid label selector operator");
  }

  @Test
  void metaLabelSelectorInWithoutValuesIsRejected() {
    assertThatThrownBy(() -> LabelSelector.fromLabelSelector(
        json("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("values set can't be empty");
  }

  @Test
  void metaLabelSelectorExistsWithValuesIsRejected() {
    assertThatThrownBy(() -> LabelSelector.fromLabelSelector(
        json("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("values set must be empty");
  }

  @Test
  void metaLabelSelectorWithInvalidMatchLabelKeyIsRejected() {
    assertThatThrownBy(() -> LabelSelector.fromLabelSelector(json("{\"matchLabels\":{\"a b\":\"x\"}}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"a b\"");
  }

  @Test
  void selectorIsSafeToShareAcrossThreads() throws Exception {
    LabelSelector selector = LabelSelector.parse("app=web,env in (prod)");
    List<Thread> threads = new ArrayList<>();
    AtomicInteger mismatches = new AtomicInteger();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < 10_000; i++) {
          if (!selector.matches(WEB_PROD) || selector.matches(Map.of("app", "db"))) {
            mismatches.incrementAndGet();
          }
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(mismatches.get()).isZero();
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
