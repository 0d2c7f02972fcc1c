package io.berth.embedded.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ImagePullPolicyTest {

  private static final String DIGEST = "sha256:" + "a".repeat(64);

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "nginx                                   | Always",
      "nginx:latest                            | Always",
      "nginx:1.25                              | IfNotPresent",
      "library/nginx                           | Always",
      "registry.local:5000/team/app            | Always",
      "registry.local:5000/team/app:v2         | IfNotPresent",
      "localhost/app:latest                    | Always",
      "[::1]:5000/app:dev                      | IfNotPresent",
      "''                                      | IfNotPresent",
      "Nginx                                   | IfNotPresent",
      "nginx:bad tag                           | IfNotPresent",
  })
  void pullPolicyFollowsTheTag(String image, String expected) {
    assertThat(PodSpecDefaults.pullPolicyFor(image)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "nginx@              | IfNotPresent",
      "nginx:latest@       | Always",
      "nginx:1.25@         | IfNotPresent",
  })
  void digestWithoutTagIsNotLatest(String prefix, String expected) {
    assertThat(PodSpecDefaults.pullPolicyFor(prefix + DIGEST)).isEqualTo(expected);
  }
}
