package io.berth.controller.resourceclaim;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Claims this controller created that the claim informer may not have delivered yet, by the UID of the pod they
 * were generated for (the role of upstream's mutation cache over the claim informer): when creating a claim
 * succeeded but writing the pod's status failed, the retry finds the claim here instead of creating a second one.
 * An entry goes when the informer delivers the claim or when the pod is deleted. Used by the workers and the
 * informer handlers; thread-safe: {@code byPod} and {@code podOfClaim} are guarded by {@code this}.
 */
final class CreatedClaims {

  // guarded by this: pod uid -> claims created for it and not yet seen by the informer
  private final Map<String, List<ResourceClaim>> byPod = new HashMap<>();
  // guarded by this: claim uid -> pod uid, for every claim in byPod
  private final Map<String, String> podOfClaim = new HashMap<>();

  synchronized void add(String podUid, ResourceClaim claim) {
    byPod.computeIfAbsent(podUid, k -> new ArrayList<>()).add(claim);
    podOfClaim.put(claim.getMetadata().getUid(), podUid);
  }

  /** The claim created for {@code podUid}'s entry {@code podClaimName}, if still pending. */
  synchronized Optional<ResourceClaim> find(String podUid, String podClaimName) {
    for (ResourceClaim claim : byPod.getOrDefault(podUid, List.of())) {
      Map<String, String> annotations = claim.getMetadata().getAnnotations();
      if (annotations != null && podClaimName.equals(annotations.get(PodClaims.POD_CLAIM_NAME_ANNOTATION))) {
        return Optional.of(claim);
      }
    }
    return Optional.empty();
  }

  /** The informer has {@code claim} now: forget it. */
  synchronized void observed(ResourceClaim claim) {
    String uid = claim.getMetadata().getUid();
    String podUid = uid == null ? null : podOfClaim.remove(uid);
    List<ResourceClaim> list = podUid == null ? null : byPod.get(podUid);
    if (list != null) {
      list.removeIf(c -> uid.equals(c.getMetadata().getUid()));
      if (list.isEmpty()) {
        byPod.remove(podUid);
      }
    }
  }

  /** The pod is gone: its pending claims are the garbage collector's now. */
  synchronized void podDeleted(String podUid) {
    List<ResourceClaim> removed = byPod.remove(podUid);
    if (removed != null) {
      removed.forEach(c -> podOfClaim.remove(c.getMetadata().getUid()));
    }
  }

  synchronized int size() {
    return byPod.values().stream().mapToInt(List::size).sum();
  }
}
