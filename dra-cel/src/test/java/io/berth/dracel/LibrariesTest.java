package io.berth.dracel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The libraries of the Kubernetes base environment that DRA selectors get besides semver: the
 * Kubernetes {@code lists}, {@code regex} and {@code quantity} libraries (cases of upstream's
 * library tests and of their doc examples), and cel-go's strings (version 2) and sets extensions.
 */
class LibrariesTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      // lists: isSorted, sum, min, max, indexOf, lastIndexOf
      "isSorted-ints;[1, 2, 3].isSorted();true",
      "isSorted-strings;['a', 'b', 'b', 'c'].isSorted();true",
      "isSorted-doubles;[2.0, 1.0].isSorted();false",
      "isSorted-one;[1].isSorted();true",
      "isSorted-empty;[].isSorted();true",
      "sum-ints;[1, 3].sum() == 4;true",
      "sum-doubles;[1.0, 3.0].sum() == 4.0;true",
      "sum-durations;[duration('1m'), duration('1s')].sum() == duration('1m1s');true",
      "sum-empty-ints;[1].filter(x, x > 1).sum() == 0;true",
      "min;[1, 3].min() == 1;true",
      "max;[1, 3].max() == 3;true",
      "min-one;[1].min() == 1;true",
      "max-strings;['b', 'c', 'a'].max() == 'c';true",
      "indexOf;[1, 2, 2, 3].indexOf(2) == 1;true",
      "lastIndexOf;['a', 'b', 'b', 'c'].lastIndexOf('b') == 2;true",
      "indexOf-missing;[1.0].indexOf(1.1) == -1;true",
      "indexOf-empty;[].indexOf('string') == -1;true",
      // regex: find, findAll
      "find;'abc 123'.find('[0-9]+') == '123';true",
      "find-none;'abc 123'.find('xyz') == '';true",
      "findAll;'123 abc 456'.findAll('[0-9]+') == ['123', '456'];true",
      "findAll-limit;'123 abc 456'.findAll('[0-9]+', 1) == ['123'];true",
      "findAll-none;'123 abc 456'.findAll('xyz') == [];true",
      // Go skips an empty match that abuts the previous match
      "findAll-empty-matches;'123 abc 456'.findAll('[0-9]*') == ['123', '', '', '', '', '456'];true",
      "findAll-zero-limit;'123'.findAll('[0-9]', 0) == [];true",
      // quantity
      "isInteger;quantity('50').isInteger();true",
      "isInteger-fraction;quantity('50m').isInteger();false",
      "asInteger;quantity('50k').asInteger() == 50000;true",
      "asApproximateFloat;quantity('50.5').asApproximateFloat() == 50.5;true",
      "sign;quantity('-50k').sign() == -1;true",
      "add;quantity('50k').add(quantity('20k')) == quantity('70k');true",
      "add-int;quantity('50k').add(20) == quantity('50020');true",
      "sub;quantity('50k').sub(quantity('20k')) == quantity('30k');true",
      "sub-int;quantity('50k').sub(20000) == quantity('30k');true",
      "chain;quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20');true",
      "compareTo;quantity('200M').compareTo(quantity('0.2G')) == 0;true",
      "compareTo-less;quantity('50M').compareTo(quantity('50Mi')) == -1;true",
      "isGreaterThan;quantity('150Mi').isGreaterThan(quantity('100Mi'));true",
      "isLessThan;quantity('100M').isLessThan(quantity('50M'));false",
      // strings extension, version 2
      "charAt;'hello'.charAt(4) == 'o';true",
      "indexOf-string;'hello mellow'.indexOf('ello', 2) == 7;true",
      "lastIndexOf-string;'hello mellow'.lastIndexOf('ello') == 7;true",
      "lowerAscii;'TacoCat'.lowerAscii() == 'tacocat';true",
      "upperAscii;'TacoCat'.upperAscii() == 'TACOCAT';true",
      "replace;'hello hello'.replace('he', 'we', 1) == 'wello hello';true",
      "split;'hello hello hello'.split(' ', 2) == ['hello', 'hello hello'];true",
      "substring;'tacocat'.substring(0, 4) == 'taco';true",
      "trim;'  \\ttrim\\n    '.trim() == 'trim';true",
      "join;['hello', 'mellow'].join(' ') == 'hello mellow';true",
      "quote;strings.quote('a\"b') == '\"a\\\\\"b\"';true",
      // sets extension
      "sets.contains;sets.contains([1, 2, 3], [3, 1]);true",
      "sets.contains-not;sets.contains([1, 2], [3]);false",
      "sets.equivalent;sets.equivalent([1, 2, 2], [2, 1]);true",
      "sets.intersects;sets.intersects([1], [1, 2]);true",
      "sets.intersects-empty;sets.intersects([1], []);false",
      // two-variable comprehensions
      "all-two-vars;[1, 2, 3].all(i, v, v > i);true",
      "exists-two-vars;device.attributes.exists(domain, attrs, domain == 'dra.example.com' && 'name' in attrs);true",
      "existsOne-two-vars;{'a': 1, 'b': 2}.existsOne(k, v, v == 2);true",
      "transformList;[1, 2].transformList(i, v, v * 2) == [2, 4];true",
      "transformMap;{'a': 1}.transformMap(k, v, v + 1) == {'a': 2};true",
      // cross-type numeric comparisons
      "cross-type;device.attributes['dra.example.com'].index < 3.5;true",
      // on a device's attributes
      "attribute-find;device.attributes['dra.example.com'].services.find('ex[a-z]+') == 'example';true",
      "attribute-upper;device.attributes['dra.example.com'].name.upperAscii() == 'FISH';true",
  })
  void evaluates(String name, String expression, boolean expected) throws Exception {
    assertThat(Eval.eval(expression)).as(name).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      "min-empty;[1].filter(x, x > 1).min() == 1;min called on empty list",
      "max-empty;[1].filter(x, x > 1).max() == 1;max called on empty list",
      "asInteger-fraction;quantity('1.5').asInteger() == 1;cannot convert value to integer",
      "illegal-regex;'abc'.find(device.driver + '(') == '';Illegal regex: error parsing regexp: missing closing )",
  })
  void failsAsUpstream(String name, String expression, String message) {
    assertThat(Eval.error(expression)).as(name).contains(message);
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      "['a', 'b'].sum() == 'ab';sum",
      "[[1], [2]].isSorted();isSorted",
      "[{'a': 1}].max() == {'a': 1};max",
  })
  void listFunctionsHaveNoOverloadForOtherElementTypes(String expression, String function) {
    Compilation c = SelectorEnvironment.compile(expression, false);
    assertThat(c.failure()).contains(Compilation.Failure.INVALID);
    assertThat(c.error().orElseThrow()).startsWith("compilation failed: ERROR: <input>:")
        .contains("found no matching overload for '" + function + "'");
  }

  @Test
  void reverseIsNotInStringsVersion2() {
    assertThat(SelectorEnvironment.compile("'abc'.reverse() == 'cba'", false).error())
        .isPresent();
  }

  @Test
  void listLiteralsMustBeHomogeneous() {
    assertThat(SelectorEnvironment.compile("[1, 'a'].size() == 2", false).error())
        .isPresent();
  }

  @Test
  void aConstantPatternThatDoesNotCompileFailsTheProgramAsUpstream() {
    Compilation c = SelectorEnvironment.compile("'abc'.find('(') == ''", false);
    assertThat(c.failure()).contains(Compilation.Failure.INTERNAL);
    assertThat(c.error().orElseThrow())
        .startsWith("program instantiation failed: error parsing regexp: missing closing )");
  }
}
