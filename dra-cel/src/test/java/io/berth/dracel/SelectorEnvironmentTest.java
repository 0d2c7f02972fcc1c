package io.berth.dracel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SelectorEnvironmentTest {

  @Test
  void syntaxErrorsAreInvalidWithTheCompilersMessage() {
    Compilation c = SelectorEnvironment.compile("?!", true);
    assertThat(c.failure()).contains(Compilation.Failure.INVALID);
    assertThat(c.error().orElseThrow()).startsWith("compilation failed: ERROR: <input>:1:1: ");
    assertThat(c.ast()).isEmpty();
    assertThat(c.exceedsCostLimit()).isFalse();
  }

  @Test
  void aResultThatIsNotABoolIsInvalidInUpstreamsWords() {
    Compilation c = SelectorEnvironment.compile("1", true);
    assertThat(c.failure()).contains(Compilation.Failure.INVALID);
    assertThat(c.error()).contains("must evaluate to bool or the unknown type, not int");
  }

  @Test
  void unknownFieldsOfTheDeviceDoNotCompile() {
    // upstream's kubernetes.DRADevice: driver, attributes, capacity
    assertThat(SelectorEnvironment.compile("device.nosuch == 1", true).error().orElseThrow())
        .contains("undefined field 'nosuch'");
  }

  @Test
  void undeclaredFunctionsDoNotCompile() {
    assertThat(SelectorEnvironment.compile("device.driver.noSuchFunction()", true).error()
        .orElseThrow()).contains("noSuchFunction");
  }

  @Test
  void lengthIsCountedInUtf8Bytes() {
    // 'é' is two bytes: 5,121 of them are 10,242 bytes, over the limit though 5,121 characters
    String expr = "'" + "é".repeat(5_119) + "' == ''";
    assertThat(expr.length()).isLessThan(SelectorEnvironment.MAX_EXPRESSION_LENGTH);
    assertThat(SelectorEnvironment.compile(expr, true).failure())
        .contains(Compilation.Failure.TOO_LONG);
  }

  @Test
  void withoutEstimationTheCostIsUnbounded() {
    Compilation c = SelectorEnvironment.compile("device.driver == 'x'", false);
    assertThat(c.ast()).isPresent();
    assertThat(c.maxCost()).isEqualTo(Range.UNBOUNDED);
    assertThat(c.exceedsCostLimit()).isFalse();
  }
}
