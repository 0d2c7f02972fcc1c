package io.berth.controller.resourceclaim;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory API for unit tests of {@link ResourceClaimSync}: claims by {@code namespace/name} with generated
 * names, live pods, the writes it was asked for, and failures to inject. Thread-safe (concurrent collections).
 */
final class FakeResourceClaimApi implements ResourceClaimApi {

  final Map<String, ResourceClaim> claims = new ConcurrentHashMap<>();
  final Map<String, Pod> livePods = new ConcurrentHashMap<>();
  final Map<String, List<PodResourceClaimStatus>> podStatuses = new ConcurrentHashMap<>();
  final List<String> calls = new CopyOnWriteArrayList<>();
  final AtomicInteger failStatusWrites = new AtomicInteger();
  final AtomicInteger failCreates = new AtomicInteger();
  private final AtomicInteger suffix = new AtomicInteger();

  private static String key(ResourceClaim c) {
    return c.getMetadata().getNamespace() + "/" + c.getMetadata().getName();
  }

  private static KubernetesClientException error(int code, String message) {
    return new KubernetesClientException(new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @Override
  public ResourceClaim createClaim(ResourceClaim claim) {
    calls.add("create " + claim.getMetadata().getGenerateName());
    if (failCreates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw error(403, "resourceclaims is forbidden");
    }
    ResourceClaim created = new ResourceClaimBuilder(claim).editMetadata()
        .withName(claim.getMetadata().getGenerateName() + "x" + suffix.incrementAndGet())
        .withUid("claim-uid-" + suffix.get()).withResourceVersion("1").endMetadata().build();
    claims.put(key(created), created);
    return created;
  }

  @Override
  public ResourceClaim updateClaimStatus(ResourceClaim claim) {
    calls.add("updateStatus " + claim.getMetadata().getName());
    claims.put(key(claim), claim);
    return claim;
  }

  @Override
  public ResourceClaim updateClaim(ResourceClaim claim) {
    calls.add("update " + claim.getMetadata().getName());
    claims.put(key(claim), claim);
    return claim;
  }

  @Override
  public void deleteClaim(String namespace, String name) {
    calls.add("delete " + name);
    claims.remove(namespace + "/" + name);
  }

  @Override
  public Optional<Pod> getPod(String namespace, String name) {
    calls.add("getPod " + name);
    return Optional.ofNullable(livePods.get(namespace + "/" + name));
  }

  @Override
  public void setPodClaimStatuses(Pod pod, List<PodResourceClaimStatus> statuses) {
    calls.add("podStatus " + pod.getMetadata().getName());
    if (failStatusWrites.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw error(409, "the object has been modified");
    }
    podStatuses.put(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), new ArrayList<>(statuses));
  }
}
