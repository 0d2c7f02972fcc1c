package io.berth.plugins.volumebinding;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.ObjectLister;
import io.berth.framework.Plugin;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.ReservePlugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySelectorTerm;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * VolumeBinding, as kube-scheduler v1.32 without CSI storage capacity, CSI migration and the
 * (alpha) capacity scoring: PreFilter rejects pods whose claims are missing, lost, being deleted
 * or unbound with Immediate binding; Filter checks that bound claims' volumes can reach the node
 * and finds, for unbound WaitForFirstConsumer claims, the smallest fitting available volume or a
 * class able to provision there; Reserve assumes the chosen bindings in an assume cache shared by
 * every cycle of this plugin instance, so that two pods never take the same volume; Unreserve
 * reverts them; PreBind writes them through the API and waits until the claims show as bound.
 *
 * <p>Created once per profile by {@link #create}, which asks the handle for PVC, PV and
 * StorageClass listers. PreFilter and Reserve run on the scheduling thread, Filter on many
 * threads (it writes only its node's entry of the cycle state), PreBind and Unreserve on binding
 * threads; the shared assume caches are internally synchronized. Status codes follow upstream:
 * Filter rejections are UnschedulableAndUnresolvable; lookup and API failures are Error.
 */
public final class VolumeBinding
    implements PreFilterPlugin, FilterPlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions,
    SignPlugin {
  public static final String NAME = "VolumeBinding";
  /** A bound claim's volume has a node affinity the node does not satisfy. */
  public static final String ERR_REASON_NODE_CONFLICT = VolumeBinder.ERR_REASON_NODE_CONFLICT;
  /** No available volume and no provisioning for an unbound claim on the node. */
  public static final String ERR_REASON_BIND_CONFLICT = VolumeBinder.ERR_REASON_BIND_CONFLICT;
  /** A bound claim's volume does not exist. */
  public static final String ERR_REASON_PV_NOT_EXIST = VolumeBinder.ERR_REASON_PV_NOT_EXIST;
  /** An unbound claim of a class that binds immediately (or of no class, or pre-bound). */
  public static final String ERR_REASON_UNBOUND_IMMEDIATE = VolumeBinder.ERR_UNBOUND_IMMEDIATE;

  static final String STATE_KEY = NAME;

  private final VolumeBinder binder;
  private final BindingWriter writer;

  private VolumeBinding(VolumeBinder binder, BindingWriter writer) {
    this.binder = binder;
    this.writer = writer;
  }

  /** The factory the registry calls. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return create(args, handle, Pacer.SYSTEM);
  }

  static VolumeBinding create(Map<String, Object> args, Handle handle, Pacer pacer) {
    VolumeBindingArgs parsed = VolumeBindingArgs.parse(args);
    ObjectLister<PersistentVolumeClaim> pvcs = handle.lister(PersistentVolumeClaim.class);
    ObjectLister<PersistentVolume> pvs = handle.lister(PersistentVolume.class);
    ObjectLister<StorageClass> classes = handle.lister(StorageClass.class);
    return new VolumeBinding(new VolumeBinder(pvcs, pvs, classes),
        new BindingWriter(handle::client, pvs, pvcs, parsed.bindTimeout(), pacer));
  }

  VolumeBinder binder() {
    return binder;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility depends on the pod's volumes other than ConfigMaps and Secrets. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.VOLUMES, PodSigners.volumes(pod)));
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    try {
      if (!binder.podHasClaims(pod)) {
        // Reserve and PreBind still run for the pod: they find nothing to do
        state.write(STATE_KEY, new VolumeBindingState(PodVolumeClaims.NONE));
        return PreFilterResult.of(Status.skip());
      }
      state.write(STATE_KEY, new VolumeBindingState(binder.podVolumeClaims(pod)));
      return PreFilterResult.SUCCESS;
    } catch (StatusException e) {
      return PreFilterResult.of(e.status());
    }
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Optional<VolumeBindingState> s = state.read(STATE_KEY, VolumeBindingState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    VolumeBinder.NodeVolumes found;
    try {
      found = binder.findPodVolumes(s.get().claims, nodeInfo.getNode());
    } catch (StatusException e) {
      return e.status();
    }
    if (!found.reasons().isEmpty()) {
      return Status.unresolvable(found.reasons().toArray(String[]::new));
    }
    s.get().podVolumesByNode.put(nodeInfo.nodeName(), found.volumes());
    return Status.SUCCESS;
  }

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    Optional<VolumeBindingState> s = state.read(STATE_KEY, VolumeBindingState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    PodVolumes volumes = s.get().podVolumesByNode.get(nodeName);
    if (volumes == null) {
      // the pod references no claim
      s.get().reserve(Reservation.ALL_BOUND);
      return Status.SUCCESS;
    }
    try {
      s.get().reserve(binder.assumePodVolumes(pod, nodeName, volumes));
      return Status.SUCCESS;
    } catch (StatusException e) {
      return e.status();
    }
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    state.read(STATE_KEY, VolumeBindingState.class)
        .flatMap(VolumeBindingState::reservation)
        .ifPresent(binder::revert);
  }

  @Override
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    Optional<VolumeBindingState> s = state.read(STATE_KEY, VolumeBindingState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    Optional<Reservation> r = s.get().reservation();
    if (r.isEmpty()) {
      return Status.error("no pod volumes found for node \"" + nodeName + "\"");
    }
    if (r.get().allBound()) {
      return Status.SUCCESS;
    }
    return writer.bind(pod, r.get());
  }

  /**
   * Upstream's PreBindPreFlight: Skip when every claim is already bound (PreBind has nothing to
   * write), Success when PreBind will bind volumes; Error without the cycle state.
   */
  @Override
  public Status preBindPreFlight(CycleState state, Pod pod, String nodeName) {
    Optional<VolumeBindingState> s = state.read(STATE_KEY, VolumeBindingState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    Optional<Reservation> r = s.get().reservation();
    return r.isPresent() && r.get().allBound() ? Status.skip() : Status.SUCCESS;
  }

  private static Status missingState() {
    return Status.error("reading \"" + STATE_KEY + "\" from cycleState: not found");
  }

  /**
   * StorageClass, PVC and PV additions and updates, and node additions and label changes, as
   * upstream registers them with queueing hints enabled (the v1.32 default). The CSINode,
   * CSIDriver and CSIStorageCapacity registrations are left out: nothing here reads them.
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    long addOrUpdate = ActionType.ADD | ActionType.UPDATE;
    return List.of(
        new ClusterEventWithHint(new ClusterEvent(EventResource.STORAGE_CLASS, addOrUpdate),
            VolumeBinding::isSchedulableAfterStorageClassChange),
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, addOrUpdate),
            VolumeBinding::isSchedulableAfterClaimChange),
        ClusterEventWithHint.always(new ClusterEvent(EventResource.PERSISTENT_VOLUME,
            addOrUpdate)),
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE,
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL)));
  }

  static QueueingHint isSchedulableAfterClaimChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof PersistentVolumeClaim pvc)) {
      throw new IllegalArgumentException("expected a PersistentVolumeClaim, got "
          + (newObj == null ? "null" : newObj.getClass().getSimpleName()));
    }
    if (!Objects.equals(pod.getMetadata().getNamespace(), pvc.getMetadata().getNamespace())) {
      return QueueingHint.QUEUE_SKIP;
    }
    for (Volume v : VolumeHelpers.volumes(pod)) {
      if (VolumeHelpers.claimName(pod, v).filter(pvc.getMetadata().getName()::equals)
          .isPresent()) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.QUEUE_SKIP;
  }

  // A class's binding mode cannot change; only a new class or new allowed topologies can help.
  static QueueingHint isSchedulableAfterStorageClassChange(Pod pod, Object oldObj,
      Object newObj) {
    if (!(newObj instanceof StorageClass newClass)
        || (oldObj != null && !(oldObj instanceof StorageClass))) {
      throw new IllegalArgumentException("expected StorageClasses");
    }
    if (oldObj == null) {
      return QueueingHint.QUEUE;
    }
    return topologies((StorageClass) oldObj).equals(topologies(newClass))
        ? QueueingHint.QUEUE_SKIP : QueueingHint.QUEUE;
  }

  // semantic equality: an absent list equals an empty one
  private static List<TopologySelectorTerm> topologies(StorageClass sc) {
    return sc.getAllowedTopologies() == null ? List.of() : sc.getAllowedTopologies();
  }
}
