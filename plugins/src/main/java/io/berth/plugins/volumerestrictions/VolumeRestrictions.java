package io.berth.plugins.volumerestrictions;

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
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * VolumeRestrictions, as kube-scheduler v1.32: rejects a node where an inline GCE PD, AWS EBS,
 * RBD or iSCSI volume of the pod is already in use read-write ({@link #ERR_REASON_DISK_CONFLICT},
 * Unschedulable), and rejects every node while another scheduled pod uses one of the pod's
 * {@code ReadWriteOncePod} claims ({@link #ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT},
 * Unschedulable so that preemption may evict the user; AddPod/RemovePod keep the count right
 * while preemption simulates). A claim that does not exist fails PreFilter as unresolvable.
 *
 * <p>Created by the plugin registry from {@link #create}; PreFilter runs on the scheduling
 * thread, Filter on many threads at once (it only reads the cycle state), the queueing hints
 * under the queue's lock. The plugin keeps no mutable state of its own.
 */
public final class VolumeRestrictions
    implements PreFilterPlugin, PreFilterExtensions, FilterPlugin, EnqueueExtensions, SignPlugin {
  public static final String NAME = "VolumeRestrictions";
  /** A GCE PD, AWS EBS, RBD or iSCSI volume of the pod is already in use on the node. */
  public static final String ERR_REASON_DISK_CONFLICT = "node(s) had no available disk";
  /** Another pod already uses one of the pod's ReadWriteOncePod claims. */
  public static final String ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access"
          + " mode";

  static final String STATE_KEY = "PreFilter" + NAME;
  static final String READ_WRITE_ONCE_POD = "ReadWriteOncePod";

  private final Handle handle;
  private final ObjectLister<PersistentVolumeClaim> pvcLister;

  private VolumeRestrictions(Handle handle, ObjectLister<PersistentVolumeClaim> pvcLister) {
    this.handle = handle;
    this.pvcLister = pvcLister;
  }

  /** The factory the registry calls; the plugin takes no args. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    for (String key : args.keySet()) {
      if (!"apiVersion".equals(key) && !"kind".equals(key)) {
        throw new IllegalArgumentException("unknown field \"" + key + "\": " + NAME
            + " takes no args");
      }
    }
    return new VolumeRestrictions(handle, handle.lister(PersistentVolumeClaim.class));
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
    List<Volume> volumes = DiskConflicts.volumes(pod);
    boolean needsCheck = volumes.stream().anyMatch(DiskConflicts::needsCheck);
    String namespace = pod.getMetadata().getNamespace();
    Set<String> rwopClaims = new HashSet<>();
    for (Volume v : volumes) {
      if (v.getPersistentVolumeClaim() == null) {
        continue;
      }
      String claimName = v.getPersistentVolumeClaim().getClaimName();
      Optional<PersistentVolumeClaim> pvc = pvcLister.get(namespace, claimName);
      if (pvc.isEmpty()) {
        return PreFilterResult.of(Status.unresolvable(
            "persistentvolumeclaim \"" + claimName + "\" not found"));
      }
      List<String> modes = pvc.get().getSpec() == null ? null
          : pvc.get().getSpec().getAccessModes();
      if (modes != null && modes.contains(READ_WRITE_ONCE_POD)) {
        rwopClaims.add(claimName);
      }
    }
    int conflicts = 0;
    for (String claim : rwopClaims) {
      // at most one scheduled pod can hold a ReadWriteOncePod claim
      if (handle.snapshotLister().isPvcUsedByPods(namespace + "/" + claim)) {
        conflicts++;
      }
    }
    if (!needsCheck && conflicts == 0) {
      return PreFilterResult.of(Status.skip());
    }
    state.write(STATE_KEY, new RestrictionsState(namespace, Set.copyOf(rwopClaims), conflicts));
    return PreFilterResult.SUCCESS;
  }

  @Override
  public Optional<PreFilterExtensions> preFilterExtensions() {
    return Optional.of(this);
  }

  @Override
  public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo) {
    Optional<RestrictionsState> s = state.read(STATE_KEY, RestrictionsState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    s.get().conflictingRefCount += s.get().referencesBy(podToAdd.pod());
    return Status.SUCCESS;
  }

  @Override
  public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove,
      NodeInfo nodeInfo) {
    Optional<RestrictionsState> s = state.read(STATE_KEY, RestrictionsState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    s.get().conflictingRefCount -= s.get().referencesBy(podToRemove.pod());
    return Status.SUCCESS;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    if (!DiskConflicts.satisfied(pod, nodeInfo)) {
      return Status.unschedulable(ERR_REASON_DISK_CONFLICT);
    }
    Optional<RestrictionsState> s = state.read(STATE_KEY, RestrictionsState.class);
    if (s.isEmpty()) {
      return missingState();
    }
    return s.get().conflictingRefCount > 0
        ? Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT) : Status.SUCCESS;
  }

  private static Status missingState() {
    return Status.error("cannot read \"" + STATE_KEY + "\" from cycleState");
  }

  /**
   * Pod deletions (a conflicting disk or a ReadWriteOncePod claim is released), node additions
   * and claim creations, as upstream registers them with queueing hints enabled (v1.32 default).
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD, ActionType.DELETE),
            VolumeRestrictions::isSchedulableAfterPodDeleted),
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE, ActionType.ADD)),
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
            VolumeRestrictions::isSchedulableAfterClaimAdded));
  }

  static QueueingHint isSchedulableAfterPodDeleted(Pod pod, Object oldObj, Object newObj) {
    if (!(oldObj instanceof Pod deleted)) {
      throw new IllegalArgumentException("expected a Pod, got " + describe(oldObj));
    }
    if (!Objects.equals(deleted.getMetadata().getNamespace(), pod.getMetadata().getNamespace())) {
      return QueueingHint.QUEUE_SKIP;
    }
    if (DiskConflicts.anyConflict(pod, deleted)) {
      return QueueingHint.QUEUE;
    }
    // The claim's access mode is not looked up (as upstream): sharing a claim is enough.
    Set<String> claims = claimNames(pod);
    for (Volume v : DiskConflicts.volumes(deleted)) {
      if (v.getPersistentVolumeClaim() != null
          && claims.contains(v.getPersistentVolumeClaim().getClaimName())) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.QUEUE_SKIP;
  }

  static QueueingHint isSchedulableAfterClaimAdded(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof PersistentVolumeClaim pvc)) {
      throw new IllegalArgumentException("expected a PersistentVolumeClaim, got "
          + describe(newObj));
    }
    if (!Objects.equals(pvc.getMetadata().getNamespace(), pod.getMetadata().getNamespace())) {
      return QueueingHint.QUEUE_SKIP;
    }
    return claimNames(pod).contains(pvc.getMetadata().getName())
        ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  private static Set<String> claimNames(Pod pod) {
    Set<String> names = new HashSet<>();
    for (Volume v : DiskConflicts.volumes(pod)) {
      if (v.getPersistentVolumeClaim() != null) {
        names.add(v.getPersistentVolumeClaim().getClaimName());
      }
    }
    return names;
  }

  private static String describe(Object o) {
    return o == null ? "null" : o.getClass().getSimpleName();
  }

  /**
   * What PreFilter found: the pod's ReadWriteOncePod claims and how many scheduled pods use
   * them. Not thread-safe: AddPod/RemovePod change the count only on a copy that the thread
   * evaluating one node owns; parallel Filters only read.
   */
  static final class RestrictionsState implements StateData {
    final String namespace;
    final Set<String> readWriteOncePodClaims;
    int conflictingRefCount;

    RestrictionsState(String namespace, Set<String> readWriteOncePodClaims, int count) {
      this.namespace = namespace;
      this.readWriteOncePodClaims = readWriteOncePodClaims;
      this.conflictingRefCount = count;
    }

    // Unlike upstream, a pod in another namespace never counts: claims are namespaced.
    int referencesBy(Pod other) {
      if (!Objects.equals(namespace, other.getMetadata().getNamespace())) {
        return 0;
      }
      int refs = 0;
      for (Volume v : DiskConflicts.volumes(other)) {
        if (v.getPersistentVolumeClaim() != null
            && readWriteOncePodClaims.contains(v.getPersistentVolumeClaim().getClaimName())) {
          refs++;
        }
      }
      return refs;
    }

    @Override
    public StateData copy() {
      return new RestrictionsState(namespace, readWriteOncePodClaims, conflictingRefCount);
    }
  }
}
