package io.berth.controller.resourceclaim;

import io.berth.controller.OwnerReferences;
import io.berth.controller.Pods;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.List;
import java.util.Optional;

/**
 * How a pod's {@code spec.resourceClaims} entries map to ResourceClaims, after upstream's
 * {@code k8s.io/dynamic-resource-allocation/resourceclaim} helpers: the claim an entry names (directly, or through
 * the pod's {@code status.resourceClaimStatuses} for a template), whether a claim was generated for a pod (its
 * controller owner reference), whether it is reserved for the pod, the generated name's base, and whether a pod is
 * done with its claims. Stateless; every method is a pure function of its arguments.
 */
final class PodClaims {

  /** The annotation a generated claim carries: the {@code spec.resourceClaims[].name} it was generated for. */
  static final String POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name";
  /** Upstream's {@code ResourceClaimReservedForMaxSize}. */
  static final int RESERVED_FOR_MAX_SIZE = 256;
  /** The finalizer the scheduler puts on a claim it allocates ({@code resourceapi.Finalizer}). */
  static final String DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection";
  /** The longest generateName base: a 63-character name less the hyphen and five random characters. */
  static final int MAX_GENERATE_NAME_BASE = 57;

  private PodClaims() {
  }

  /** What {@code resourceclaim.Name} answers for one entry of {@code spec.resourceClaims}. */
  sealed interface ClaimName {
  }

  /** The entry uses claim {@code name}; {@code mustCheckOwner} when it was generated for the pod. */
  record Named(String name, boolean mustCheckOwner) implements ClaimName {
  }

  /** The pod's status says no claim is needed for the entry. */
  record NotNeeded() implements ClaimName {
  }

  /** A template entry whose claim is not created yet (not in {@code status.resourceClaimStatuses}). */
  record NotCreated() implements ClaimName {
  }

  /** An entry naming neither a claim nor a template (an API this controller does not know). */
  record Unsupported(String message) implements ClaimName {
  }

  static ClaimName claimName(Pod pod, PodResourceClaim podClaim) {
    if (podClaim.getResourceClaimName() != null) {
      return new Named(podClaim.getResourceClaimName(), false);
    }
    if (podClaim.getResourceClaimTemplateName() != null) {
      for (PodResourceClaimStatus status : statuses(pod)) {
        if (podClaim.getName().equals(status.getName())) {
          return status.getResourceClaimName() == null ? new NotNeeded()
              : new Named(status.getResourceClaimName(), true);
        }
      }
      return new NotCreated();
    }
    return new Unsupported("pod \"" + Pods.key(pod) + "\", spec.resourceClaim \"" + podClaim.getName()
        + "\": unsupported ResourceClaim source (neither resourceClaimName nor resourceClaimTemplateName)");
  }

  static List<PodResourceClaim> podClaims(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getResourceClaims() == null ? List.of()
        : pod.getSpec().getResourceClaims();
  }

  static List<PodResourceClaimStatus> statuses(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null ? List.of()
        : pod.getStatus().getResourceClaimStatuses();
  }

  /** Upstream's {@code IsForPod}: empty when the claim's controller is the pod, otherwise why not. */
  static Optional<String> notForPod(Pod pod, ResourceClaim claim) {
    for (OwnerReference ref : ownerReferences(claim)) {
      if (ref.getUid() != null && ref.getUid().equals(pod.getMetadata().getUid())) {
        return Optional.empty();
      }
    }
    return Optional.of("ResourceClaim " + claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName()
        + " was not created for pod " + Pods.key(pod) + " (pod is not owner)");
  }

  /** The pod that controls a generated claim (name and uid), if any. */
  static Optional<OwnerReference> owningPod(ResourceClaim claim) {
    return OwnerReferences.controllerOf(claim)
        .filter(ref -> "v1".equals(ref.getApiVersion()) && "Pod".equals(ref.getKind()));
  }

  static boolean isReservedFor(Pod pod, ResourceClaim claim) {
    return reservedFor(claim).stream().anyMatch(r -> pod.getMetadata().getUid().equals(r.getUid()));
  }

  /** Upstream's {@code CanBeReserved}: fewer than {@value #RESERVED_FOR_MAX_SIZE} consumers. */
  static boolean canBeReserved(ResourceClaim claim) {
    return reservedFor(claim).size() < RESERVED_FOR_MAX_SIZE;
  }

  static boolean isAllocated(ResourceClaim claim) {
    return claim.getStatus() != null && claim.getStatus().getAllocation() != null;
  }

  static List<ResourceClaimConsumerReference> reservedFor(ResourceClaim claim) {
    return claim.getStatus() == null || claim.getStatus().getReservedFor() == null ? List.of()
        : claim.getStatus().getReservedFor();
  }

  /**
   * Upstream's {@code isPodDone}: certain that none of the pod's containers runs or will run (a terminal phase, or
   * deleted before it was scheduled).
   */
  static boolean isDone(Pod pod) {
    String phase = Pods.phase(pod);
    return Pods.PHASE_SUCCEEDED.equals(phase) || Pods.PHASE_FAILED.equals(phase)
        || (pod.getMetadata().getDeletionTimestamp() != null && Pods.nodeName(pod).isEmpty());
  }

  /**
   * {@code <pod>-<claim>-}, or when that is longer than {@value #MAX_GENERATE_NAME_BASE} both parts cut in
   * proportion to their lengths (as upstream does, so that a long pod name does not swallow the claim's name).
   */
  static String generateName(String podName, String podClaimName) {
    String base = podName + "-" + podClaimName + "-";
    if (base.length() <= MAX_GENERATE_NAME_BASE) {
      return base;
    }
    int total = base.length();
    return podName.substring(0, podName.length() * MAX_GENERATE_NAME_BASE / total) + "-"
        + podClaimName.substring(0, podClaimName.length() * MAX_GENERATE_NAME_BASE / total);
  }

  private static List<OwnerReference> ownerReferences(ResourceClaim claim) {
    List<OwnerReference> refs = claim.getMetadata().getOwnerReferences();
    return refs == null ? List.of() : refs;
  }
}
