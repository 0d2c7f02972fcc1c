package io.berth.plugins.volumebinding;

import io.berth.framework.LabelSelectors;
import io.berth.framework.ObjectLister;
import io.berth.framework.Quantities;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.plugins.volumebinding.PodVolumeClaims.BoundClaim;
import io.berth.plugins.volumebinding.PodVolumeClaims.CandidateVolume;
import io.berth.plugins.volumebinding.PodVolumeClaims.UnboundClaim;
import io.berth.plugins.volumebinding.PodVolumes.StaticBinding;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The scheduler side of PV/PVC binding (upstream's {@code volumeBinder} without CSI migration and
 * storage capacity): sorts a pod's claims in PreFilter, decides per node in Filter which volumes
 * to bind or which claims to provision, and assumes and reverts those decisions in the shared
 * {@link AssumeCache}s at Reserve/Unreserve. Thread-safe: it holds only listers and the caches;
 * failures come out as {@link StatusException} carrying the status to return.
 */
final class VolumeBinder {
  /** A bound claim whose volume's node affinity excludes the node. */
  static final String ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict";
  /** An unbound claim finds no volume and cannot be provisioned on the node. */
  static final String ERR_REASON_BIND_CONFLICT =
      "node(s) didn't find available persistent volumes to bind";
  /** A bound claim's volume does not exist. */
  static final String ERR_REASON_PV_NOT_EXIST =
      "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
  static final String ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims";

  private final ObjectLister<PersistentVolumeClaim> pvcLister;
  private final ObjectLister<StorageClass> classLister;
  private final AssumeCache<PersistentVolume> pvCache;
  private final AssumeCache<PersistentVolumeClaim> pvcCache;

  VolumeBinder(ObjectLister<PersistentVolumeClaim> pvcLister,
      ObjectLister<PersistentVolume> pvLister, ObjectLister<StorageClass> classLister) {
    this.pvcLister = pvcLister;
    this.classLister = classLister;
    this.pvCache = new AssumeCache<>("PersistentVolume", name -> pvLister.get("", name),
        pvLister::list);
    this.pvcCache = new AssumeCache<>("PersistentVolumeClaim", key -> {
      int slash = key.indexOf('/');
      return pvcLister.get(key.substring(0, slash), key.substring(slash + 1));
    }, pvcLister::list);
  }

  AssumeCache<PersistentVolume> pvCache() {
    return pvCache;
  }

  AssumeCache<PersistentVolumeClaim> pvcCache() {
    return pvcCache;
  }

  /**
   * Whether the pod uses any claim, checking through the informer that each one exists, is not
   * lost or being deleted, and (for generic ephemeral volumes) belongs to the pod.
   *
   * @throws StatusException UnschedulableAndUnresolvable naming the claim
   */
  boolean podHasClaims(Pod pod) {
    boolean has = false;
    String ns = pod.getMetadata().getNamespace();
    for (Volume v : VolumeHelpers.volumes(pod)) {
      Optional<String> name = VolumeHelpers.claimName(pod, v);
      if (name.isEmpty()) {
        continue;
      }
      has = true;
      boolean ephemeral = v.getPersistentVolumeClaim() == null;
      Optional<PersistentVolumeClaim> found = pvcLister.get(ns, name.get());
      if (found.isEmpty()) {
        throw unresolvable(ephemeral
            ? "waiting for ephemeral volume controller to create the persistentvolumeclaim \""
                + name.get() + "\""
            : "persistentvolumeclaim \"" + name.get() + "\" not found");
      }
      PersistentVolumeClaim pvc = found.get();
      String phase = pvc.getStatus() == null ? null : pvc.getStatus().getPhase();
      if (VolumeHelpers.CLAIM_LOST.equals(phase)) {
        throw unresolvable("persistentvolumeclaim \"" + name.get()
            + "\" bound to non-existent persistentvolume \"" + VolumeHelpers.volumeName(pvc)
            + "\"");
      }
      if (pvc.getMetadata().getDeletionTimestamp() != null) {
        throw unresolvable("persistentvolumeclaim \"" + name.get() + "\" is being deleted");
      }
      if (ephemeral) {
        Optional<String> error = VolumeHelpers.ephemeralOwnershipError(pod, pvc);
        if (error.isPresent()) {
          throw unresolvable(error.get());
        }
      }
    }
    return has;
  }

  /**
   * Sorts the pod's claims (as seen through the assume cache) into bound and unbound
   * WaitForFirstConsumer ones, with the candidate volumes of their classes.
   *
   * @throws StatusException Error on lookup failures; UnschedulableAndUnresolvable when an
   *     unbound claim binds immediately (or is pre-bound), which only the PV controller can fix
   */
  PodVolumeClaims podVolumeClaims(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    List<BoundClaim> bound = new ArrayList<>();
    List<UnboundClaim> delayed = new ArrayList<>();
    boolean unboundImmediate = false;
    for (Volume v : VolumeHelpers.volumes(pod)) {
      Optional<String> name = VolumeHelpers.claimName(pod, v);
      if (name.isEmpty()) {
        continue;
      }
      String key = ns + "/" + name.get();
      PersistentVolumeClaim pvc = pvcCache.get(key).orElseThrow(() -> new StatusException(
          Status.error("error getting PVC \"" + key + "\": not found")));
      if (VolumeHelpers.isFullyBound(pvc)) {
        String pvName = VolumeHelpers.volumeName(pvc);
        bound.add(new BoundClaim(pvc, pvCache.get(pvName).map(VolumeBinder::candidate)));
      } else if (isDelayBinding(pvc) && VolumeHelpers.volumeName(pvc).isEmpty()) {
        delayed.add(unboundClaim(pvc));
      } else {
        unboundImmediate = true;
      }
    }
    if (unboundImmediate) {
      throw unresolvable(ERR_UNBOUND_IMMEDIATE);
    }
    delayed.sort(Comparator.comparingLong(UnboundClaim::request));
    Map<String, List<CandidateVolume>> byClass = new HashMap<>();
    for (UnboundClaim claim : delayed) {
      byClass.computeIfAbsent(claim.className(), c -> pvCache
          .list(pv -> pv.getSpec() != null && VolumeHelpers.volumeClass(pv).equals(c))
          .stream().map(VolumeBinder::candidate).toList());
    }
    return new PodVolumeClaims(bound, delayed, byClass);
  }

  private boolean isDelayBinding(PersistentVolumeClaim pvc) {
    String className = VolumeHelpers.claimClass(pvc);
    if (className.isEmpty()) {
      return false;
    }
    Optional<StorageClass> sc = classLister.get("", className);
    if (sc.isEmpty()) {
      return false;
    }
    String mode = sc.get().getVolumeBindingMode();
    if (mode == null) {
      throw new StatusException(Status.error("VolumeBindingMode not set for StorageClass \""
          + className + "\""));
    }
    return VolumeHelpers.WAIT_FOR_FIRST_CONSUMER.equals(mode);
  }

  private static UnboundClaim unboundClaim(PersistentVolumeClaim pvc) {
    String key = VolumeHelpers.claimKey(pvc);
    long request = 0;
    var spec = pvc.getSpec() == null ? new PersistentVolumeClaimSpec() : pvc.getSpec();
    var resources = spec.getResources();
    Quantity q = resources == null || resources.getRequests() == null ? null
        : resources.getRequests().get(VolumeHelpers.STORAGE);
    try {
      if (q != null) {
        request = Quantities.value(q, "persistentvolumeclaim " + key
            + ": spec.resources.requests.storage");
      }
      return new UnboundClaim(pvc, request, VolumeHelpers.claimClass(pvc),
          Optional.ofNullable(spec.getSelector()).map(s -> LabelSelectors.compile(s,
              "persistentvolumeclaim " + key + ": spec.selector")));
    } catch (IllegalArgumentException e) {
      throw new StatusException(Status.error(e.getMessage()));
    }
  }

  private static CandidateVolume candidate(PersistentVolume pv) {
    long capacity = 0;
    Map<String, Quantity> cap = pv.getSpec() == null ? null : pv.getSpec().getCapacity();
    if (cap != null && cap.get(VolumeHelpers.STORAGE) != null) {
      try {
        capacity = Quantities.value(cap.get(VolumeHelpers.STORAGE), "spec.capacity.storage");
      } catch (IllegalArgumentException e) {
        capacity = -1;
      }
    }
    return new CandidateVolume(pv, capacity, VolumeAffinity.of(pv));
  }

  /** Filter's verdict for one node: the decisions, or the reasons the node does not fit. */
  record NodeVolumes(PodVolumes volumes, List<String> reasons) {}

  /**
   * Upstream's {@code FindPodVolumes}: bound claims need their volume to exist and reach the
   * node; unbound ones need a matching volume or a class that can provision there.
   *
   * @throws StatusException Error when a claim's class is missing
   */
  NodeVolumes findPodVolumes(PodVolumeClaims claims, Node node) {
    boolean boundSatisfied = true;
    boolean volumesFound = true;
    for (BoundClaim b : claims.bound()) {
      if (b.volume().isEmpty()) {
        volumesFound = false;
        break;
      }
      if (!b.volume().get().affinity().matches(node)) {
        boundSatisfied = false;
        break;
      }
    }
    boolean unboundSatisfied = true;
    List<StaticBinding> bindings = new ArrayList<>();
    List<PersistentVolumeClaim> provisions = new ArrayList<>();
    List<UnboundClaim> toProvision = new ArrayList<>();
    List<UnboundClaim> toMatch = new ArrayList<>();
    String nodeName = node.getMetadata().getName();
    for (UnboundClaim c : claims.unboundDelayBinding()) {
      String selected = VolumeHelpers.annotations(c.pvc()).get(VolumeHelpers.ANN_SELECTED_NODE);
      if (selected == null) {
        toMatch.add(c);
      } else if (selected.equals(nodeName)) {
        toProvision.add(c);
      } else {
        // already being provisioned for another node
        unboundSatisfied = false;
        toMatch.clear();
        toProvision.clear();
        break;
      }
    }
    if (!toMatch.isEmpty()) {
      Set<String> chosen = new HashSet<>();
      for (UnboundClaim c : toMatch) {
        Optional<CandidateVolume> pv = VolumeMatcher.findMatchingVolume(c,
            claims.volumesByClass().getOrDefault(c.className(), List.of()), node, chosen);
        if (pv.isEmpty()) {
          toProvision.add(c);
          unboundSatisfied = false;
        } else {
          chosen.add(pv.get().name());
          bindings.add(new StaticBinding(pv.get().pv(), c.pvc()));
        }
      }
    }
    if (!toProvision.isEmpty()) {
      // as upstream, provisioning decides for every claim left, overriding a failed match
      unboundSatisfied = canProvision(toProvision, node);
      if (unboundSatisfied) {
        toProvision.forEach(c -> provisions.add(c.pvc()));
      }
    }
    List<String> reasons = new ArrayList<>();
    if (!boundSatisfied) {
      reasons.add(ERR_REASON_NODE_CONFLICT);
    }
    if (!unboundSatisfied) {
      reasons.add(ERR_REASON_BIND_CONFLICT);
    }
    if (!volumesFound) {
      reasons.add(ERR_REASON_PV_NOT_EXIST);
    }
    return new NodeVolumes(reasons.isEmpty() ? new PodVolumes(bindings, provisions)
        : PodVolumes.NONE, List.copyOf(reasons));
  }

  private boolean canProvision(List<UnboundClaim> claims, Node node) {
    for (UnboundClaim c : claims) {
      if (c.className().isEmpty()) {
        throw new StatusException(Status.error("no class for claim \""
            + VolumeHelpers.claimKey(c.pvc()) + "\""));
      }
      StorageClass sc = classLister.get("", c.className()).orElseThrow(() ->
          new StatusException(Status.error("failed to find storage class \"" + c.className()
              + "\"")));
      String provisioner = sc.getProvisioner();
      if (provisioner == null || provisioner.isEmpty()
          || VolumeHelpers.NOT_SUPPORTED_PROVISIONER.equals(provisioner)) {
        return false;
      }
      Map<String, String> labels = node.getMetadata().getLabels();
      if (!VolumeMatcher.topologyAllows(sc.getAllowedTopologies(),
          labels == null ? Map.of() : labels)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Upstream's {@code AssumePodVolumes}: assumes each chosen volume bound to its claim and each
   * claim to provision annotated with the node, all or nothing.
   *
   * @throws StatusException Error when an assumption conflicts (another pod took the volume)
   */
  Reservation assumePodVolumes(Pod pod, String nodeName, PodVolumes volumes) {
    if (allClaimsBound(pod)) {
      return Reservation.ALL_BOUND;
    }
    String owner = VolumeHelpers.owner(pod);
    List<StaticBinding> assumedBindings = new ArrayList<>();
    List<PersistentVolumeClaim> assumedClaims = new ArrayList<>();
    List<Runnable> undo = new ArrayList<>();
    try {
      for (StaticBinding b : volumes.staticBindings()) {
        Optional<PersistentVolume> bound = bindVolumeToClaim(b.pv(), b.pvc());
        if (bound.isPresent()) {
          pvCache.assume(bound.get(), owner);
          String key = AssumeCache.keyOf(bound.get());
          undo.add(() -> pvCache.restore(key, owner));
        }
        assumedBindings.add(new StaticBinding(bound.orElse(b.pv()), b.pvc()));
      }
      for (PersistentVolumeClaim claim : volumes.provisions()) {
        PersistentVolumeClaim annotated = new PersistentVolumeClaimBuilder(claim).editMetadata()
            .addToAnnotations(VolumeHelpers.ANN_SELECTED_NODE, nodeName).endMetadata().build();
        pvcCache.assume(annotated, owner);
        String key = AssumeCache.keyOf(annotated);
        undo.add(() -> pvcCache.restore(key, owner));
        assumedClaims.add(annotated);
      }
    } catch (AssumeCache.AssumeConflictException e) {
      undo.forEach(Runnable::run);
      throw new StatusException(Status.error(e.getMessage()));
    }
    return new Reservation(false, assumedBindings, assumedClaims, owner);
  }

  /** Drops what {@code r} assumed; idempotent, and never touches another pod's assumptions. */
  void revert(Reservation r) {
    for (StaticBinding b : r.bindings()) {
      pvCache.restore(AssumeCache.keyOf(b.pv()), r.owner());
    }
    for (PersistentVolumeClaim c : r.provisions()) {
      pvcCache.restore(AssumeCache.keyOf(c), r.owner());
    }
  }

  private boolean allClaimsBound(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    for (Volume v : VolumeHelpers.volumes(pod)) {
      Optional<String> name = VolumeHelpers.claimName(pod, v);
      if (name.isPresent() && !pvcCache.get(ns + "/" + name.get())
          .map(VolumeHelpers::isFullyBound).orElse(false)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Upstream's {@code GetBindVolumeToClaim}: the volume with its claimRef on the claim and, unless
   * a user pre-bound it, the bound-by-controller annotation; empty when nothing would change.
   */
  static Optional<PersistentVolume> bindVolumeToClaim(PersistentVolume pv,
      PersistentVolumeClaim pvc) {
    boolean preBound = VolumeHelpers.isVolumeBoundToClaim(pv, pvc);
    var ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
    boolean refMatches = ref != null && Objects.equals(ref.getName(), pvc.getMetadata().getName())
        && Objects.equals(ref.getNamespace(), pvc.getMetadata().getNamespace())
        && Objects.equals(ref.getUid(), pvc.getMetadata().getUid());
    boolean annotate = !preBound
        && !VolumeHelpers.hasAnnotation(pv, VolumeHelpers.ANN_BOUND_BY_CONTROLLER);
    if (refMatches && !annotate) {
      return Optional.empty();
    }
    PersistentVolumeBuilder b = new PersistentVolumeBuilder(pv);
    if (!refMatches) {
      b.editSpec().withClaimRef(new ObjectReferenceBuilder().withKind("PersistentVolumeClaim")
          .withApiVersion("v1").withNamespace(pvc.getMetadata().getNamespace())
          .withName(pvc.getMetadata().getName()).withUid(pvc.getMetadata().getUid())
          .withResourceVersion(pvc.getMetadata().getResourceVersion()).build()).endSpec();
    }
    if (annotate) {
      b.editMetadata().addToAnnotations(VolumeHelpers.ANN_BOUND_BY_CONTROLLER, "yes")
          .endMetadata();
    }
    return Optional.of(b.build());
  }

  private static StatusException unresolvable(String message) {
    return new StatusException(Status.unresolvable(message));
  }
}
