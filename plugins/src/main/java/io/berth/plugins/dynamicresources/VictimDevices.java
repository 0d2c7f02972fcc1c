package io.berth.plugins.dynamicresources;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * DynamicResources' PreFilter extensions, so that preemption's dry run sees devices of removed
 * victims as free: removing a pod frees the devices of its allocated claims that are reserved for
 * it alone; adding it back takes them again. Works on the cycle state's {@code freed} set, which
 * each copy of the state has for itself. Stateless; runs on preemption's threads.
 */
final class VictimDevices implements PreFilterExtensions {
  private final Function<CycleState, Optional<DynamicResourcesState>> state;
  private final PodClaims podClaims;
  private final boolean consumableCapacity;

  VictimDevices(Function<CycleState, Optional<DynamicResourcesState>> state,
      PodClaims podClaims, boolean consumableCapacity) {
    this.state = state;
    this.podClaims = podClaims;
    this.consumableCapacity = consumableCapacity;
  }

  @Override
  public Status addPod(CycleState cs, Pod podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo) {
    // nothing was freed on this copy (the framework adds nominated pods on every node that has
    // some): nothing to take back, no claims to resolve
    state.apply(cs).filter(s -> !s.freed.isEmpty())
        .ifPresent(s -> s.freed.removeAll(exclusiveDevices(podToAdd.pod())));
    return Status.SUCCESS;
  }

  @Override
  public Status removePod(CycleState cs, Pod podToSchedule, PodInfo podToRemove,
      NodeInfo nodeInfo) {
    // only a pod with claims allocates devices (a claimless pod's state is shared by every copy)
    state.apply(cs).filter(DynamicResourcesState::hasClaims)
        .ifPresent(s -> s.freed.addAll(exclusiveDevices(podToRemove.pod())));
    return Status.SUCCESS;
  }

  private Set<DeviceId> exclusiveDevices(Pod pod) {
    if (!PodClaims.hasClaims(pod)) {
      return Set.of();
    }
    List<ResourceClaim> claims;
    try {
      claims = podClaims.of(pod);
    } catch (StatusException e) {
      return Set.of();
    }
    Set<DeviceId> out = new HashSet<>();
    for (ResourceClaim c : claims) {
      List<ResourceClaimConsumerReference> reserved = PodClaims.reservedFor(c);
      if (PodClaims.allocated(c) && reserved.stream().allMatch(r ->
          Objects.equals(r.getUid(), pod.getMetadata().getUid()))) {
        out.addAll(AllocatedDevices.devices(c.getStatus().getAllocation(),
            consumableCapacity));
      }
    }
    return out;
  }
}
