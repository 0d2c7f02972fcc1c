package io.berth.dracel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Worst-case costs as upstream's {@code dynamic-resource-allocation/cel} compile_test.go pins them
 * (its {@code expectCost}), and ones derived by hand from cel-go's rules and the Kubernetes
 * library's {@code EstimateCallCost}.
 */
class CostEstimatorTest {

  private static long estimate(String expression) {
    Compilation c = SelectorEnvironment.compile(expression, true);
    assertThat(c.error()).as(expression).isEmpty();
    return c.maxCost();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      // upstream's table
      "true;true;0",
      "false;false;0",
      "runtime-error-lookup-identifier;"
          + "device.attributes[\"no-such-domain\"].noSuchAttr.isGreaterThan(quantity(\"0\"));6",
      "runtime-error-lookup-map;"
          + "device.attributes[\"no-such-domain\"][\"noSuchAttr\"].isGreaterThan(quantity(\"0\"));6",
      "domain-check-negative;\"no-such-domain\" in device.attributes;3",
      "domain-check-positive;\"dra.example.com\" in device.attributes;3",
      "empty-driver-name;device.driver == \"\";2",
      "real-driver-name;device.driver == \"dra.example.com\";4",
      "driver-name-qualifier;device.attributes[\"dra.example.com\"].name;4",
      "driver-name-qualifier-map-lookup;device.attributes[\"dra.example.com\"][\"name\"];4",
      "bind;cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name);15",
      "qualified-attribute-name;device.attributes[\"other.example.com\"].name;4",
      "int;device.attributes[\"dra.example.com\"].name > 0;5",
      "string;device.attributes[\"dra.example.com\"].name == \"fish\";5",
      "quantity;device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"));6",
      "check-positive;\"name\" in device.capacity[\"dra.example.com\"]"
          + " && device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"));10",
      "check-negative;!(\"name\" in device.capacity[\"dra.example.com\"])"
          + " || device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"));11",
      "many;device.attributes[\"dra.example.com\"].a && device.attributes[\"dra.example.com\"].b"
          + " && device.attributes[\"dra.example.com\"].c;12",
      "check_attribute_domains;device.attributes.exists_one(x, x == \"dra.example.com\");164",
      "check_attribute_ids;device.attributes[\"dra.example.com\"].exists_one(x, x == \"services\");133",
      "check_capacity_domains;device.capacity.exists_one(x, x == \"dra.example.com\");164",
      "check_capacity_ids;device.capacity[\"dra.example.com\"].exists_one(x, x == \"memory\");133",
      "regexp_attribute;device.attributes[\"dra.example.com\"].services.matches(\"[^a]?sym\");18",
      // upstream's "all" without its two semver terms (6 each): 52 - 12
      "all-without-semver;device.capacity[\"dra.example.com\"].quantity.isGreaterThan(quantity(\"1Ki\"))"
          + " && device.attributes[\"dra.example.com\"].bool"
          + " && device.attributes[\"dra.example.com\"].int > 0"
          + " && device.attributes[\"dra.example.com\"].string == \"fish\""
          + " && device.capacity[\"dra.example.com\"][\"quantity\"].isGreaterThan(quantity(\"1Ki\"))"
          + " && device.attributes[\"dra.example.com\"][\"bool\"]"
          + " && device.attributes[\"dra.example.com\"][\"int\"] > 0"
          + " && device.attributes[\"dra.example.com\"][\"string\"] == \"fish\";40",
      "allow-multiple-allocations;device.allowMultipleAllocations;2",
      "version;device.attributes[\"dra.example.com\"].driverVersion.isGreaterThan(semver(\"0.0.1\"));6",
      "all;device.capacity[\"dra.example.com\"].quantity.isGreaterThan(quantity(\"1Ki\"))"
          + " && device.attributes[\"dra.example.com\"].bool"
          + " && device.attributes[\"dra.example.com\"].int > 0"
          + " && device.attributes[\"dra.example.com\"].string == \"fish\""
          + " && device.attributes[\"dra.example.com\"].version.isGreaterThan(semver(\"0.0.1\"))"
          + " && device.capacity[\"dra.example.com\"][\"quantity\"].isGreaterThan(quantity(\"1Ki\"))"
          + " && device.attributes[\"dra.example.com\"][\"bool\"]"
          + " && device.attributes[\"dra.example.com\"][\"int\"] > 0"
          + " && device.attributes[\"dra.example.com\"][\"string\"] == \"fish\""
          + " && device.attributes[\"dra.example.com\"][\"version\"].isGreaterThan(semver(\"0.0.1\"));52",
      // derived from the Kubernetes library's EstimateCallCost: equality of two quantities (or
      // two semvers) is one unit
      "quantity-equality;device.capacity['d'].memory == quantity('80Gi');6",
      "semver-equality;semver('1.0.0') == semver('1.0.0');3",
      "semver-accessor;semver('1.0.0').major() == 1;3",
      "isInteger;device.capacity['d'].memory.isInteger();5",
      // find: receiver 4, ceil(0.1 * (64 + 1)) * ceil(0.25 * 8), equality with 7 characters 1
      "find;device.attributes[\"dra.example.com\"].services.find(\"ex[a-z]+\") == \"example\";19",
      // lowerAscii: the driver 2, ceil(0.1 * 63), equality with 1 character 1
      "lowerAscii;device.driver.lowerAscii() == \"x\";10",
      // isSorted on 3 ints: the literal 10, one unit per element
      "isSorted;[1, 2, 3].isSorted();13",
      // sets.contains: 10 + 12 for the lists, 2 * 1 + 1
      "sets.contains;sets.contains([\"a\", \"b\"], [device.driver]);25",
      // derived from cel-go's rules: all() over n items costs range + result + n * (2 + 1 + pred),
      // i.e. 41 + 10 * pred for a 10-item literal list
      "all-over-a-literal-list;[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, x > 0);61",
      // the same with two variables: 10 + 1 + 3 * (3 + 3) for the predicate v > i
      "all-two-vars;[1, 2, 3].all(i, v, v > i);29",
      // exists(): 10 (list) + 0 (false) + 1 (result) + 10 * (3 (!accu, not_strictly_false) + 3)
      "exists-over-a-literal-list;[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(x, x > 0);71",
      // string concatenation and startsWith: sizes of literals and the driver's 63 characters
      "startsWith;device.driver.startsWith(\"gpu\");3",
      "concatenation;device.driver + \"/\" == \"a/b\";10",
      "contains;device.attributes[\"d\"].s.contains(\"abcdefghijk\");18",
      "in-a-literal-list;device.attributes[\"d\"].model in [\"a100\", \"h100\"];16",
  })
  void estimatesAsUpstream(String name, String expression, long cost) {
    assertThat(estimate(expression)).as(name).isEqualTo(cost);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      // upstream's "expensive" case (85555551) with int('1') for int('1'.find('[0-9]*')): the
      // innermost predicate costs 2 instead of 4, so 7 levels of 41 + 10 * pred give 65555551
      "seven-nested-alls;[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
          + ".all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2,"
          + " [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4,"
          + " [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1') < 100)))))));65555551",
      // six levels, innermost a + b + c + d + e + f > 0 (12): 16555551
      "six-nested-alls;[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b,"
          + " [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d,"
          + " [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f"
          + " > 0))))));16555551",
  })
  void nestedComprehensionsExceedTheBudget(String name, String expression, long cost) {
    assertThat(estimate(expression)).as(name).isEqualTo(cost);
    assertThat(SelectorEnvironment.compile(expression, true).exceedsCostLimit()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      // isSorted on strings: the elements of a literal list have no declared size, as upstream's
      "isSorted-strings;['a', 'bb'].isSorted()",
      // every pair of attributes: 32 domains of 32 attributes each, twice (derived: 23337219)
      "every-pair-of-attributes;device.attributes.all(d, device.attributes[d].all(a,"
          + " device.attributes.all(e, device.attributes[e].all(b,"
          + " device.attributes[d][a] == device.attributes[e][b]))))",
  })
  void unboundedOrLargeEstimatesExceedTheBudget(String name, String expression) {
    assertThat(estimate(expression)).as(name).isGreaterThan(SelectorEnvironment.MAX_COST);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      "device.driver == 'gpu.example.com'",
      "device.attributes['gpu.example.com'].model == 'a100'",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('32Gi')) >= 0",
      "device.attributes.all(d, device.attributes[d].all(a, a.size() < 10))",
  })
  void everydaySelectorsAreWithinTheBudget(String expression) {
    assertThat(SelectorEnvironment.compile(expression, true).exceedsCostLimit()).isFalse();
  }
}
