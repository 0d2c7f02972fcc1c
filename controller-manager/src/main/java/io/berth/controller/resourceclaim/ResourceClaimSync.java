package io.berth.controller.resourceclaim;

import io.berth.controller.EventRecorder;
import io.berth.controller.KubeApiErrors;
import io.berth.controller.Pods;
import io.berth.informer.Lister;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sync of the {@code resource-claim-controller} (upstream's {@code syncPod} and {@code syncClaim}), for a key
 * {@code pod:<namespace>/<name>} or {@code claim:<namespace>/<name>}.
 *
 * <p>A pod: for every {@code spec.resourceClaims} entry naming a template whose claim does not exist, create the
 * claim ({@code generateName} {@code <pod>-<entry>-}, the template's labels and annotations plus
 * {@value PodClaims#POD_CLAIM_NAME_ANNOTATION}, a controller owner reference to the pod, the template's spec) unless
 * one created earlier is found, then record the names in {@code status.resourceClaimStatuses}; a failure records a
 * {@code FailedResourceClaimCreation} Warning on the pod and retries. A scheduled pod whose allocated claim does not
 * list it yet is added to {@code reservedFor}.
 *
 * <p>A claim: drop the {@code reservedFor} entries of pods that are gone, replaced (other UID) or done; when none
 * remains and the claim carries the scheduler's {@value PodClaims#DELETE_PROTECTION_FINALIZER} finalizer, clear the
 * allocation (the devices are free) and remove the finalizer; delete a claim generated for a pod that is done or
 * replaced. Writes use the read resourceVersion, so a concurrent change conflicts and the key is retried.
 *
 * <p>Thread-safe: workers share it; the queue never hands one key to two workers at once.
 */
final class ResourceClaimSync {

  private static final Logger LOG = LoggerFactory.getLogger(ResourceClaimSync.class);

  static final String POD_KEY_PREFIX = "pod:";
  static final String CLAIM_KEY_PREFIX = "claim:";
  /** The Warning reason on a pod whose claim cannot be created. */
  static final String FAILED_RESOURCE_CLAIM_CREATION = "FailedResourceClaimCreation";

  private final Lister<Pod> pods;
  private final Lister<ResourceClaim> claims;
  private final Lister<ResourceClaimTemplate> templates;
  private final Function<String, List<ResourceClaim>> claimsOwnedByPod;
  private final ResourceClaimApi api;
  private final EventRecorder recorder;
  private final DeletedPods deletedPods;
  private final CreatedClaims createdClaims;
  private final ResourceClaimMetrics metrics;

  /**
   * @param claimsOwnedByPod the cached claims whose controller is the pod of this UID (an informer index)
   */
  ResourceClaimSync(Lister<Pod> pods, Lister<ResourceClaim> claims, Lister<ResourceClaimTemplate> templates,
      Function<String, List<ResourceClaim>> claimsOwnedByPod, ResourceClaimApi api, EventRecorder recorder,
      DeletedPods deletedPods, CreatedClaims createdClaims, ResourceClaimMetrics metrics) {
    this.pods = pods;
    this.claims = claims;
    this.templates = templates;
    this.claimsOwnedByPod = claimsOwnedByPod;
    this.api = api;
    this.recorder = recorder;
    this.deletedPods = deletedPods;
    this.createdClaims = createdClaims;
    this.metrics = metrics;
  }

  void sync(String key) {
    int slash = key.indexOf('/');
    if (key.startsWith(POD_KEY_PREFIX) && slash > 0) {
      syncPod(key.substring(POD_KEY_PREFIX.length(), slash), key.substring(slash + 1));
    } else if (key.startsWith(CLAIM_KEY_PREFIX) && slash > 0) {
      syncClaim(key.substring(CLAIM_KEY_PREFIX.length(), slash), key.substring(slash + 1));
    } else {
      LOG.error("resource-claim-controller: unexpected key {}", key);
    }
  }

  // ------------------------------------------------------------------ pods

  void syncPod(String namespace, String name) {
    Optional<Pod> cached = pods.get(namespace, name);
    if (cached.isEmpty() || cached.get().getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    Pod pod = cached.get();
    Map<String, String> newPodClaims = new LinkedHashMap<>();
    for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
      try {
        handleClaim(pod, podClaim, newPodClaims);
      } catch (RuntimeException e) {
        String why = e instanceof KubernetesClientException ? KubeApiErrors.message(e) : e.getMessage();
        recorder.event(pod, EventRecorder.WARNING, FAILED_RESOURCE_CLAIM_CREATION, "PodResourceClaim %s: %s",
            podClaim.getName(), why);
        throw new IllegalStateException("pod " + Pods.key(pod) + ", PodResourceClaim " + podClaim.getName() + ": "
            + why, e);
      }
    }
    if (!newPodClaims.isEmpty()) {
      List<PodResourceClaimStatus> statuses = new ArrayList<>();
      for (PodResourceClaimStatus existing : PodClaims.statuses(pod)) {
        if (!newPodClaims.containsKey(existing.getName())) {
          statuses.add(existing);
        }
      }
      newPodClaims.forEach((podClaim, claim) -> statuses.add(new PodResourceClaimStatus(podClaim, claim)));
      api.setPodClaimStatuses(pod, statuses);
    }
    if (Pods.nodeName(pod).isEmpty()) {
      return; // the scheduler allocates and reserves
    }
    for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
      if (!(PodClaims.claimName(pod, podClaim) instanceof PodClaims.Named named)) {
        continue;
      }
      Optional<ResourceClaim> claim = claims.get(namespace, named.name());
      if (claim.isEmpty()) {
        return;
      }
      if (named.mustCheckOwner()) {
        PodClaims.notForPod(pod, claim.get()).ifPresent(why -> {
          throw new IllegalStateException(why);
        });
      }
      if (PodClaims.isAllocated(claim.get()) && !PodClaims.isReservedFor(pod, claim.get())
          && PodClaims.canBeReserved(claim.get())) {
        reserveForPod(pod, claim.get());
      }
    }
  }

  private void handleClaim(Pod pod, PodResourceClaim podClaim, Map<String, String> newPodClaims) {
    PodClaims.ClaimName claimName = PodClaims.claimName(pod, podClaim);
    if (claimName instanceof PodClaims.Unsupported unsupported) {
      throw new IllegalStateException("checking for claim before creating it: " + unsupported.message());
    }
    if (claimName instanceof PodClaims.NotNeeded) {
      return;
    }
    if (claimName instanceof PodClaims.Named named) {
      Optional<ResourceClaim> existing = claims.get(pod.getMetadata().getNamespace(), named.name());
      if (existing.isPresent()) {
        Optional<String> notForPod = named.mustCheckOwner() ? PodClaims.notForPod(pod, existing.get())
            : Optional.empty();
        if (notForPod.isEmpty()) {
          return;
        }
        LOG.error("claim {} that was created for pod {} is no longer owned by the pod, creating a new one: {}",
            named.name(), Pods.key(pod), notForPod.get());
      }
    }
    String templateName = podClaim.getResourceClaimTemplateName();
    if (templateName == null) {
      return;
    }
    ResourceClaim claim = findPodResourceClaim(pod, podClaim).orElse(null);
    if (claim == null) {
      ResourceClaimTemplate template = templates.get(pod.getMetadata().getNamespace(), templateName)
          .orElseThrow(() -> new IllegalStateException("resource claim template \"" + templateName
              + "\": resourceclaimtemplate.resource.k8s.io \"" + templateName + "\" not found"));
      ResourceClaim wanted = claimFor(pod, podClaim, template);
      boolean adminAccess = adminAccess(wanted);
      try {
        claim = api.createClaim(wanted);
      } catch (RuntimeException e) {
        metrics.created(false, adminAccess);
        throw new IllegalStateException("create ResourceClaim " + wanted.getMetadata().getGenerateName() + ": "
            + KubeApiErrors.message(e), e);
      }
      metrics.created(true, adminAccess);
      createdClaims.add(pod.getMetadata().getUid(), claim);
    }
    newPodClaims.put(podClaim.getName(), claim.getMetadata().getName());
  }

  /** A claim the pod owns for this entry (annotated with it), from the informer or created and not seen yet. */
  private Optional<ResourceClaim> findPodResourceClaim(Pod pod, PodResourceClaim podClaim) {
    String podUid = pod.getMetadata().getUid();
    String deterministicName = pod.getMetadata().getName() + "-" + podClaim.getName(); // Kubernetes <= 1.27
    for (ResourceClaim claim : claimsOwnedByPod.apply(podUid)) {
      Map<String, String> annotations = claim.getMetadata().getAnnotations();
      String annotated = annotations == null ? null : annotations.get(PodClaims.POD_CLAIM_NAME_ANNOTATION);
      if (annotated != null ? annotated.equals(podClaim.getName())
          : claim.getMetadata().getName().equals(deterministicName)) {
        return Optional.of(claim);
      }
    }
    return createdClaims.find(podUid, podClaim.getName());
  }

  static ResourceClaim claimFor(Pod pod, PodResourceClaim podClaim, ResourceClaimTemplate template) {
    ObjectMeta templateMeta = template.getSpec().getMetadata();
    Map<String, String> annotations = new LinkedHashMap<>();
    if (templateMeta != null && templateMeta.getAnnotations() != null) {
      annotations.putAll(templateMeta.getAnnotations());
    }
    annotations.put(PodClaims.POD_CLAIM_NAME_ANNOTATION, podClaim.getName());
    Map<String, String> labels = templateMeta == null || templateMeta.getLabels() == null ? null
        : new LinkedHashMap<>(templateMeta.getLabels());
    OwnerReference owner = new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod")
        .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).withController(true)
        .withBlockOwnerDeletion(true).build();
    return new ResourceClaimBuilder().withNewMetadata()
        .withGenerateName(PodClaims.generateName(pod.getMetadata().getName(), podClaim.getName()))
        .withNamespace(pod.getMetadata().getNamespace()).withOwnerReferences(owner).withAnnotations(annotations)
        .withLabels(labels).endMetadata()
        .withSpec(template.getSpec().getSpec()).build();
  }

  private static boolean adminAccess(ResourceClaim claim) {
    if (claim.getSpec() == null || claim.getSpec().getDevices() == null
        || claim.getSpec().getDevices().getRequests() == null) {
      return false;
    }
    for (DeviceRequest request : claim.getSpec().getDevices().getRequests()) {
      if (request.getExactly() != null && Boolean.TRUE.equals(request.getExactly().getAdminAccess())) {
        return true;
      }
    }
    return false;
  }

  private void reserveForPod(Pod pod, ResourceClaim claim) {
    ResourceClaim copy = new ResourceClaimBuilder(claim).build();
    List<ResourceClaimConsumerReference> reserved = new ArrayList<>(PodClaims.reservedFor(claim));
    reserved.add(new ResourceClaimConsumerReferenceBuilder().withResource("pods")
        .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build());
    copy.getStatus().setReservedFor(reserved);
    api.updateClaimStatus(copy);
  }

  // ------------------------------------------------------------------ claims

  void syncClaim(String namespace, String name) {
    Optional<ResourceClaim> cached = claims.get(namespace, name);
    if (cached.isEmpty()) {
      return;
    }
    ResourceClaim claim = cached.get();
    List<ResourceClaimConsumerReference> reservedFor = PodClaims.reservedFor(claim);
    List<ResourceClaimConsumerReference> valid = new ArrayList<>();
    for (ResourceClaimConsumerReference ref : reservedFor) {
      boolean isPod = (ref.getApiGroup() == null || ref.getApiGroup().isEmpty()) && "pods".equals(ref.getResource());
      if (!isPod) {
        throw new IllegalStateException("claim " + namespace + "/" + name + ": unsupported ReservedFor entry: "
            + ref.getApiGroup() + "/" + ref.getResource() + " " + ref.getName());
      }
      if (podStillUsesClaim(namespace, ref)) {
        valid.add(ref);
      }
    }
    boolean protectedByScheduler = finalizers(claim).contains(PodClaims.DELETE_PROTECTION_FINALIZER);
    if (valid.size() < reservedFor.size()) {
      ResourceClaim copy = new ResourceClaimBuilder(claim).build();
      copy.getStatus().setReservedFor(valid);
      if (valid.isEmpty() && protectedByScheduler) {
        // Allocated by the scheduler: "deallocate" by clearing the allocation, which frees the devices.
        copy.getStatus().setAllocation(null);
      }
      ResourceClaim updated = api.updateClaimStatus(copy);
      if (protectedByScheduler && !PodClaims.isAllocated(updated)) {
        removeFinalizer(updated);
      }
    } else if (protectedByScheduler && claim.getMetadata().getDeletionTimestamp() != null && valid.isEmpty()) {
      ResourceClaim current = claim;
      if (PodClaims.isAllocated(claim)) {
        ResourceClaim copy = new ResourceClaimBuilder(claim).build();
        copy.getStatus().setAllocation(null);
        current = api.updateClaimStatus(copy);
      }
      removeFinalizer(current);
    }
    if (valid.isEmpty()) {
      deleteIfOwnerDone(claim);
    }
  }

  /**
   * A pod the informer has may keep its reservation until it is done; one it does not have is checked live, since
   * dropping a reservation of a pod the scheduler is binding right now would be wrong.
   */
  private boolean podStillUsesClaim(String namespace, ResourceClaimConsumerReference ref) {
    if (deletedPods.contains(ref.getUid())) {
      return false;
    }
    Optional<Pod> pod = pods.get(namespace, ref.getName());
    if (pod.isEmpty()) {
      pod = api.getPod(namespace, ref.getName());
      return pod.isPresent() && pod.get().getMetadata().getUid().equals(ref.getUid());
    }
    return pod.get().getMetadata().getUid().equals(ref.getUid()) && !PodClaims.isDone(pod.get());
  }

  private void removeFinalizer(ResourceClaim claim) {
    ResourceClaim copy = new ResourceClaimBuilder(claim).build();
    List<String> finalizers = new ArrayList<>(finalizers(claim));
    finalizers.remove(PodClaims.DELETE_PROTECTION_FINALIZER);
    copy.getMetadata().setFinalizers(finalizers);
    api.updateClaim(copy);
  }

  private void deleteIfOwnerDone(ResourceClaim claim) {
    Optional<OwnerReference> owner = PodClaims.owningPod(claim);
    if (owner.isEmpty() || claim.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    Optional<Pod> pod = pods.get(claim.getMetadata().getNamespace(), owner.get().getName());
    // A pod the informer does not have (yet) is left to the garbage collector, as upstream does.
    if (pod.isPresent() && (!pod.get().getMetadata().getUid().equals(owner.get().getUid())
        || PodClaims.isDone(pod.get()))) {
      LOG.debug("deleting unused generated claim {}/{}", claim.getMetadata().getNamespace(),
          claim.getMetadata().getName());
      try {
        api.deleteClaim(claim.getMetadata().getNamespace(), claim.getMetadata().getName());
      } catch (RuntimeException e) {
        if (!KubeApiErrors.isNotFound(e)) {
          throw new IllegalStateException("delete claim: " + KubeApiErrors.message(e), e);
        }
      }
    }
  }

  private static List<String> finalizers(ResourceClaim claim) {
    return claim.getMetadata().getFinalizers() == null ? List.of() : claim.getMetadata().getFinalizers();
  }
}
