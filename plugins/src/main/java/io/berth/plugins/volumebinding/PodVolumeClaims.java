package io.berth.plugins.volumebinding;

import io.berth.framework.LabelMatcher;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pod's claims as PreFilter sorted them (upstream's {@code PodVolumeClaims}): the fully bound
 * ones with their volumes, the unbound WaitForFirstConsumer ones (smallest request first), and
 * the candidate volumes of each of their classes, all with quantities and node affinities
 * compiled once per cycle. Immutable and thread-safe; objects are shared with the caches.
 */
record PodVolumeClaims(List<BoundClaim> bound, List<UnboundClaim> unboundDelayBinding,
    Map<String, List<CandidateVolume>> volumesByClass) {
  static final PodVolumeClaims NONE = new PodVolumeClaims(List.of(), List.of(), Map.of());

  PodVolumeClaims {
    bound = List.copyOf(bound);
    unboundDelayBinding = List.copyOf(unboundDelayBinding);
    volumesByClass = Map.copyOf(volumesByClass);
  }

  /** A fully bound claim and its volume; empty when the volume does not exist. */
  record BoundClaim(PersistentVolumeClaim pvc, Optional<CandidateVolume> volume) {}

  /**
   * An unbound claim waiting for its first consumer: its storage request in bytes, its class
   * and its compiled {@code spec.selector} (empty when it has none).
   */
  record UnboundClaim(PersistentVolumeClaim pvc, long request, String className,
      Optional<LabelMatcher> selector) {}

  /** A volume with its capacity in bytes (-1 when unparseable) and its node affinity. */
  record CandidateVolume(PersistentVolume pv, long capacity, VolumeAffinity affinity) {
    String name() {
      return pv.getMetadata().getName();
    }
  }
}
