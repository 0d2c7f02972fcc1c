package io.berth.plugins.noderesources;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Resource;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ResourceFit#soleReason}, Filter's allocation-free answer, agrees with {@link ResourceFit#insufficient} on
 * every resource boundary (pods, cpu, memory, ephemeral storage and a scalar, each at, just below and just above what
 * the node has left): null when the list is empty, its one reason when it has one, SEVERAL when it has more.
 */
class ResourceFitTest {
  private static final String GPU = "example.com/gpu";

  @Test
  void fitsAgreesWithTheListOfInsufficientResources() {
    Random random = new Random(7);
    int rejected = 0;
    int fitting = 0;
    int several = 0;
    for (int i = 0; i < 20_000; i++) {
      Resource allocatable = new Resource().setAllowedPodNumber(pick(random, 10))
          .setMilliCpu(pick(random, 4000)).setMemory(pick(random, 1 << 20))
          .setEphemeralStorage(pick(random, 1 << 10));
      Resource used = new Resource().setMilliCpu(pick(random, 4000))
          .setMemory(pick(random, 1 << 20)).setEphemeralStorage(pick(random, 1 << 10));
      Resource request = new Resource().setMilliCpu(pick(random, 2000))
          .setMemory(pick(random, 1 << 19)).setEphemeralStorage(pick(random, 1 << 9));
      List<String> scalars = List.of();
      if (random.nextBoolean()) {
        allocatable.setScalar(GPU, pick(random, 4));
        used.setScalar(GPU, pick(random, 4));
        request.setScalar(GPU, 1 + random.nextInt(2));
        scalars = List.of(GPU);
      }
      int podCount = (int) pick(random, 10);
      String sole = ResourceFit.soleReason(request, scalars, podCount, used, allocatable);
      List<InsufficientResource> lacking =
          ResourceFit.insufficient(request, scalars, podCount, used, allocatable);
      String expected = lacking.isEmpty() ? null
          : lacking.size() == 1 ? lacking.get(0).reason() : ResourceFit.SEVERAL;
      assertThat(sole).as("case %d: %s lacking %s", i, request, lacking).isSameAs(expected);
      if (lacking.isEmpty()) {
        fitting++;
      } else if (lacking.size() == 1) {
        rejected++;
      } else {
        several++;
      }
    }
    // every answer occurs often, so the agreement is not trivially one-sided
    assertThat(fitting).isGreaterThan(300);
    assertThat(rejected).isGreaterThan(1000);
    assertThat(several).isGreaterThan(1000);
  }

  @Test
  void aZeroRequestIsNeverInsufficient() {
    Resource allocatable = new Resource().setAllowedPodNumber(1);
    Resource used = new Resource().setMilliCpu(5).setMemory(5);
    assertThat(ResourceFit.soleReason(new Resource(), List.of(), 0, used, allocatable)).isNull();
    assertThat(ResourceFit.soleReason(new Resource(), List.of(), 1, used, allocatable))
        .isEqualTo(ResourceFit.TOO_MANY_PODS);
  }

  @Test
  void theReasonNamesTheResourceAsUpstreamAndIsBuiltOncePerName() {
    Resource allocatable = new Resource().setAllowedPodNumber(10).setMilliCpu(1000)
        .setScalar(GPU, 1);
    Resource request = new Resource().setMilliCpu(2000).setScalar(GPU, 2);
    List<InsufficientResource> first =
        ResourceFit.insufficient(request, List.of(GPU), 0, new Resource(), allocatable);
    List<InsufficientResource> second =
        ResourceFit.insufficient(request, List.of(GPU), 0, new Resource(), allocatable);
    assertThat(first).extracting(InsufficientResource::reason)
        .containsExactly("Insufficient cpu", "Insufficient " + GPU);
    for (int i = 0; i < first.size(); i++) {
      assertThat(second.get(i).reason()).isSameAs(first.get(i).reason());
    }
  }

  /** 8 threads asking for the same 64 names at once all get the same, right string per name. */
  @Test
  void concurrentCallersShareOneReasonPerName() throws Exception {
    int threads = 8;
    int names = 64;
    String[][] seen = new String[threads][names];
    var start = new java.util.concurrent.CountDownLatch(1);
    var pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        done.add(pool.submit(() -> {
          start.await();
          for (int n = 0; n < names; n++) {
            // each thread walks the names from its own offset, so first calls race
            int k = (n + me * 7) % names;
            seen[me][k] = ResourceFit.reason("example.com/r" + k);
          }
          return null;
        }));
      }
      start.countDown();
      for (var f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    for (int n = 0; n < names; n++) {
      assertThat(seen[0][n]).isEqualTo("Insufficient example.com/r" + n);
      for (int t = 1; t < threads; t++) {
        assertThat(seen[t][n]).isSameAs(seen[0][n]);
      }
    }
  }

  /** Around {@code max}: often exactly at a boundary the other values make. */
  private static long pick(Random random, long max) {
    return switch (random.nextInt(4)) {
      case 0 -> 0;
      case 1 -> max;
      case 2 -> max / 2;
      default -> random.nextLong(max + 1);
    };
  }
}
