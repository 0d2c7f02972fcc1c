package io.berth.embedded.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
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

  @Test
  void concurrentCallersSeeTheSamePolicies() throws Exception {
    String[] images = {"nginx", "nginx:1.25", "registry.local:5000/team/app:v2", "busybox:latest", "app@" + DIGEST};
    String[] expected = {"Always", "IfNotPresent", "IfNotPresent", "Always", "IfNotPresent"};
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int offset = t;
        done.add(pool.submit(() -> {
          for (int i = 0; i < 2_000; i++) {
            int k = (i + offset) % images.length;
            assertThat(PodSpecDefaults.pullPolicyFor(images[k])).isEqualTo(expected[k]);
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
