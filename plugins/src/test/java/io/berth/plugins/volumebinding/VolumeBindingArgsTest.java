package io.berth.plugins.volumebinding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VolumeBindingArgsTest {
  @Test
  void defaultsToSixHundredSeconds() {
    assertThat(VolumeBindingArgs.parse(Map.of()).bindTimeout()).isEqualTo(Duration.ofMinutes(10));
    Map<String, Object> nulls = new HashMap<>();
    nulls.put("bindTimeoutSeconds", null);
    nulls.put("shape", null);
    assertThat(VolumeBindingArgs.parse(nulls).bindTimeoutSeconds()).isEqualTo(600);
  }

  @Test
  void readsTheTimeoutAndIgnoresTypeMeta() {
    VolumeBindingArgs args = VolumeBindingArgs.parse(Map.of("apiVersion",
        "kubescheduler.config.k8s.io/v1", "kind", "VolumeBindingArgs", "bindTimeoutSeconds", 300));
    assertThat(args.bindTimeoutSeconds()).isEqualTo(300);
    assertThat(VolumeBindingArgs.parse(Map.of("bindTimeoutSeconds", 30L)).bindTimeoutSeconds())
        .isEqualTo(30);
    assertThat(VolumeBindingArgs.parse(Map.of("bindTimeoutSeconds", 30.0)).bindTimeoutSeconds())
        .isEqualTo(30);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "-1|bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a"
          + " negative value",
      "0|bindTimeoutSeconds: Invalid value: 0: invalid BindTimeoutSeconds, should be a positive"
          + " value"})
  void rejectsTimeoutsThatAreNotPositive(long value, String message) {
    assertThatThrownBy(() -> VolumeBindingArgs.parse(Map.of("bindTimeoutSeconds", value)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void rejectsNonIntegers() {
    assertThatThrownBy(() -> VolumeBindingArgs.parse(Map.of("bindTimeoutSeconds", "ten")))
        .hasMessage("bindTimeoutSeconds: Invalid value: \"ten\": must be an integer");
    assertThatThrownBy(() -> VolumeBindingArgs.parse(Map.of("bindTimeoutSeconds", 1.5)))
        .hasMessage("bindTimeoutSeconds: Invalid value: 1.5: must be an integer");
  }

  @Test
  void rejectsShapeWhileCapacityScoringIsOff() {
    assertThatThrownBy(() -> VolumeBindingArgs.parse(Map.of("shape",
        List.of(Map.of("utilization", 0, "score", 0)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("shape: Invalid value: ")
        .hasMessageContaining("turn on the feature gate VolumeCapacityPriority");
  }

  @Test
  void rejectsUnknownFields() {
    assertThatThrownBy(() -> VolumeBindingArgs.parse(Map.of("bindTimeout", 3)))
        .hasMessage("unknown field \"bindTimeout\"");
  }
}
