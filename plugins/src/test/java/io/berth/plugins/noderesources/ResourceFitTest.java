package io.berth.plugins.noderesources;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Resource;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ResourceFit#fits}, Filter's allocation-free answer for a node with room, agrees with
 * {@link ResourceFit#insufficient} being empty on every resource boundary: pods, cpu, memory,
 * ephemeral storage and a scalar, each at, just below and just above what the node has left.
 */
class ResourceFitTest {
  private static final String GPU = "example.com/gpu";

  @Test
  void fitsAgreesWithTheListOfInsufficientResources() {
    Random random = new Random(7);
    int rejected = 0;
    int fitting = 0;
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
      boolean fits = ResourceFit.fits(request, scalars, podCount, used, allocatable);
      List<InsufficientResource> lacking =
          ResourceFit.insufficient(request, scalars, podCount, used, allocatable);
      assertThat(fits).as("case %d: %s lacking %s", i, request, lacking)
          .isEqualTo(lacking.isEmpty());
      if (fits) {
        fitting++;
      } else {
        rejected++;
      }
    }
    // both answers occur often, so the agreement is not trivially one-sided
    assertThat(fitting).isGreaterThan(300);
    assertThat(rejected).isGreaterThan(1000);
  }

  @Test
  void aZeroRequestIsNeverInsufficient() {
    Resource allocatable = new Resource().setAllowedPodNumber(1);
    Resource used = new Resource().setMilliCpu(5).setMemory(5);
    assertThat(ResourceFit.fits(new Resource(), List.of(), 0, used, allocatable)).isTrue();
    assertThat(ResourceFit.fits(new Resource(), List.of(), 1, used, allocatable)).isFalse();
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
