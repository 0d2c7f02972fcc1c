package io.berth.controller.resourceclaim;

import io.berth.informer.Indexer;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.Lister;
import io.berth.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Optional;

/**
 * Turns pod and claim events into keys of the {@code resource-claim-controller}'s queue, as upstream's
 * {@code enqueuePod} and {@code enqueueResourceClaim}: a pod with resource claims is queued when it may need a
 * claim created or a reservation added; a pod that is deleted, terminal or deleted before scheduling queues its
 * claims (their reservations may go); every added or updated claim is queued (stale reservations after a restart)
 * and re-checks the pods that use it. A deleted pod's UID goes to {@link DeletedPods}. Called on the informers'
 * notification threads; thread-safe (the queue, the caches and the indexes are).
 */
final class ResourceClaimEventHandlers {

  /** Pods by the {@code namespace/name} of the claims they use (upstream's {@code pod-resource-claim-index}). */
  static final String POD_RESOURCE_CLAIM_INDEX = "pod-resource-claim-index";
  /** Claims by the UID of the pod that controls them (upstream's {@code claim-pod-owner-index}). */
  static final String CLAIM_POD_OWNER_INDEX = "claim-pod-owner-index";

  private final WorkQueue<String> queue;
  private final Lister<ResourceClaim> claims;
  private final Indexer<Pod> podIndexer;
  private final DeletedPods deletedPods;
  private final CreatedClaims createdClaims;

  ResourceClaimEventHandlers(WorkQueue<String> queue, Lister<ResourceClaim> claims, Indexer<Pod> podIndexer,
      DeletedPods deletedPods, CreatedClaims createdClaims) {
    this.queue = queue;
    this.claims = claims;
    this.podIndexer = podIndexer;
    this.deletedPods = deletedPods;
    this.createdClaims = createdClaims;
  }

  /** The pod index function: {@code namespace/claim} of every claim the pod's entries resolve to. */
  static List<String> podClaimKeys(Pod pod) {
    return PodClaims.podClaims(pod).stream().map(c -> PodClaims.claimName(pod, c))
        .filter(PodClaims.Named.class::isInstance)
        .map(n -> pod.getMetadata().getNamespace() + "/" + ((PodClaims.Named) n).name()).toList();
  }

  /** The claim index function: the UID of the pod that controls the claim. */
  static List<String> claimOwnerUids(ResourceClaim claim) {
    return PodClaims.owningPod(claim).map(ref -> List.of(ref.getUid())).orElse(List.of());
  }

  ResourceEventHandler<Pod> podHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod, boolean isInInitialList) {
        enqueuePod(pod, false);
      }

      @Override
      public void onUpdate(Pod oldPod, Pod newPod) {
        enqueuePod(newPod, false);
      }

      @Override
      public void onDelete(Pod pod, boolean finalStateUnknown) {
        enqueuePod(pod, true);
      }
    };
  }

  ResourceEventHandler<ResourceClaim> claimHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ResourceClaim claim, boolean isInInitialList) {
        createdClaims.observed(claim);
        enqueueClaim(claim, false);
      }

      @Override
      public void onUpdate(ResourceClaim oldClaim, ResourceClaim newClaim) {
        enqueueClaim(newClaim, false);
      }

      @Override
      public void onDelete(ResourceClaim claim, boolean finalStateUnknown) {
        createdClaims.observed(claim);
        enqueueClaim(claim, true);
      }
    };
  }

  void enqueuePod(Pod pod, boolean deleted) {
    List<PodResourceClaim> podClaims = PodClaims.podClaims(pod);
    if (podClaims.isEmpty()) {
      return;
    }
    if (deleted) {
      deletedPods.add(pod.getMetadata().getUid());
      createdClaims.podDeleted(pod.getMetadata().getUid());
    }
    if (!needsClaims(pod, deleted)) {
      // Release the reservations of a deleted or finished pod.
      for (PodResourceClaim podClaim : podClaims) {
        if (PodClaims.claimName(pod, podClaim) instanceof PodClaims.Named named) {
          queue.add(ResourceClaimSync.CLAIM_KEY_PREFIX + pod.getMetadata().getNamespace() + "/" + named.name());
        }
      }
    }
    if (needsWork(pod)) {
      queue.add(ResourceClaimSync.POD_KEY_PREFIX + pod.getMetadata().getNamespace() + "/"
          + pod.getMetadata().getName());
    }
  }

  private static boolean needsClaims(Pod pod, boolean deleted) {
    return !deleted && !PodClaims.isDone(pod);
  }

  /**
   * Upstream's {@code podNeedsWork}, except that an entry without work does not end the check of the entries after
   * it (upstream returns early for an unneeded or user-created claim and would not see a later template entry).
   */
  boolean needsWork(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
      PodClaims.ClaimName name = PodClaims.claimName(pod, podClaim);
      if (name instanceof PodClaims.NotCreated || name instanceof PodClaims.Unsupported) {
        return true;
      }
      if (!(name instanceof PodClaims.Named named)) {
        continue;
      }
      Optional<ResourceClaim> claim = claims.get(pod.getMetadata().getNamespace(), named.name());
      if (claim.isEmpty()) {
        if (podClaim.getResourceClaimTemplateName() != null) {
          return true; // must create it from the template again
        }
        continue; // the user must create it
      }
      if (named.mustCheckOwner() && PodClaims.notForPod(pod, claim.get()).isPresent()) {
        continue; // a conflicting claim must be removed by the user
      }
      if (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty()) {
        continue;
      }
      if (PodClaims.isAllocated(claim.get()) && !PodClaims.isReservedFor(pod, claim.get())
          && PodClaims.canBeReserved(claim.get())) {
        return true;
      }
    }
    return false;
  }

  void enqueueClaim(ResourceClaim claim, boolean deleted) {
    String key = claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
    if (!deleted) {
      queue.add(ResourceClaimSync.CLAIM_KEY_PREFIX + key);
    }
    for (Pod pod : podIndexer.byIndex(POD_RESOURCE_CLAIM_INDEX, key)) {
      enqueuePod(pod, false);
    }
  }
}
