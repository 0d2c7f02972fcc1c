package io.berth.dracel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code semver} library as upstream's library semver_test.go pins it, and the parsing and
 * ordering rules of the Go library it uses.
 */
class SemverLibraryTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
      // upstream's TestSemver table
      "parse;semver(\"1.2.3\") == semver(\"1.2.3\");true",
      "isSemver;isSemver(\"1.2.3-beta.1+build.1\");true",
      "isSemver_empty_false;isSemver(\"\");false",
      "isSemver_v_prefix_false;isSemver(\"v1.0.0\");false",
      "isSemver_v_leading_whitespace_false;isSemver(\" 1.0.0\");false",
      "isSemver_v_contains_whitespace_false;isSemver(\"1. 0.0\");false",
      "isSemver_v_trailing_whitespace_false;isSemver(\"1.0.0 \");false",
      "isSemver_leading_zeros_false;isSemver(\"01.01.01\");false",
      "isSemver_major_only_false;isSemver(\"1\");false",
      "isSemver_major_minor_only_false;isSemver(\"1.1\");false",
      "isSemver_empty_normalize_false;isSemver(\"\", true);false",
      "isSemver_v_leading_whitespace_normalize_false;isSemver(\" 1.0.0\", true);false",
      "isSemver_v_contains_whitespace_normalize_false;isSemver(\"1. 0.0\", true);false",
      "isSemver_v_trailing_whitespace_normalize_false;isSemver(\"1.0.0 \", true);false",
      "isSemver_v_prefix_normalize_true;isSemver(\"v1.0.0\", true);true",
      "isSemver_leading_zeros_normalize_true;isSemver(\"01.01.01\", true);true",
      "isSemver_major_only_normalize_true;isSemver(\"1\", true);true",
      "isSemver_major_minor_only_normalize_true;isSemver(\"1.1\", true);true",
      "equality_normalize;semver(\"v01.01\", true) == semver(\"1.1.0\");true",
      "equality_reflexivity;semver(\"1.2.3\") == semver(\"1.2.3\");true",
      "inequality;semver(\"1.2.3\") == semver(\"1.0.0\");false",
      "semver_less;semver(\"1.0.0\").isLessThan(semver(\"1.2.3\"));true",
      "semver_less_false;semver(\"1.0.0\").isLessThan(semver(\"1.0.0\"));false",
      "semver_greater;semver(\"1.2.3\").isGreaterThan(semver(\"1.0.0\"));true",
      "semver_greater_false;semver(\"1.0.0\").isGreaterThan(semver(\"1.0.0\"));false",
      "compare_equal;semver(\"1.2.3\").compareTo(semver(\"1.2.3\")) == 0;true",
      "compare_less;semver(\"1.0.0\").compareTo(semver(\"1.2.3\")) == -1;true",
      "compare_greater;semver(\"1.2.3\").compareTo(semver(\"1.0.0\")) == 1;true",
      "major;semver(\"1.2.3\").major() == 1;true",
      "minor;semver(\"1.2.3\").minor() == 2;true",
      "patch;semver(\"1.2.3\").patch() == 3;true",
      // Semantic Versioning's precedence, which the Go library implements
      "prerelease-below-release;semver(\"1.0.0-alpha\").isLessThan(semver(\"1.0.0\"));true",
      "numeric-identifiers-first;semver(\"1.0.0-1\").isLessThan(semver(\"1.0.0-alpha\"));true",
      "numeric-identifiers-by-value;semver(\"1.0.0-alpha.2\").isLessThan(semver(\"1.0.0-alpha.10\"));true",
      "fewer-identifiers-first;semver(\"1.0.0-alpha\").isLessThan(semver(\"1.0.0-alpha.1\"));true",
      "build-metadata-ignored;semver(\"1.0.0+a\") == semver(\"1.0.0+b\");true",
      // a version attribute of the device (1.2.3)
      "attribute;device.attributes[\"dra.example.com\"].driverVersion.isGreaterThan(semver(\"1.0.0\"));true",
      "attribute-equality;device.attributes[\"dra.example.com\"].driverVersion == semver(\"1.2.3\");true",
      "attribute-major;device.attributes[\"dra.example.com\"].driverVersion.major() == 1;true",
  })
  void evaluatesAsUpstream(String name, String expression, boolean expected) throws Exception {
    assertThat(Eval.eval(expression)).as(name).isEqualTo(expected);
  }

  @Test
  void anInvalidVersionIsARuntimeErrorInTheGoLibrarysWords() {
    assertThat(Eval.error("semver(\"v1.0\") == semver(\"1.0.0\")"))
        .contains("No Major.Minor.Patch elements found");
  }

  @Test
  void isSemverHasNoOverloadForAList() {
    assertThat(SelectorEnvironment.compile("isSemver([1, 2, 3])", false).error().orElseThrow())
        .contains("found no matching overload for 'isSemver'");
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {
      "'';Version string empty",
      "1.2;No Major.Minor.Patch elements found",
      "a.2.3;Invalid character(s) found in major number \"a\"",
      "01.2.3;Major number must not contain leading zeroes \"01\"",
      "1.02.3;Minor number must not contain leading zeroes \"02\"",
      "1.2.03;Patch number must not contain leading zeroes \"03\"",
      "1.2.3-;Prerelease is empty",
      "1.2.3-01;Numeric PreRelease version must not contain leading zeroes \"01\"",
      "1.2.3-a_b;Invalid character(s) found in prerelease \"a_b\"",
      "1.2.3+;Build meta data is empty",
      "1.2.3+a_b;Invalid character(s) found in build meta data \"a_b\"",
  })
  void parseErrorsAreTheGoLibrarys(String text, String message) {
    assertThatThrownBy(() -> CelSemver.parse(text)).hasMessage(message);
  }

  @Test
  void normalizationDropsThePrefixFillsAndTrimsZeros() {
    assertThat(CelSemver.parseNormalized("v1.0").toString()).isEqualTo("1.0.0");
    assertThat(CelSemver.parseNormalized("01.01.01").toString()).isEqualTo("1.1.1");
    assertThat(CelSemver.parseNormalized("1.2.3-rc.1+b").toString()).isEqualTo("1.2.3-rc.1+b");
    assertThatThrownBy(() -> CelSemver.parseNormalized("1.2-rc"))
        .hasMessage("short version cannot contain PreRelease/Build meta data");
  }

  @Test
  void canonicalTextRoundTrips() {
    assertThat(CelSemver.parse("10.20.30-rc.1.x-y+build.5").toString())
        .isEqualTo("10.20.30-rc.1.x-y+build.5");
  }
}
