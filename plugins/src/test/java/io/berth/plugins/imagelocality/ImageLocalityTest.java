package io.berth.plugins.imagelocality;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.ImageStateSummary;
import io.berth.framework.NodeInfo;
import io.berth.framework.ScorePlugin;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ImageLocalityTest {
  private static final long MB = 1024L * 1024L;

  /** Images a node reports: every name of an image maps to its size in bytes. */
  private static final Map<String, Long> NODE_40_300_2000 = images(
      "gcr.io/40:latest", 40, "gcr.io/40:v1", 40, "gcr.io/300:latest", 300, "gcr.io/300:v1", 300,
      "gcr.io/2000:latest", 2000);
  private static final Map<String, Long> NODE_250_10 = images(
      "gcr.io/250:latest", 250, "gcr.io/10:latest", 10, "gcr.io/10:v1", 10);
  private static final Map<String, Long> NO_IMAGES = Map.of();

  // upstream's TestImageLocalityPriority, scores as v1.32 computes them (the maximum threshold is
  // 1000 MiB per container, so a two-container pod divides by 2000 MiB - 23 MiB)
  static Stream<Arguments> cases() {
    return Stream.of(
        // node1: 40M/2 < 23M -> 0; node2: 100 * (250M/2 - 23M) / (2000M - 23M) = 5
        Arguments.of("two images spread on two nodes, prefer the larger image one",
            pod(List.of(), "gcr.io/40", "gcr.io/250"), List.of(NODE_40_300_2000, NODE_250_10),
            List.of(0L, 5L)),
        // node1: 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7; node2: none
        Arguments.of("two images on one node, prefer this node",
            pod(List.of(), "gcr.io/40", "gcr.io/300"), List.of(NODE_40_300_2000, NODE_250_10),
            List.of(7L, 0L)),
        // node1: 100 * (2000M/2 - 23M) / (2000M - 23M) = 49; node2: 10M/2 < 23M -> 0
        Arguments.of("if exceed limit, use limit", pod(List.of(), "gcr.io/10", "gcr.io/2000"),
            List.of(NODE_40_300_2000, NODE_250_10), List.of(49L, 0L)),
        // node1: 100 * (2000M/3 - 23M) / (2000M - 23M) = 32
        Arguments.of("if exceed limit, use limit (with node which has no images present)",
            pod(List.of(), "gcr.io/10", "gcr.io/2000"),
            List.of(NODE_40_300_2000, NODE_250_10, NO_IMAGES), List.of(32L, 0L, 0L)),
        // 3 containers, images on 2 of 3 nodes: 100 * ((300M + 600M + 900M) * 2/3 - 23M)
        // / (3000M - 23M) = 39; the third node has none
        Arguments.of("init container images count",
            pod(List.of("gcr.io/300"), "gcr.io/600", "gcr.io/900"),
            List.of(images("gcr.io/300:latest", 300, "gcr.io/600:latest", 600,
                "gcr.io/900:latest", 900), images("gcr.io/300:latest", 300,
                "gcr.io/600:latest", 600, "gcr.io/900:latest", 900), NO_IMAGES),
            List.of(39L, 39L, 0L)),
        // same nodes, but the node lacks the init image: 100 * (1500M * 2/3 - 23M) / 2977M = 32
        Arguments.of("init containers raise the threshold even when their image is missing",
            pod(List.of("gcr.io/missing"), "gcr.io/600", "gcr.io/900"),
            List.of(images("gcr.io/600:latest", 600, "gcr.io/900:latest", 900),
                images("gcr.io/600:latest", 600, "gcr.io/900:latest", 900), NO_IMAGES),
            List.of(32L, 32L, 0L)),
        // explicit tags are looked up as they are; 100 * (300M - 23M) / (1000M - 23M) = 28
        Arguments.of("tagged image matches its tag only", pod(List.of(), "gcr.io/300:v1"),
            List.of(images("gcr.io/300:v1", 300)), List.of(28L)),
        Arguments.of("tag mismatch scores nothing", pod(List.of(), "gcr.io/300:v2"),
            List.of(images("gcr.io/300:v1", 300)), List.of(0L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void score(String name, Pod pod, List<Map<String, Long>> nodeImages, List<Long> expected) {
    List<NodeInfo> nodes = nodesWithImages(nodeImages);
    ScorePlugin plugin = (ScorePlugin) ImageLocality.create(Map.of(),
        new TestHandle().withNodes(nodes));

    List<Long> scores = nodes.stream().map(n -> plugin.score(new CycleState(), pod, n)).toList();

    assertThat(scores).isEqualTo(expected);
    assertThat(plugin.scoreExtensions()).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "gcr.io/40, gcr.io/40:latest",
      "gcr.io/40:v1, gcr.io/40:v1",
      "nginx, nginx:latest",
      "docker.io/library/nginx, docker.io/library/nginx:latest",
      "localhost:5000/img, localhost:5000/img:latest",
      "localhost:5000/img:1.0, localhost:5000/img:1.0",
      "img@sha256:abcd, img@sha256:abcd"})
  void normalizedImageNameAddsLatestWhenUntagged(String name, String expected) {
    assertThat(ImageLocality.normalizedImageName(name)).isEqualTo(expected);
  }

  @Test
  void priorityIsClampedBetweenThresholds() {
    assertThat(ImageLocality.calculatePriority(0, 1)).isZero();
    assertThat(ImageLocality.calculatePriority(23 * MB, 1)).isZero();
    assertThat(ImageLocality.calculatePriority(1000 * MB, 1)).isEqualTo(100);
    assertThat(ImageLocality.calculatePriority(5000 * MB, 1)).isEqualTo(100);
    assertThat(ImageLocality.calculatePriority(5000 * MB, 2)).isEqualTo(100);
    assertThat(ImageLocality.calculatePriority(1000 * MB, 2)).isEqualTo(49);
    // a pod without containers has no image sum: 0 over a negative range stays 0
    assertThat(ImageLocality.calculatePriority(0, 0)).isZero();
  }

  @Test
  void concurrentScoresAgreeWithSequential() throws Exception {
    List<Map<String, Long>> nodeImages = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      nodeImages.add(i % 3 == 0 ? NODE_40_300_2000 : i % 3 == 1 ? NODE_250_10 : NO_IMAGES);
    }
    List<NodeInfo> nodes = nodesWithImages(nodeImages);
    ScorePlugin plugin = (ScorePlugin) ImageLocality.create(Map.of(),
        new TestHandle().withNodes(nodes));
    Pod pod = pod(List.of("gcr.io/10"), "gcr.io/2000", "gcr.io/250");
    CycleState state = new CycleState();
    List<Long> expected = nodes.stream().map(n -> plugin.score(state, pod, n)).toList();

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<List<Long>>> tasks = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        tasks.add(() -> nodes.stream().map(n -> plugin.score(state, pod, n)).toList());
      }
      for (Future<List<Long>> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(expected.get(0)).isGreaterThan(expected.get(1));
  }

  /**
   * NodeInfos with image states as the scheduler cache builds them: each name the node reports,
   * with the number of nodes reporting that name.
   */
  private static List<NodeInfo> nodesWithImages(List<Map<String, Long>> nodeImages) {
    Map<String, Integer> counts = new HashMap<>();
    for (Map<String, Long> images : nodeImages) {
      images.keySet().forEach(name -> counts.merge(name, 1, Integer::sum));
    }
    List<NodeInfo> out = new ArrayList<>();
    for (int i = 0; i < nodeImages.size(); i++) {
      NodeInfo info = NodeInfo.of(new NodeBuilder().withNewMetadata().withName("machine" + (i + 1))
          .endMetadata().build());
      Map<String, ImageStateSummary> states = new HashMap<>();
      nodeImages.get(i).forEach((name, size) ->
          states.put(name, new ImageStateSummary(size, counts.get(name))));
      info.setImageStates(states);
      out.add(info);
    }
    return out;
  }

  private static Map<String, Long> images(Object... nameSizeMb) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (int i = 0; i < nameSizeMb.length; i += 2) {
      out.put((String) nameSizeMb[i], ((Integer) nameSizeMb[i + 1]) * MB);
    }
    return out;
  }

  private static Pod pod(List<String> initImages, String... images) {
    List<Container> init = new ArrayList<>();
    for (int i = 0; i < initImages.size(); i++) {
      init.add(new ContainerBuilder().withName("init" + i).withImage(initImages.get(i)).build());
    }
    List<Container> containers = new ArrayList<>();
    for (int i = 0; i < images.length; i++) {
      containers.add(new ContainerBuilder().withName("c" + i).withImage(images[i]).build());
    }
    return new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec()
        .withInitContainers(init).withContainers(containers).endSpec().build();
  }
}
