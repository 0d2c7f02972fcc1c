package io.berth.plugins.capacityscheduling;

import io.berth.framework.StateData;
import java.util.Optional;

/**
 * What PreFilter computed for the pod of one scheduling cycle, for PostFilter's reclaim: the quota snapshot, the
 * pod's charge and demand, whether it runs on borrowed capacity only, and whether its demand stays within its
 * namespace's {@code min} (then it may reclaim from borrowers). {@code demand} is empty for a pod whose namespace has
 * no quota. Immutable, so {@link #copy()} returns itself.
 */
record CycleQuota(QuotaSnapshot snapshot, PodCharge charge, Optional<QuotaSnapshot.Demand> demand,
    boolean preemptible, boolean withinMin) implements StateData {

  static final String KEY = "PreFilter" + CapacityScheduling.NAME;

  @Override
  public StateData copy() {
    return this;
  }
}
