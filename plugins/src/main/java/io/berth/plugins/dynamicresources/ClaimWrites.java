package io.berth.plugins.dynamicresources;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

/**
 * Where DynamicResources writes ResourceClaims: the API server ({@link ClaimWriter}) in the
 * daemon, an in-memory store in harnesses without one. Implementations are thread-safe (PreBind
 * and Unreserve run on binding threads, PostFilter on the scheduling thread).
 */
public interface ClaimWrites {
  /**
   * Records {@code allocation} (null: the claim is allocated already) and appends {@code pod} to
   * {@code status.reservedFor}; answers the claim as written.
   *
   * @throws BindException naming the claim and what failed
   */
  ResourceClaim bind(ResourceClaim claim, AllocationResult allocation, Pod pod)
      throws BindException;

  /** Clears {@code status.allocation} and {@code status.reservedFor} (PostFilter). */
  void deallocate(ResourceClaim claim);

  /** Removes {@code pod} from {@code status.reservedFor} (Unreserve). */
  void unreserve(ResourceClaim claim, Pod pod);

  /** A claim could not be bound; the message says which and why, as upstream. */
  final class BindException extends Exception {
    public BindException(String message) {
      super(message);
    }
  }
}
