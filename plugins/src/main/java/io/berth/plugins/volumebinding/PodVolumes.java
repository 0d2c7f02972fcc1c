package io.berth.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.List;

/**
 * What Filter decided for one node (upstream's {@code PodVolumes}): the existing volumes to bind
 * to the pod's unbound claims, and the claims to provision dynamically there. Immutable.
 */
record PodVolumes(List<StaticBinding> staticBindings, List<PersistentVolumeClaim> provisions) {
  static final PodVolumes NONE = new PodVolumes(List.of(), List.of());

  PodVolumes {
    staticBindings = List.copyOf(staticBindings);
    provisions = List.copyOf(provisions);
  }

  /** A volume chosen for a claim (after Reserve: the volume as assumed, claimRef set). */
  record StaticBinding(PersistentVolume pv, PersistentVolumeClaim pvc) {}
}
