package io.berth.controller.resourceclaim;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API calls of the {@code resource-claim-controller}, by name (never a LIST): create a claim, update a claim
 * or its status with its resourceVersion as precondition, delete a claim, read a pod live, and write a pod's
 * {@code status.resourceClaimStatuses}. An interface so that unit tests answer from fixtures; implementations are
 * thread-safe and throw the client's exception on failure.
 */
interface ResourceClaimApi {

  ResourceClaim createClaim(ResourceClaim claim);

  /** Writes {@code claim.status} through {@code /status}; conflicts when the claim changed since it was read. */
  ResourceClaim updateClaimStatus(ResourceClaim claim);

  /** Replaces the claim (its finalizers); conflicts when it changed since it was read. */
  ResourceClaim updateClaim(ResourceClaim claim);

  void deleteClaim(String namespace, String name);

  /** The pod as the server has it now; empty if it does not exist. */
  Optional<Pod> getPod(String namespace, String name);

  /** Sets the pod's {@code status.resourceClaimStatuses} to {@code statuses} (the whole list). */
  void setPodClaimStatuses(Pod pod, List<PodResourceClaimStatus> statuses);

  /** The API server through {@code client}. */
  static ResourceClaimApi of(KubernetesClient client) {
    return new ResourceClaimApi() {
      @Override
      public ResourceClaim createClaim(ResourceClaim claim) {
        return client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace()).resource(claim)
            .create();
      }

      @Override
      public ResourceClaim updateClaimStatus(ResourceClaim claim) {
        return client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace()).resource(claim)
            .updateStatus();
      }

      @Override
      public ResourceClaim updateClaim(ResourceClaim claim) {
        return client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace()).resource(claim)
            .update();
      }

      @Override
      public void deleteClaim(String namespace, String name) {
        client.resources(ResourceClaim.class).inNamespace(namespace).withName(name).delete();
      }

      @Override
      public Optional<Pod> getPod(String namespace, String name) {
        return Optional.ofNullable(client.pods().inNamespace(namespace).withName(name).get());
      }

      @Override
      public void setPodClaimStatuses(Pod pod, List<PodResourceClaimStatus> statuses) {
        // A JSON merge patch replaces the list as a whole: this controller is its only writer.
        List<Map<String, Object>> entries = statuses.stream().map(s -> {
          Map<String, Object> entry = new LinkedHashMap<>();
          entry.put("name", s.getName());
          entry.put("resourceClaimName", s.getResourceClaimName());
          return entry;
        }).toList();
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
            .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                Serialization.asJson(Map.of("status", Map.of("resourceClaimStatuses", entries))));
      }
    };
  }
}
