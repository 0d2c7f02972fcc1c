package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;

/** {@code helm lint --strict}: warnings count as failures. */
class ChartLintTest {

  @Test
  void chartPassesStrictLint() {
    LintResult result = new Helm(DeployPaths.chart()).lint().strict().call();

    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
  }
}
