package io.berth.plugins.dynamicresources;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.function.Supplier;

/**
 * The plugin's ResourceClaim writes, as upstream's {@code bindClaim}, PostFilter and Unreserve:
 * PreBind adds the finalizer (a normal update), then {@code status.allocation} and a
 * {@code reservedFor} entry for the pod in one status update, retrying on conflicts with a fresh
 * claim; PostFilter clears allocation and reservations; Unreserve removes the pod's entry with a
 * strategic-merge patch (no resourceVersion, so concurrent writers do not conflict). Stateless;
 * called from binding threads and the scheduling thread.
 */
final class ClaimWriter implements ClaimWrites {
  private static final int RETRIES = 5;
  private final Supplier<KubernetesClient> client;

  ClaimWriter(Supplier<KubernetesClient> client) {
    this.client = client;
  }

  /**
   * Records {@code allocation} (null: the claim is allocated already) and reserves the claim for
   * {@code pod}; answers the claim as written.
   */
  @Override
  public ResourceClaim bind(ResourceClaim start, AllocationResult allocation, Pod pod)
      throws BindException {
    ResourceClaim claim = start;
    String key = PodClaims.key(start);
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0) {
        try {
          claim = claims(start).withName(start.getMetadata().getName()).get();
        } catch (KubernetesClientException e) {
          throw new BindException("get updated claim " + key + " after conflict: "
              + e.getMessage());
        }
        if (claim == null) {
          throw new BindException("claim " + key + " got deleted in the meantime");
        }
      }
      if (claim.getMetadata().getDeletionTimestamp() != null) {
        throw new BindException("claim " + key + " got deleted in the meantime");
      }
      try {
        ResourceClaimBuilder next = new ResourceClaimBuilder(claim);
        if (allocation != null) {
          if (PodClaims.allocated(claim)) {
            throw new BindException("claim " + key + " got allocated elsewhere in the meantime");
          }
          if (claim.getMetadata().getFinalizers() == null
              || !claim.getMetadata().getFinalizers().contains(DynamicResources.FINALIZER)) {
            ResourceClaim withFinalizer = new ResourceClaimBuilder(claim).editMetadata()
                .addToFinalizers(DynamicResources.FINALIZER).endMetadata().build();
            try {
              claim = claims(claim).resource(withFinalizer).update();
            } catch (KubernetesClientException e) {
              if (e.getCode() == 409 && attempt < RETRIES) {
                continue;
              }
              throw new BindException("add finalizer to claim " + key + ": " + e.getMessage());
            }
            next = new ResourceClaimBuilder(claim);
          }
          next.editOrNewStatus().withAllocation(allocation).endStatus();
        }
        ResourceClaim updated = next.editOrNewStatus().addToReservedFor(
            new ResourceClaimConsumerReferenceBuilder().withResource("pods")
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid())
                .build()).endStatus().build();
        return claims(updated).resource(updated).updateStatus();
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409 && attempt < RETRIES) {
          continue;
        }
        throw new BindException((allocation != null ? "add allocation and reservation to claim "
            : "add reservation to claim ") + key + ": " + e.getMessage());
      }
    }
  }

  /** PostFilter: frees the claim's devices (reservedFor and allocation cleared). */
  @Override
  public void deallocate(ResourceClaim claim) {
    ResourceClaim cleared = new ResourceClaimBuilder(claim).editOrNewStatus()
        .withReservedFor((java.util.List<io.fabric8.kubernetes.api.model.resource.v1
            .ResourceClaimConsumerReference>) null).withAllocation(null).endStatus().build();
    claims(claim).resource(cleared).updateStatus();
  }

  /** Unreserve: removes the pod's {@code reservedFor} entry. */
  @Override
  public void unreserve(ResourceClaim claim, Pod pod) {
    String patch = "{\"metadata\":{\"uid\":\"" + claim.getMetadata().getUid() + "\"},"
        + "\"status\":{\"reservedFor\":[{\"$patch\":\"delete\",\"uid\":\""
        + pod.getMetadata().getUid() + "\"}]}}";
    claims(claim).withName(claim.getMetadata().getName()).subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
  }

  private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<ResourceClaim,
      io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList,
      io.fabric8.kubernetes.client.dsl.Resource<ResourceClaim>> claims(ResourceClaim claim) {
    return client.get().resources(ResourceClaim.class,
            io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList.class)
        .inNamespace(claim.getMetadata().getNamespace());
  }
}
