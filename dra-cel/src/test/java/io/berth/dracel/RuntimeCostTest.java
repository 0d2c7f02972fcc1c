package io.berth.dracel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Runtime costs as cel-go's {@code CostTracker} charges them, derived by hand from its rules for
 * a device of driver {@code dra.example.com} with attributes {@code name: "fish"},
 * {@code services: "some_example_value"}, {@code index: 3} and capacity {@code memory: 1Mi}; and
 * the cost never exceeds the compile-time estimate (upstream's compile_test.go checks the same).
 */
class RuntimeCostTest {
  private static final Map<String, Object> DEVICE = Map.of(
      "driver", "dra.example.com",
      "allowMultipleAllocations", true,
      "attributes", Map.of("dra.example.com", Map.of("name", "fish",
          "services", "some_example_value", "index", 3L,
          "driverVersion", CelSemver.parse("1.2.3"))),
      "capacity", Map.of("dra.example.com", Map.of("memory", CelQuantity.parse("1Mi"))));

  private static long run(String expression, long limit) throws CelEvaluationException {
    CelAbstractSyntaxTree ast = SelectorEnvironment.compile(expression, false).ast().orElseThrow();
    CelRuntime.Program program = SelectorEnvironment.cel().createProgram(ast);
    CostTracker tracker = new RuntimeCostModel(ast).tracker(limit);
    program.trace(Map.of("device", DEVICE), tracker);
    return tracker.actualCost();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      // ident 1, select 1, equality ceil(0.1 * min(15, 15)) = 2
      "device.driver == \"dra.example.com\";4",
      // ident, select, index (its constant free), select: 4; equality ceil(0.1 * 4) = 1
      "device.attributes[\"dra.example.com\"].name == \"fish\";5",
      // 4, comparison of ints 1
      "device.attributes[\"dra.example.com\"].index > 2;5",
      // 4, quantity(\"1Ki\") ceil(0.1 * 3) = 1, isGreaterThan 1
      "device.capacity[\"dra.example.com\"].memory.isGreaterThan(quantity(\"1Ki\"));6",
      // range 2; one domain: step x == ... 1 + 2 and accu + 1 2; result accu == 1: 2
      "device.attributes.exists_one(x, x == \"dra.example.com\");9",
      // matches: ceil(0.1 * (18 + 1)) = 2 times ceil(0.25 * 3) = 1; receiver 4
      "device.attributes[\"dra.example.com\"].services.matches(\"exa\");6",
      // in a constant list: a set membership test (OptOptimize), only the element's 4
      "device.attributes[\"dra.example.com\"].name in [\"fish\", \"bird\"];4",
      // in a list that is not constant: the element 4, the list 10 + 2, its size 2
      "device.attributes[\"dra.example.com\"].name in [device.driver, \"bird\"];18",
      // all() over 10 constants (a folded constant list): result 1, each iteration 2
      // (condition) + 1 (accu) + 2 (x > 0)
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, x > 0);51",
      // two variables: result 1, each of 3 iterations 2 + 1 + 3 (v > i)
      "[1, 2, 3].all(i, v, v > i);19",
      // bind: the empty range is a constant, the bound value 3 (evaluated once), each
      // comparison 3
      "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name == \"fish\" && dra.index > 2);9",
      // a presence test is free (PresenceTestHasCost(false)), its operand is not
      "has(device.attributes[\"dra.example.com\"].name);3",
      // a conversion of a constant is folded
      "int('3') == device.attributes[\"dra.example.com\"].index;5",
      // DRAConsumableCapacity's field: ident, select
      "device.allowMultipleAllocations;2",
      // the Kubernetes libraries: 4, semver(\"1.0.0\") ceil(0.1 * 5), isGreaterThan 1
      "device.attributes[\"dra.example.com\"].driverVersion.isGreaterThan(semver(\"1.0.0\"));6",
      // find: 4, ceil(0.1 * (18 + 1)) * ceil(0.25 * 8); equality of 7 characters 1
      "device.attributes[\"dra.example.com\"].services.find(\"ex[a-z]+\") == \"example\";9",
      // lowerAscii: 2, ceil(0.1 * 15); equality of 15 characters 2
      "device.driver.lowerAscii() == \"dra.example.com\";6",
      // isSorted: the constant list is free, the traversal of 3 ints 3
      "[1, 2, 3].isSorted();3",
      // sum: the list 10 + 4, the traversal of 2 ints 2, equality 1
      "[device.attributes[\"dra.example.com\"].index, 2].sum() == 5;17",
      // sets.contains: the constant list free, the other 10 + 2, 1 + 2 * 1
      "sets.contains([\"a\", \"dra.example.com\"], [device.driver]);15",
      // split: 2, ceil(0.2 * 15); size() 1, equality 1
      "device.driver.split(\".\").size() == 3;7",
      // indexOf on a string: 2, the traversal of 15 bytes rounded down 1; equality 1
      "device.driver.indexOf(\"example\") == 4;4",
  })
  void chargesAsCelGo(String expression, long cost) throws Exception {
    assertThat(run(expression, Long.MAX_VALUE)).isEqualTo(cost);
    assertThat(cost).isLessThanOrEqualTo(SelectorEnvironment.compile(expression, true).maxCost());
  }

  @Test
  void joinIsChargedByItsResult() throws Exception {
    // the constant list is free; join ceil(0.2 * 3), equality of 3 characters 1
    assertThat(run("[\"a\", \"b\"].join(\"-\") == \"a-b\"", Long.MAX_VALUE)).isEqualTo(2);
  }

  @Test
  void semverParsingIsChargedByItsArgumentAtRuntimeOnly() throws Exception {
    // as isQuantity: the estimate of a global call is one unit, the runtime charge its string's
    String expression = "isSemver(device.driver)";
    assertThat(run(expression, Long.MAX_VALUE)).isEqualTo(2 + 2);
    assertThat(SelectorEnvironment.compile(expression, true).maxCost()).isEqualTo(2 + 1);
  }

  @Test
  void stopsOnceTheLimitIsExceeded() {
    String expression = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, x > 0)";
    assertThatThrownBy(() -> run(expression, 50))
        .satisfies(e -> assertThat(CostTracker.causedBy(e)).isTrue());
    // exactly at the limit is allowed, as upstream's "cost > limit"
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> run(expression, 51))).isNull();
  }

  @Test
  void startsWithChargesItsReceiverAtRuntimeAndItsArgumentInTheEstimate() throws Exception {
    // cel-go's runtime passes the receiver as the first argument, its estimator does not
    String expression = "device.attributes[\"dra.example.com\"].services.startsWith(\"s\")";
    assertThat(run(expression, Long.MAX_VALUE)).isEqualTo(4 + 2); // ceil(0.1 * 18)
    assertThat(SelectorEnvironment.compile(expression, true).maxCost()).isEqualTo(4 + 1);
  }

  @Test
  void aStringFunctionCanCostMoreAtRuntimeThanEstimated() throws Exception {
    // upstream's estimator leaves isQuantity (a global call) at one unit, its runtime charge
    // grows with the string: the case the runtime limit exists for
    String x = "x".repeat(1000);
    String expression = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
        + ".all(b, !isQuantity('" + x + "')))";
    long estimate = SelectorEnvironment.compile(expression, true).maxCost();
    long actual = run(expression, Long.MAX_VALUE);
    assertThat(estimate).isEqualTo(10 + 1 + 10 * (3 + 10 + 1 + 10 * (3 + 2)));
    // the lists are constants; each inner step: ceil(0.1 * 1000) + ! 1, condition 2, accu 1
    assertThat(actual).isEqualTo(1 + 10 * (3 + 1 + 10 * (3 + 101)));
  }
}
