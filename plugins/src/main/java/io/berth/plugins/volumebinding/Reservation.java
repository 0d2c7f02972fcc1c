package io.berth.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.List;

/**
 * What Reserve assumed for a pod on its node: the volumes assumed bound to its claims and the
 * claims assumed annotated for provisioning, under {@code owner}; or nothing when all the pod's
 * claims were bound already. Immutable; PreBind writes it to the API, Unreserve reverts it.
 */
record Reservation(boolean allBound, List<PodVolumes.StaticBinding> bindings,
    List<PersistentVolumeClaim> provisions, String owner) {
  static final Reservation ALL_BOUND = new Reservation(true, List.of(), List.of(), "");

  Reservation {
    bindings = List.copyOf(bindings);
    provisions = List.copyOf(provisions);
  }
}
