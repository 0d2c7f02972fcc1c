package io.berth.plugins.dynamicresources;

import io.berth.framework.NodeSelectorMatcher;
import io.berth.framework.StateData;
import io.berth.plugins.dynamicresources.structured.Allocator;
import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The plugin's cycle state, written in PreFilter: the pod's claims (1:1 with its
 * {@code spec.resourceClaims} that need one), the node selectors of the allocated ones, the
 * allocator for the others, Filter's allocation per node, the claims some node rejected, and
 * (for preemption's simulations) the devices of victims taken off a node.
 *
 * <p>Filter writes {@code nodeAllocations} and {@code unavailableClaims} from many threads
 * (concurrent collections); PreBind replaces {@code claims} entries on the binding thread; the
 * rest is written once in PreFilter. {@link #copy} shares everything but the freed devices, as
 * upstream shares its whole state between copies: the framework copies the cycle state for each
 * node with nominated pods (pods in their binding cycle are nominated) and for each preemption
 * candidate, so a copy must cost nothing per node already filtered; Filter on a copy stores its
 * node's allocation in the shared map, which the pass on the original state (or a later cycle)
 * overwrites, as upstream's does. The state of a pod without claims (PreFilter skips the plugin,
 * so neither Filter nor the PreFilter extensions touch it) is never changed after PreFilter:
 * {@link #copy} returns it itself, so that copying the cycle state for every node with nominated
 * pods and every preemption candidate allocates nothing for it (nor a map of the storage).
 */
final class DynamicResourcesState implements StateData {
  final ResourceClaim[] claims;
  final NodeSelectorMatcher[] availableOnNodes;
  final AllocationResult[] allocations;
  final Allocator allocator;
  final Map<String, Allocator.Allocation> nodeAllocations;
  final Set<Integer> unavailableClaims;
  // devices of pods preemption's simulation removed from the node being evaluated
  final Set<DeviceId> freed;

  DynamicResourcesState(List<ResourceClaim> claims, NodeSelectorMatcher[] availableOnNodes,
      Allocator allocator) {
    this(claims.toArray(ResourceClaim[]::new), availableOnNodes,
        new AllocationResult[claims.size()], allocator, new ConcurrentHashMap<>(),
        ConcurrentHashMap.newKeySet(), ConcurrentHashMap.newKeySet());
  }

  private DynamicResourcesState(ResourceClaim[] claims, NodeSelectorMatcher[] availableOnNodes,
      AllocationResult[] allocations, Allocator allocator,
      Map<String, Allocator.Allocation> nodeAllocations, Set<Integer> unavailableClaims,
      Set<DeviceId> freed) {
    this.claims = claims;
    this.availableOnNodes = availableOnNodes;
    this.allocations = allocations;
    this.allocator = allocator;
    this.nodeAllocations = nodeAllocations;
    this.unavailableClaims = unavailableClaims;
    this.freed = freed;
  }

  static DynamicResourcesState empty() {
    return new DynamicResourcesState(List.of(), new NodeSelectorMatcher[0], null);
  }

  boolean hasClaims() {
    return claims.length > 0;
  }

  @Override
  public StateData copy() {
    if (!hasClaims()) {
      return this;
    }
    DynamicResourcesState c = new DynamicResourcesState(claims, availableOnNodes, allocations,
        allocator, nodeAllocations, unavailableClaims, ConcurrentHashMap.newKeySet());
    c.freed.addAll(freed);
    return c;
  }
}
