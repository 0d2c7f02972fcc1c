package io.berth.plugins.volumebinding;

import io.berth.plugins.volumebinding.PodVolumeClaims.CandidateVolume;
import io.berth.plugins.volumebinding.PodVolumeClaims.UnboundClaim;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeSpec;
import io.fabric8.kubernetes.api.model.TopologySelectorLabelRequirement;
import io.fabric8.kubernetes.api.model.TopologySelectorTerm;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Upstream's {@code FindMatchingVolume} on the scheduler path and the checks it uses (volume
 * mode, access modes, class, selector, node affinity) plus {@code MatchTopologySelectorTerms}
 * for a class's allowed topologies. Stateless and thread-safe.
 */
final class VolumeMatcher {
  private static final String FILESYSTEM = "Filesystem";
  // never mutated: stand-ins for absent specs
  private static final PersistentVolumeClaimSpec EMPTY_CLAIM_SPEC =
      new PersistentVolumeClaimSpec();
  private static final PersistentVolumeSpec EMPTY_VOLUME_SPEC = new PersistentVolumeSpec();

  private VolumeMatcher() {}

  /**
   * The volume to bind {@code claim} to on {@code node}: a volume pre-bound to the claim if it is
   * big enough (none at all if that volume cannot reach the node), else the smallest available,
   * unclaimed volume of the claim's class that fits the request, matches its selector and access
   * modes and can reach the node. {@code excluded} holds volumes already chosen for the pod's
   * other claims.
   */
  static Optional<CandidateVolume> findMatchingVolume(UnboundClaim claim,
      List<CandidateVolume> volumes, Node node, Set<String> excluded) {
    CandidateVolume smallest = null;
    PersistentVolumeClaim pvc = claim.pvc();
    for (CandidateVolume candidate : volumes) {
      PersistentVolume pv = candidate.pv();
      if (excluded.contains(candidate.name()) || candidate.capacity() < 0) {
        continue;
      }
      if (volumeModeMismatch(pvc, pv) || pv.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      boolean reachable = candidate.affinity().matches(node);
      if (VolumeHelpers.isVolumeBoundToClaim(pv, pvc)) {
        if (candidate.capacity() < claim.request()) {
          continue;
        }
        return reachable ? Optional.of(candidate) : Optional.empty();
      }
      String phase = pv.getStatus() == null ? null : pv.getStatus().getPhase();
      if (!VolumeHelpers.PHASE_AVAILABLE.equals(phase) || spec(pv).getClaimRef() != null) {
        continue;
      }
      if (claim.selector().isPresent()
          && !claim.selector().get().matches(pv.getMetadata().getLabels())) {
        continue;
      }
      if (!VolumeHelpers.volumeClass(pv).equals(claim.className()) || !reachable
          || !accessModesSatisfied(pvc, pv)) {
        continue;
      }
      if (candidate.capacity() >= claim.request()
          && (smallest == null || smallest.capacity() > candidate.capacity())) {
        smallest = candidate;
      }
    }
    return Optional.ofNullable(smallest);
  }

  /** Whether the claim and the volume disagree on volumeMode (absent means Filesystem). */
  static boolean volumeModeMismatch(PersistentVolumeClaim pvc, PersistentVolume pv) {
    String claimMode = spec(pvc).getVolumeMode() == null ? FILESYSTEM
        : spec(pvc).getVolumeMode();
    String volumeMode = spec(pv).getVolumeMode() == null ? FILESYSTEM
        : spec(pv).getVolumeMode();
    return !claimMode.equals(volumeMode);
  }

  /** Whether the volume offers every access mode the claim asks for. */
  static boolean accessModesSatisfied(PersistentVolumeClaim pvc, PersistentVolume pv) {
    List<String> wanted = spec(pvc).getAccessModes();
    if (wanted == null || wanted.isEmpty()) {
      return true;
    }
    List<String> offered = spec(pv).getAccessModes();
    return offered != null && offered.containsAll(wanted);
  }

  private static PersistentVolumeClaimSpec spec(PersistentVolumeClaim pvc) {
    return pvc.getSpec() == null ? EMPTY_CLAIM_SPEC : pvc.getSpec();
  }

  private static PersistentVolumeSpec spec(PersistentVolume pv) {
    return pv.getSpec() == null ? EMPTY_VOLUME_SPEC : pv.getSpec();
  }

  /**
   * A class's allowedTopologies against node labels: no terms match every node; a term matches
   * when each of its label requirements finds the label with one of the listed values; an empty
   * term matches nothing.
   */
  static boolean topologyAllows(List<TopologySelectorTerm> terms, Map<String, String> labels) {
    if (terms == null || terms.isEmpty()) {
      return true;
    }
    for (TopologySelectorTerm term : terms) {
      List<TopologySelectorLabelRequirement> reqs = term.getMatchLabelExpressions();
      if (reqs == null || reqs.isEmpty()) {
        continue;
      }
      boolean all = true;
      for (TopologySelectorLabelRequirement r : reqs) {
        String value = labels.get(r.getKey());
        if (value == null || r.getValues() == null || !r.getValues().contains(value)) {
          all = false;
          break;
        }
      }
      if (all) {
        return true;
      }
    }
    return false;
  }
}
