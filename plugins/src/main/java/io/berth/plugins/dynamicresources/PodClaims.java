package io.berth.plugins.dynamicresources;

import io.berth.framework.ObjectLister;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Resolves a pod's {@code spec.resourceClaims} to ResourceClaims as upstream's
 * {@code resourceclaim.Name} and the plugin's {@code foreachPodResourceClaim}: a
 * {@code resourceClaimName} directly; a {@code resourceClaimTemplateName} through the pod's
 * {@code status.resourceClaimStatuses} (written by the resourceclaim controller; a status entry
 * without a name means no claim is needed), and then the claim must be owned by the pod. A claim
 * that is missing, being deleted or not the pod's is an UnschedulableAndUnresolvable status with
 * upstream's message. Stateless apart from its lister; thread-safe.
 */
final class PodClaims {
  /** Upstream's {@code ResourceClaimReservedForMaxSize}. */
  static final int RESERVED_FOR_MAX_SIZE = 256;

  private final ObjectLister<ResourceClaim> claims;
  private final AllocatedDevices devices;

  PodClaims(ObjectLister<ResourceClaim> claims, AllocatedDevices devices) {
    this.claims = claims;
    this.devices = devices;
  }

  static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  static String key(ResourceClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }

  static boolean hasClaims(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getResourceClaims() != null
        && !pod.getSpec().getResourceClaims().isEmpty();
  }

  /** The pod's claims in {@code spec.resourceClaims} order (entries needing none left out). */
  List<ResourceClaim> of(Pod pod) throws StatusException {
    if (!hasClaims(pod)) {
      return List.of();
    }
    List<ResourceClaim> out = new ArrayList<>();
    for (PodResourceClaim pc : pod.getSpec().getResourceClaims()) {
      Optional<String> name;
      boolean mustCheckOwner;
      if (pc.getResourceClaimName() != null) {
        name = Optional.of(pc.getResourceClaimName());
        mustCheckOwner = false;
      } else if (pc.getResourceClaimTemplateName() != null) {
        PodResourceClaimStatus st = statusOf(pod, pc.getName()).orElseThrow(() ->
            unschedulable("pod \"" + key(pod) + "\": ResourceClaim not created yet"));
        name = Optional.ofNullable(st.getResourceClaimName());
        mustCheckOwner = true;
      } else {
        throw unschedulable("pod \"" + key(pod) + "\", spec.resourceClaim \"" + pc.getName()
            + "\": none of the supported fields are set");
      }
      if (name.isEmpty()) {
        continue;
      }
      ResourceClaim claim = claims.get(pod.getMetadata().getNamespace(), name.get())
          .map(devices::claim)
          .orElseThrow(() -> unschedulable("resourceclaim.resource.k8s.io \"" + name.get()
              + "\" not found"));
      if (claim.getMetadata().getDeletionTimestamp() != null) {
        throw unschedulable("resourceclaim \"" + name.get() + "\" is being deleted");
      }
      if (mustCheckOwner && !ownedBy(claim, pod)) {
        throw unschedulable("ResourceClaim " + key(claim) + " was not created for pod "
            + key(pod) + " (pod is not owner)");
      }
      out.add(claim);
    }
    return out;
  }

  private static Optional<PodResourceClaimStatus> statusOf(Pod pod, String podClaimName) {
    if (pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getResourceClaimStatuses().stream()
        .filter(s -> Objects.equals(s.getName(), podClaimName)).findFirst();
  }

  private static boolean ownedBy(ResourceClaim claim, Pod pod) {
    List<OwnerReference> refs = claim.getMetadata().getOwnerReferences();
    return refs != null && refs.stream().anyMatch(r -> Boolean.TRUE.equals(r.getController())
        && Objects.equals(r.getUid(), pod.getMetadata().getUid()));
  }

  static boolean isReservedFor(ResourceClaim claim, Pod pod) {
    return reservedFor(claim).stream()
        .anyMatch(r -> Objects.equals(r.getUid(), pod.getMetadata().getUid()));
  }

  static boolean canBeReserved(ResourceClaim claim) {
    return reservedFor(claim).size() < RESERVED_FOR_MAX_SIZE;
  }

  static List<ResourceClaimConsumerReference> reservedFor(ResourceClaim claim) {
    return claim.getStatus() == null || claim.getStatus().getReservedFor() == null ? List.of()
        : claim.getStatus().getReservedFor();
  }

  static boolean allocated(ResourceClaim claim) {
    return claim.getStatus() != null && claim.getStatus().getAllocation() != null;
  }

  private static StatusException unschedulable(String message) {
    return new StatusException(Status.unresolvable(message));
  }
}
