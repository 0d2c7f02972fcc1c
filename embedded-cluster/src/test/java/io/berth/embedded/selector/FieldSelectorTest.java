package io.berth.embedded.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FieldSelectorTest {

  private static Function<String, Optional<String>> fields(Map<String, String> values) {
    return field -> Optional.ofNullable(values.get(field));
  }

  private static final Function<String, Optional<String>> BOUND_RUNNING =
      fields(Map.of("spec.nodeName", "node-1", "status.phase", "Running", "metadata.name", "web-1"));
  private static final Function<String, Optional<String>> UNBOUND_PENDING =
      fields(Map.of("spec.nodeName", "", "status.phase", "Pending", "metadata.name", "web-2"));

  @Test
  void emptySelectorMatchesEverything() {
    FieldSelector selector = FieldSelector.parse("");

    assertThat(selector.isEmpty()).isTrue();
    assertThat(selector.matches(BOUND_RUNNING)).isTrue();
  }

  @Test
  void emptyValueSelectsUnboundPods() {
    FieldSelector selector = FieldSelector.parse("spec.nodeName=");

    assertThat(selector.matches(UNBOUND_PENDING)).isTrue();
    assertThat(selector.matches(BOUND_RUNNING)).isFalse();
  }

  @Test
  void notEqualsEmptyValueSelectsBoundPods() {
    FieldSelector selector = FieldSelector.parse("spec.nodeName!=");

    assertThat(selector.matches(BOUND_RUNNING)).isTrue();
    assertThat(selector.matches(UNBOUND_PENDING)).isFalse();
  }

  @Test
  void absentFieldReadsAsEmptyString() {
    assertThat(FieldSelector.parse("spec.nodeName=").matches(fields(Map.of()))).isTrue();
    assertThat(FieldSelector.parse("spec.nodeName!=node-1").matches(fields(Map.of()))).isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "status.phase=Running                       | true",
      "status.phase==Running                      | true",
      "status.phase!=Running                      | false",
      "status.phase!=Failed,spec.nodeName=node-1  | true",
      "status.phase!=Failed,spec.nodeName=node-2  | false",
      "metadata.name=web-1,                       | true",
  })
  void termsAreAnded(String selector, boolean expected) {
    assertThat(FieldSelector.parse(selector).matches(BOUND_RUNNING)).isEqualTo(expected);
  }

  @Test
  void escapedCommaAndEqualsBelongToTheValue() {
    FieldSelector selector = FieldSelector.parse("metadata.name=a\\,b\\=c\\\\d,status.phase=Running");

    assertThat(selector.requirements()).contains(new FieldRequirement("metadata.name", false, "a,b=c\\d"));
    assertThat(selector.matches(fields(Map.of("metadata.name", "a,b=c\\d", "status.phase", "Running")))).isTrue();
    assertThat(FieldSelector.parse(selector.toString())).isEqualTo(selector);
  }

  @Test
  void firstOperatorSplitsTheTerm() {
    FieldSelector selector = FieldSelector.parse("a!=b");

    assertThat(selector.requirements()).containsExactly(new FieldRequirement("a", true, "b"));
  }

  @Test
  void requiredValueReportsAnExactMatchTerm() {
    FieldSelector selector = FieldSelector.parse("status.phase!=Failed,spec.nodeName=node-1");

    assertThat(selector.requiredValue("spec.nodeName")).contains("node-1");
    assertThat(selector.requiredValue("status.phase")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "spec.nodeName                 | can't understand 'spec.nodeName'",
      "a=b,c                         | can't understand 'c'",
      "a=b=c                         | unescaped character in value: =",
      "a=b\\x                        | invalid escape sequence: \\x",
      "a=b\\                         | invalid escape sequence: \\",
  })
  void malformedSelectorNamesTheOffendingTerm(String selector, String expectedMessagePart) {
    assertThatThrownBy(() -> FieldSelector.parse(selector))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(expectedMessagePart);
  }
}
