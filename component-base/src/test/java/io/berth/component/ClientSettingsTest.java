package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClientSettingsTest {

  private static ClientSettings settings(double qps, int burst) {
    return new ClientSettings(Optional.empty(), qps, burst, "test");
  }

  @Test
  void zeroMeansClientGoDefaults() {
    ClientSettings zero = settings(0, 0);
    assertThat(zero.rateLimited()).isTrue();
    assertThat(zero.effectiveQps()).isEqualTo(5.0);
    assertThat(zero.effectiveBurst()).isEqualTo(10);
  }

  @Test
  void givenValuesAreUsedAsIs() {
    ClientSettings s = settings(20, 30);
    assertThat(s.effectiveQps()).isEqualTo(20.0);
    assertThat(s.effectiveBurst()).isEqualTo(30);
  }

  @Test
  void negativeQpsTurnsTheLimitOff() {
    assertThat(settings(-1, 30).rateLimited()).isFalse();
  }

  @Test
  void invalidValuesNameTheirFlag() {
    assertThatThrownBy(() -> settings(Double.NaN, 1).validate()).isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--kube-api-qps");
    assertThatThrownBy(() -> settings(1, -1).validate()).isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--kube-api-burst");
  }
}
