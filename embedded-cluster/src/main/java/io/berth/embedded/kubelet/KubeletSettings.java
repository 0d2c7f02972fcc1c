package io.berth.embedded.kubelet;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * How the simulated kubelet behaves. Immutable.
 *
 * @param startupDelay how long after binding a pod becomes Running and Ready
 * @param terminationDelay how long a deleting pod takes to stop; empty means its whole grace period, as a container
 *     that ignores SIGTERM would; a value caps the grace period (real containers usually exit at once)
 * @param neverReadyImages images whose containers run but never pass readiness (progress-deadline tests)
 */
public record KubeletSettings(Duration startupDelay, Optional<Duration> terminationDelay,
    Set<String> neverReadyImages) {

  public static KubeletSettings defaults() {
    return new KubeletSettings(Duration.ofMillis(500), Optional.empty(), Set.of());
  }

  public KubeletSettings withStartupDelay(Duration delay) {
    return new KubeletSettings(delay, terminationDelay, neverReadyImages);
  }

  public KubeletSettings withTerminationDelay(Duration delay) {
    return new KubeletSettings(startupDelay, Optional.of(delay), neverReadyImages);
  }

  public KubeletSettings withNeverReadyImages(Set<String> images) {
    return new KubeletSettings(startupDelay, terminationDelay, Set.copyOf(images));
  }
}
