package io.berth.plugins.volumebinding;

import io.berth.framework.ObjectLister;
import io.berth.framework.Status;
import io.berth.plugins.volumebinding.PodVolumes.StaticBinding;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PreBind's API work (upstream's {@code BindPodVolumes}, plus what the PV controller would do
 * next, since the embedded cluster has none): writes each assumed volume with its claimRef,
 * binds the claim to it ({@code spec.volumeName}, bind-completed and bound-by-controller
 * annotations), marks both Bound, annotates claims to provision with the selected node, then
 * polls the listers until every bound claim shows as fully bound or the timeout passes.
 * Thread-safe: stateless apart from its collaborators; runs on binding threads.
 */
final class BindingWriter {
  private static final Logger LOG = LoggerFactory.getLogger(BindingWriter.class);
  static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private final Supplier<KubernetesClient> client;
  private final ObjectLister<PersistentVolume> pvLister;
  private final ObjectLister<PersistentVolumeClaim> pvcLister;
  private final Duration timeout;
  private final Pacer pacer;

  BindingWriter(Supplier<KubernetesClient> client, ObjectLister<PersistentVolume> pvLister,
      ObjectLister<PersistentVolumeClaim> pvcLister, Duration timeout, Pacer pacer) {
    this.client = client;
    this.pvLister = pvLister;
    this.pvcLister = pvcLister;
    this.timeout = timeout;
    this.pacer = pacer;
  }

  /** A volume as written, with the resourceVersion the API returned. */
  private record Written(PersistentVolume pv, PersistentVolumeClaim pvc) {}

  Status bind(Pod pod, Reservation r) {
    List<Written> written = new ArrayList<>();
    try {
      for (StaticBinding b : r.bindings()) {
        written.add(bindOne(b));
      }
      for (PersistentVolumeClaim claim : r.provisions()) {
        // no provisioner runs in the embedded cluster: the annotation is all PreBind does
        PersistentVolumeClaim fresh = fetchClaim(claim);
        String node = VolumeHelpers.annotations(claim).get(VolumeHelpers.ANN_SELECTED_NODE);
        client.get().persistentVolumeClaims().resource(new PersistentVolumeClaimBuilder(fresh)
            .editMetadata().addToAnnotations(VolumeHelpers.ANN_SELECTED_NODE, node).endMetadata()
            .build()).update();
      }
    } catch (KubernetesClientException | IllegalStateException e) {
      LOG.debug("binding volumes of pod {}/{} failed: {}", pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(), e.getMessage());
      return Status.asError(e);
    }
    return awaitBound(written);
  }

  private Written bindOne(StaticBinding b) {
    KubernetesClient c = client.get();
    // optimistic concurrency: the assumed volume carries the resourceVersion it was chosen at
    PersistentVolume pv = c.persistentVolumes().resource(b.pv()).update();
    PersistentVolumeClaim fresh = fetchClaim(b.pvc());
    String current = VolumeHelpers.volumeName(fresh);
    String pvName = pv.getMetadata().getName();
    if (!current.isEmpty() && !current.equals(pvName)) {
      throw new IllegalStateException("persistentvolumeclaim \"" + fresh.getMetadata().getName()
          + "\" is already bound to persistentvolume \"" + current + "\"");
    }
    PersistentVolumeClaimBuilder claim = new PersistentVolumeClaimBuilder(fresh)
        .editSpec().withVolumeName(pvName).endSpec()
        .editMetadata().addToAnnotations(VolumeHelpers.ANN_BIND_COMPLETED, "yes").endMetadata();
    if (current.isEmpty()) {
      claim.editMetadata().addToAnnotations(VolumeHelpers.ANN_BOUND_BY_CONTROLLER, "yes")
          .endMetadata();
    }
    PersistentVolumeClaim bound = c.persistentVolumeClaims().resource(claim.build()).update();
    pv = c.persistentVolumes().resource(new PersistentVolumeBuilder(pv).editOrNewStatus()
        .withPhase(VolumeHelpers.PHASE_BOUND).endStatus().build()).updateStatus();
    bound = c.persistentVolumeClaims().resource(new PersistentVolumeClaimBuilder(bound)
        .editOrNewStatus().withPhase(VolumeHelpers.PHASE_BOUND)
        .withAccessModes(pv.getSpec().getAccessModes()).withCapacity(pv.getSpec().getCapacity())
        .endStatus().build()).updateStatus();
    return new Written(pv, bound);
  }

  private PersistentVolumeClaim fetchClaim(PersistentVolumeClaim claim) {
    PersistentVolumeClaim fresh = client.get().persistentVolumeClaims()
        .inNamespace(claim.getMetadata().getNamespace()).withName(claim.getMetadata().getName())
        .get();
    if (fresh == null) {
      throw new IllegalStateException("persistentvolumeclaim \"" + claim.getMetadata().getName()
          + "\" not found");
    }
    return fresh;
  }

  private Status awaitBound(List<Written> written) {
    long deadline = pacer.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<Status> verdict;
      try {
        verdict = check(written);
      } catch (IllegalStateException e) {
        return Status.error("binding volumes: " + e.getMessage());
      }
      if (verdict.isPresent()) {
        return verdict.get();
      }
      if (pacer.nanoTime() - deadline >= 0) {
        return Status.error("binding volumes: timed out waiting for the condition");
      }
      try {
        pacer.sleep(POLL_INTERVAL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Status.error("binding volumes: interrupted");
      }
    }
  }

  /** Success once every claim is fully bound; empty while the listers lag behind. */
  private Optional<Status> check(List<Written> written) {
    for (Written w : written) {
      String pvName = w.pv().getMetadata().getName();
      PersistentVolume pv = pvLister.get("", pvName).orElseThrow(() -> new IllegalStateException(
          "failed to check binding: persistentvolume \"" + pvName + "\" not found"));
      if (olderThan(pv.getMetadata().getResourceVersion(),
          w.pv().getMetadata().getResourceVersion())) {
        return Optional.empty();
      }
      var ref = pv.getSpec().getClaimRef();
      if (ref == null || ref.getUid() == null || ref.getUid().isEmpty()) {
        throw new IllegalStateException("ClaimRef got reset for pv \"" + pvName + "\"");
      }
      String ns = w.pvc().getMetadata().getNamespace();
      String name = w.pvc().getMetadata().getName();
      PersistentVolumeClaim pvc = pvcLister.get(ns, name).orElseThrow(() ->
          new IllegalStateException("failed to check binding: persistentvolumeclaim \"" + ns
              + "/" + name + "\" not found"));
      if (!VolumeHelpers.isFullyBound(pvc)) {
        return Optional.empty();
      }
    }
    return Optional.of(Status.SUCCESS);
  }

  // resourceVersions are opaque, but every server we talk to issues increasing integers
  private static boolean olderThan(String seen, String written) {
    try {
      return Long.parseLong(seen) < Long.parseLong(written);
    } catch (NumberFormatException | NullPointerException e) {
      return false;
    }
  }
}
