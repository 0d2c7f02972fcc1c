package io.berth.plugins.volumebinding;

import io.berth.framework.StateData;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * VolumeBinding's cycle state: the claims PreFilter sorted, what each Filter decided per node,
 * and what Reserve assumed. {@link #copy()} returns this very object, as upstream does: the
 * preemption copies share the per-node decisions, which is safe because they are keyed by node.
 */
final class VolumeBindingState implements StateData {
  final PodVolumeClaims claims;
  // written by parallel Filters (one node each), read on the scheduling thread afterwards
  final Map<String, PodVolumes> podVolumesByNode = new ConcurrentHashMap<>();
  // written by Reserve on the scheduling thread, read by PreBind/Unreserve on a binding thread
  private volatile Reservation reservation;

  VolumeBindingState(PodVolumeClaims claims) {
    this.claims = claims;
  }

  Optional<Reservation> reservation() {
    return Optional.ofNullable(reservation);
  }

  void reserve(Reservation r) {
    this.reservation = r;
  }

  @Override
  public StateData copy() {
    return this;
  }
}
