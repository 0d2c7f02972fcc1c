package io.berth.plugins.dynamicresources;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeSelectorMatcher;
import io.berth.framework.NodeToStatus;
import io.berth.framework.ObjectEventHandler;
import io.berth.framework.ObjectLister;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.ReservePlugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.plugins.dynamicresources.structured.AllocationException;
import io.berth.plugins.dynamicresources.structured.Allocator;
import io.berth.plugins.dynamicresources.structured.DeviceSelectors;
import io.berth.plugins.dynamicresources.structured.PoolsCache;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DynamicResources, as kube-scheduler v1.36's plugin for structured parameters: PreEnqueue keeps
 * a pod out of the active queue until its ResourceClaims exist; PreFilter rejects pods whose
 * claims are in use by others, pending in another cycle or name a missing DeviceClass, and sets
 * up the {@link Allocator} for the unallocated claims; Filter checks allocated claims' node
 * selectors and runs the allocator for the node (bounded by {@code filterTimeout}); PostFilter
 * deallocates an allocated claim reserved for nobody else that blocks the pod; Reserve assumes
 * the node's allocation (in-flight devices count as taken for every other pod); Unreserve drops it
 * and removes the pod from {@code reservedFor}; PreBind writes {@code status.allocation} and
 * appends the pod to {@code status.reservedFor} (shared claims collect several pods).
 * Preemption's simulation sees the devices of removed victims as free (PreFilter extensions),
 * and a node without enough free devices is Unschedulable (upstream: UnschedulableAndUnresolvable,
 * so that preemption never tries), so preemption can make room for a pod's devices.
 *
 * <p>Created once per profile by {@link #create}, which asks the handle for ResourceClaim,
 * ResourceSlice and DeviceClass listers and feeds the claim informer into
 * {@link AllocatedDevices}, whose live set of devices in use PreFilter hands to the allocator
 * (no claim listing per cycle). PreFilter reads the slice lister each cycle, but the slices are
 * indexed by node again only when the listing changed ({@link PoolsCache}), and each device's
 * selector outcomes are memoized per expression while its slice is unchanged, so a cycle costs
 * a pass over the listings, not a CEL evaluation per device and node. PreEnqueue runs under the
 * queue's lock, PreFilter/Reserve/PostFilter
 * on the scheduling thread, Filter on many threads, PreBind/Unreserve on binding threads; shared
 * structures are thread-safe. Status codes as upstream: rejections are
 * UnschedulableAndUnresolvable, a broken claim, class or selector is an Error naming it.
 */
public final class DynamicResources implements PreEnqueuePlugin, PreFilterPlugin, FilterPlugin,
    PostFilterPlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions,
    io.berth.framework.SignPlugin {
  public static final String NAME = "DynamicResources";
  /** Upstream's finalizer on claims the scheduler allocated. */
  public static final String FINALIZER = "resource.kubernetes.io/delete-protection";
  static final String STATE_KEY = NAME;
  private static final Logger LOG = LoggerFactory.getLogger(DynamicResources.class);

  private final DynamicResourcesArgs args;
  private final PodClaims podClaims;
  private final ObjectLister<ResourceSlice> slices;
  private final ObjectLister<DeviceClass> classes;
  private final AllocatedDevices devices;
  private final ClaimWrites writer;
  private final DeviceSelectors cel = new DeviceSelectors();
  private final PoolsCache pools = new PoolsCache();
  private final LongSupplier nanoClock;
  private final boolean consumableCapacity;

  DynamicResources(DynamicResourcesArgs args, ObjectLister<ResourceClaim> claims,
      ObjectLister<ResourceSlice> slices, ObjectLister<DeviceClass> classes,
      AllocatedDevices devices, ClaimWrites writer, LongSupplier nanoClock) {
    this(args, claims, slices, classes, devices, writer, nanoClock, true);
  }

  DynamicResources(DynamicResourcesArgs args, ObjectLister<ResourceClaim> claims,
      ObjectLister<ResourceSlice> slices, ObjectLister<DeviceClass> classes,
      AllocatedDevices devices, ClaimWrites writer, LongSupplier nanoClock,
      boolean consumableCapacity) {
    this.consumableCapacity = consumableCapacity;
    this.args = args;
    this.devices = devices;
    this.podClaims = new PodClaims(claims, devices);
    this.slices = slices;
    this.classes = classes;
    this.writer = writer;
    this.nanoClock = nanoClock;
  }

  /** The factory the registry calls. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    DynamicResources plugin = withObjects(args, handle.lister(ResourceClaim.class),
        handle.lister(ResourceSlice.class), handle.lister(DeviceClass.class),
        new ClaimWriter(handle::client),
        handle.featureGates().enabled(FeatureGates.DRA_CONSUMABLE_CAPACITY));
    handle.addEventHandler(ResourceClaim.class, plugin.claimHandler());
    return plugin;
  }

  /**
   * The plugin over given listers and claim writes (harnesses without an API server); feed
   * claim changes to {@link #claimHandler()} as the informer would.
   */
  public static DynamicResources withObjects(Map<String, Object> args,
      ObjectLister<ResourceClaim> claims, ObjectLister<ResourceSlice> slices,
      ObjectLister<DeviceClass> classes, ClaimWrites writes) {
    return withObjects(args, claims, slices, classes, writes, true);
  }

  /** As above, with the DRAConsumableCapacity feature gate on or off. */
  public static DynamicResources withObjects(Map<String, Object> args,
      ObjectLister<ResourceClaim> claims, ObjectLister<ResourceSlice> slices,
      ObjectLister<DeviceClass> classes, ClaimWrites writes, boolean consumableCapacity) {
    return new DynamicResources(DynamicResourcesArgs.parse(args), claims, slices, classes,
        new AllocatedDevices(claims, consumableCapacity), writes, System::nanoTime,
        consumableCapacity);
  }

  /** The ResourceClaim informer's handler: keeps the allocated-devices cache current. */
  public ObjectEventHandler<ResourceClaim> claimHandler() {
    AllocatedDevices devices = this.devices;
    return new ObjectEventHandler<>() {
      @Override
      public void onAdd(ResourceClaim obj) {
        devices.upsert(obj);
      }

      @Override
      public void onUpdate(ResourceClaim oldObj, ResourceClaim newObj) {
        devices.upsert(newObj);
      }

      @Override
      public void onDelete(ResourceClaim obj) {
        devices.delete(obj);
      }
    };
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Pods without claims sign as nothing (this plugin skips them); a pod with claims cannot be
   * batched, as upstream: its feasibility depends on devices other pods take.
   */
  @Override
  public io.berth.framework.SignResult signPod(Pod pod) {
    return PodClaims.hasClaims(pod)
        ? io.berth.framework.SignResult.unsignable("pod has resource claims")
        : io.berth.framework.SignResult.none();
  }

  AllocatedDevices allocatedDevices() {
    return devices;
  }

  @Override
  public Status preEnqueue(Pod pod) {
    try {
      podClaims.of(pod);
      return Status.SUCCESS;
    } catch (StatusException e) {
      return e.status();
    }
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    state.write(STATE_KEY, DynamicResourcesState.empty());
    List<ResourceClaim> claims;
    try {
      claims = podClaims.of(pod);
    } catch (StatusException e) {
      return PreFilterResult.of(e.status());
    }
    if (claims.isEmpty()) {
      return PreFilterResult.of(Status.skip());
    }
    NodeSelectorMatcher[] selectors = new NodeSelectorMatcher[claims.size()];
    List<ResourceClaim> toAllocate = new ArrayList<>();
    for (int i = 0; i < claims.size(); i++) {
      ResourceClaim claim = claims.get(i);
      if (PodClaims.allocated(claim)) {
        if (!PodClaims.canBeReserved(claim) && !PodClaims.isReservedFor(claim, pod)) {
          return PreFilterResult.of(Status.unresolvable("resourceclaim in use"));
        }
        if (claim.getStatus().getAllocation().getNodeSelector() != null) {
          try {
            selectors[i] = NodeSelectorMatcher.compile(
                claim.getStatus().getAllocation().getNodeSelector(),
                "status.allocation.nodeSelector");
          } catch (IllegalArgumentException e) {
            return PreFilterResult.of(Status.error("claim " + PodClaims.key(claim) + ": "
                + e.getMessage()));
          }
        }
        continue;
      }
      toAllocate.add(claim);
      if (devices.hasPending(claim.getMetadata().getUid())) {
        return PreFilterResult.of(Status.unresolvable("resource claim " + PodClaims.key(claim)
            + " is in the process of being allocated"));
      }
      Status classes = validateClasses(claim);
      if (!classes.isSuccess()) {
        return PreFilterResult.of(classes);
      }
    }
    Allocator allocator = null;
    if (!toAllocate.isEmpty()) {
      allocator = new Allocator(toAllocate, devices.inUse(), devices::consumed,
          name -> this.classes.get("", name), pools.pools(slices.list()), cel,
          consumableCapacity);
    }
    state.write(STATE_KEY, new DynamicResourcesState(claims, selectors, allocator));
    return PreFilterResult.SUCCESS;
  }

  private Status validateClasses(ResourceClaim claim) {
    if (claim.getSpec() == null || claim.getSpec().getDevices() == null
        || claim.getSpec().getDevices().getRequests() == null) {
      return Status.SUCCESS;
    }
    for (DeviceRequest r : claim.getSpec().getDevices().getRequests()) {
      if (r.getFirstAvailable() == null || r.getFirstAvailable().isEmpty()) {
        Status s = validateClass(r.getExactly() == null ? null
            : r.getExactly().getDeviceClassName(), r.getName());
        if (!s.isSuccess()) {
          return s;
        }
      } else {
        for (DeviceSubRequest sub : r.getFirstAvailable()) {
          Status s = validateClass(sub.getDeviceClassName(), r.getName() + "/" + sub.getName());
          if (!s.isSuccess()) {
            return s;
          }
        }
      }
    }
    return Status.SUCCESS;
  }

  private Status validateClass(String className, String requestName) {
    if (className == null || className.isEmpty()) {
      return Status.error("request " + requestName + ": unsupported request type");
    }
    if (classes.get("", className).isEmpty()) {
      return Status.unresolvable("request " + requestName + ": device class " + className
          + " does not exist");
    }
    return Status.SUCCESS;
  }

  @Override
  public Optional<PreFilterExtensions> preFilterExtensions() {
    return Optional.of(new VictimDevices(this::state, podClaims, consumableCapacity));
  }

  private Optional<DynamicResourcesState> state(CycleState cs) {
    return cs.read(STATE_KEY, DynamicResourcesState.class);
  }

  @Override
  public Status filter(CycleState cs, Pod pod, NodeInfo nodeInfo) {
    Optional<DynamicResourcesState> read = state(cs);
    if (read.isEmpty()) {
      return missingState();
    }
    DynamicResourcesState s = read.get();
    if (!s.hasClaims()) {
      return Status.SUCCESS;
    }
    List<Integer> unavailable = null;
    for (int i = 0; i < s.claims.length; i++) {
      if (s.availableOnNodes[i] != null && !s.availableOnNodes[i].matches(nodeInfo.getNode())) {
        if (unavailable == null) {
          unavailable = new ArrayList<>();
        }
        unavailable.add(i);
      }
    }
    if (unavailable != null) {
      s.unavailableClaims.addAll(unavailable);
      return Status.unresolvable("resourceclaim not available on the node");
    }
    if (s.allocator == null) {
      return Status.SUCCESS;
    }
    Optional<Allocator.Allocation> found;
    try {
      found = s.allocator.find(nodeInfo.getNode(), deadline(), s.freed);
    } catch (AllocationException e) {
      return Status.error(e.getMessage());
    } catch (Allocator.TimeoutException e) {
      return Status.unresolvable("timed out trying to allocate devices");
    }
    if (found.isEmpty()) {
      // Unschedulable, not upstream's UnschedulableAndUnresolvable: preemption's simulation
      // frees its victims' devices (VictimDevices), so evicting pods can make room
      return Status.unschedulable("cannot allocate all claims");
    }
    s.nodeAllocations.put(nodeInfo.nodeName(), found.get());
    return Status.SUCCESS;
  }

  private BooleanSupplier deadline() {
    if (args.filterTimeout().isZero()) {
      return () -> false;
    }
    long end = nanoClock.getAsLong() + args.filterTimeout().toNanos();
    return () -> nanoClock.getAsLong() - end > 0;
  }

  @Override
  public PostFilterResult postFilter(CycleState cs, Pod pod, NodeToStatus filteredNodeStatus) {
    if (!PodClaims.hasClaims(pod)) {
      return PostFilterResult.of(Status.unschedulable());
    }
    Optional<DynamicResourcesState> read = state(cs);
    if (read.isEmpty()) {
      return PostFilterResult.of(missingState());
    }
    DynamicResourcesState s = read.get();
    if (!s.hasClaims()) {
      return PostFilterResult.of(Status.unschedulable("no new claims to deallocate"));
    }
    for (int index : s.unavailableClaims) {
      ResourceClaim claim = s.claims[index];
      List<io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference> reserved =
          PodClaims.reservedFor(claim);
      if (reserved.isEmpty() || (reserved.size() == 1
          && Objects.equals(reserved.get(0).getUid(), pod.getMetadata().getUid()))) {
        try {
          writer.deallocate(claim);
        } catch (RuntimeException e) {
          return PostFilterResult.of(Status.asError(e));
        }
        return PostFilterResult.of(Status.unschedulable(
            "deallocation of ResourceClaim completed"));
      }
    }
    return PostFilterResult.of(Status.unschedulable("still not schedulable"));
  }

  @Override
  public Status reserve(CycleState cs, Pod pod, String nodeName) {
    Optional<DynamicResourcesState> read = state(cs);
    if (read.isEmpty()) {
      return missingState();
    }
    DynamicResourcesState s = read.get();
    if (!s.hasClaims() || s.allocator == null) {
      return Status.SUCCESS;
    }
    List<ResourceClaim> toAllocate = s.allocator.claimsToAllocate();
    Allocator.Allocation found = s.nodeAllocations.get(nodeName);
    if (found == null) {
      return Status.error("claim allocation not found for node");
    }
    List<AllocationResult> results = found.results();
    if (results.size() != toAllocate.size()) {
      return Status.error("internal error, have " + results.size() + " allocations, "
          + toAllocate.size() + " claims to allocate");
    }
    for (int i = 0; i < toAllocate.size(); i++) {
      ResourceClaim claim = toAllocate.get(i);
      int index = indexOf(s.claims, claim);
      if (index < 0) {
        return Status.error("internal error, claim " + claim.getMetadata().getName()
            + " with allocation not found");
      }
      s.allocations[index] = results.get(i);
      ResourceClaimBuilder assumed = new ResourceClaimBuilder(claim);
      if (claim.getMetadata().getFinalizers() == null
          || !claim.getMetadata().getFinalizers().contains(FINALIZER)) {
        assumed.editMetadata().addToFinalizers(FINALIZER).endMetadata();
      }
      devices.signalPending(assumed.editOrNewStatus().withAllocation(results.get(i)).endStatus()
          .build());
    }
    return Status.SUCCESS;
  }

  private static int indexOf(ResourceClaim[] claims, ResourceClaim claim) {
    for (int i = 0; i < claims.length; i++) {
      if (claims[i] == claim) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void unreserve(CycleState cs, Pod pod, String nodeName) {
    Optional<DynamicResourcesState> read = state(cs);
    if (read.isEmpty() || !read.get().hasClaims()) {
      return;
    }
    for (ResourceClaim claim : read.get().claims) {
      devices.removePending(claim.getMetadata().getUid());
      if (PodClaims.allocated(claim) && PodClaims.isReservedFor(claim, pod)) {
        try {
          writer.unreserve(claim, pod);
        } catch (RuntimeException e) {
          // retried when the pod is scheduled again
          LOG.warn("unreserve of ResourceClaim {} for pod {} failed: {}", PodClaims.key(claim),
              PodClaims.key(pod), e.getMessage());
        }
      }
    }
  }

  @Override
  public Status preBind(CycleState cs, Pod pod, String nodeName) {
    Optional<DynamicResourcesState> read = state(cs);
    if (read.isEmpty()) {
      return missingState();
    }
    DynamicResourcesState s = read.get();
    for (int i = 0; i < s.claims.length; i++) {
      if (PodClaims.isReservedFor(s.claims[i], pod)) {
        continue;
      }
      AllocationResult allocation = s.allocations[i];
      try {
        ResourceClaim written = writer.bind(s.claims[i], allocation, pod);
        if (allocation != null) {
          devices.assumeWritten(written);
        }
        s.claims[i] = written;
      } catch (ClaimWrites.BindException e) {
        return Status.error(e.getMessage());
      } finally {
        if (allocation != null) {
          devices.removePending(s.claims[i].getMetadata().getUid());
        }
      }
    }
    return Status.SUCCESS;
  }

  /** Skip when every claim is already reserved for the pod: PreBind has nothing to write. */
  @Override
  public Status preBindPreFlight(CycleState cs, Pod pod, String nodeName) {
    Optional<DynamicResourcesState> read = state(cs);
    if (read.isEmpty()) {
      return missingState();
    }
    for (ResourceClaim c : read.get().claims) {
      if (!PodClaims.isReservedFor(c, pod)) {
        return Status.SUCCESS;
      }
    }
    return Status.skip();
  }

  private static Status missingState() {
    return Status.error("reading \"" + STATE_KEY + "\" from cycleState: not found");
  }

  /**
   * Upstream's registrations: node additions and label changes; claim additions and updates
   * (hinted); the pod's generated claim names appearing (hinted); DeviceClass and ResourceSlice
   * additions and updates (hinted: either may help any pod with claims; a slice whose spec did
   * not change does not).
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    long addOrUpdate = ActionType.ADD | ActionType.UPDATE;
    return List.of(
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE,
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
        new ClusterEventWithHint(new ClusterEvent(EventResource.RESOURCE_CLAIM, addOrUpdate),
            this::isSchedulableAfterClaimChange),
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD,
            ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM), this::isSchedulableAfterPodChange),
        new ClusterEventWithHint(new ClusterEvent(EventResource.DEVICE_CLASS, addOrUpdate),
            QueueingHints::isSchedulableAfterDeviceClassChange),
        new ClusterEventWithHint(new ClusterEvent(EventResource.RESOURCE_SLICE, addOrUpdate),
            QueueingHints::isSchedulableAfterResourceSliceChange));
  }

  QueueingHint isSchedulableAfterClaimChange(Pod pod, Object oldObj, Object newObj) {
    // the queue's handler may run before this plugin's own: bring the allocated devices up to
    // the lister before the pod is moved (a deallocation must free its devices first)
    if (newObj instanceof ResourceClaim modified) {
      devices.refresh(modified.getMetadata().getNamespace(), modified.getMetadata().getName());
    }
    return QueueingHints.afterClaimChange(podClaims, pod, oldObj, newObj);
  }

  QueueingHint isSchedulableAfterPodChange(Pod pod, Object oldObj, Object newObj) {
    return QueueingHints.afterPodChange(podClaims, pod, newObj);
  }
}
