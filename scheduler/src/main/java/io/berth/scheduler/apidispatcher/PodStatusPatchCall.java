package io.berth.scheduler.apidispatcher;

import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A patch of a pod's status, as upstream's {@code PodStatusPatchCall}: conditions merged by type
 * and the nomination when {@link NominatingInfo.Mode#OVERRIDE}. It compares them with the status
 * it knows (the pod's when queued, refreshed by {@link #sync} until it runs): what that status
 * already shows is not sent, and a call that would send nothing is a no-op. A newer call absorbs
 * an older one's nomination when it has none of its own, and its conditions of other types. Sent
 * through the {@link PodApi} (one strategic merge patch; a second per extra condition type). A
 * pod that is gone is not an error. Thread-safe: the mutable state is guarded by {@code this}.
 */
final class PodStatusPatchCall implements ApiCall {
  private final PodApi api;
  private final Pod pod;
  private final String uid;
  // guarded by this
  private PodStatus known;
  // guarded by this: set when execute starts; known is then no longer refreshed
  private boolean executed;
  // guarded by this: another call for the pod ran while this one waited, so known may be stale
  private boolean knownMayBeStale;
  // guarded by this: at most one per type
  private final List<PodCondition> conditions = new ArrayList<>(1);
  // guarded by this
  private NominatingInfo nominating;

  PodStatusPatchCall(PodApi api, Pod pod, Optional<PodCondition> condition,
      NominatingInfo nominating) {
    this.api = api;
    this.pod = pod;
    this.uid = PodCalls.uidOf(pod);
    this.known = pod.getStatus();
    condition.ifPresent(conditions::add);
    this.nominating = nominating == null ? NominatingInfo.NOOP : nominating;
  }

  @Override
  public String type() {
    return ApiCalls.POD_STATUS_PATCH;
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public void execute() {
    List<PodCondition> toSend;
    Optional<String> nomination;
    synchronized (this) {
      executed = true;
      toSend = new ArrayList<>(conditions.size());
      for (PodCondition c : conditions) {
        if (knownMayBeStale || conditionNeedsUpdate(known, c)) {
          toSend.add(c);
        }
      }
      nomination = knownMayBeStale || nominationNeedsUpdate(known, nominating)
          ? overriddenNomination(nominating) : Optional.empty();
    }
    if (toSend.isEmpty() && nomination.isEmpty()) {
      return;
    }
    Optional<PodCondition> first = toSend.isEmpty() ? Optional.empty() : Optional.of(toSend.get(0));
    if (!api.patchStatus(pod, new PodStatusPatch(first, nomination))) {
      return; // gone
    }
    for (int i = 1; i < toSend.size(); i++) {
      api.patchStatus(pod, PodStatusPatch.condition(toSend.get(i)));
    }
  }

  @Override
  public void mergeFrom(ApiCall older) {
    if (!(older instanceof PodStatusPatchCall o)) {
      throw new IllegalArgumentException("cannot merge a " + older.type() + " call into a "
          + type() + " call");
    }
    List<PodCondition> olderConditions;
    NominatingInfo olderNominating;
    boolean olderStale;
    synchronized (o) {
      olderConditions = List.copyOf(o.conditions);
      olderNominating = o.nominating;
      olderStale = o.knownMayBeStale;
    }
    synchronized (this) {
      if (nominating.mode() == NominatingInfo.Mode.NOOP
          && olderNominating.mode() == NominatingInfo.Mode.OVERRIDE) {
        nominating = olderNominating;
      }
      for (PodCondition c : olderConditions) {
        if (find(conditions, c.getType()) == null) {
          conditions.add(c);
        }
      }
      knownMayBeStale |= olderStale;
    }
  }

  @Override
  public Pod sync(Pod current) {
    List<PodCondition> mine;
    NominatingInfo nom;
    synchronized (this) {
      if (!executed) {
        known = current.getStatus();
      }
      mine = List.copyOf(conditions);
      nom = nominating;
    }
    PodStatus status = current.getStatus();
    boolean changes = nominationNeedsUpdate(status, nom);
    for (PodCondition c : mine) {
      changes |= conditionNeedsUpdate(status, c);
    }
    if (!changes) {
      return current;
    }
    PodBuilder b = new PodBuilder(current);
    PodStatus applied = b.editOrNewStatus().endStatus().buildStatus();
    List<PodCondition> merged = applied.getConditions() == null ? new ArrayList<>()
        : new ArrayList<>(applied.getConditions());
    for (PodCondition c : mine) {
      merged.removeIf(e -> Objects.equals(e.getType(), c.getType()));
      merged.add(c);
    }
    applied.setConditions(merged);
    if (nom.mode() == NominatingInfo.Mode.OVERRIDE) {
      applied.setNominatedNodeName(PodCalls.emptyToNull(nom.nominatedNodeName()));
    }
    return b.withStatus(applied).build();
  }

  @Override
  public synchronized boolean isNoOp() {
    if (knownMayBeStale || nominationNeedsUpdate(known, nominating)) {
      return false;
    }
    for (PodCondition c : conditions) {
      if (conditionNeedsUpdate(known, c)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public synchronized void afterRunningCall() {
    knownMayBeStale = true;
  }

  /** The nomination to write ("" clears), for a test. */
  synchronized NominatingInfo nominating() {
    return nominating;
  }

  /** The conditions to merge, for a test. */
  synchronized List<PodCondition> conditions() {
    return List.copyOf(conditions);
  }

  /** The status the call compares with, for a test. */
  synchronized PodStatus known() {
    return known;
  }

  private static Optional<String> overriddenNomination(NominatingInfo n) {
    return n.mode() == NominatingInfo.Mode.OVERRIDE
        ? Optional.of(n.nominatedNodeName() == null ? "" : n.nominatedNodeName()) : Optional.empty();
  }

  private static boolean nominationNeedsUpdate(PodStatus status, NominatingInfo n) {
    if (n.mode() != NominatingInfo.Mode.OVERRIDE) {
      return false;
    }
    String current = status == null ? null : status.getNominatedNodeName();
    return !Objects.equals(PodCalls.emptyToNull(current), PodCalls.emptyToNull(n.nominatedNodeName()));
  }

  /** upstream's conditionNeedsUpdate: absent, or status, reason, message or probe time differ. */
  private static boolean conditionNeedsUpdate(PodStatus status, PodCondition c) {
    PodCondition old = status == null ? null : find(status.getConditions(), c.getType());
    if (old == null) {
      return true;
    }
    return !(Objects.equals(c.getStatus(), old.getStatus())
        && Objects.equals(c.getReason(), old.getReason())
        && Objects.equals(c.getMessage(), old.getMessage())
        && Objects.equals(c.getLastProbeTime(), old.getLastProbeTime()));
  }

  private static PodCondition find(List<PodCondition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    for (PodCondition c : conditions) {
      if (Objects.equals(type, c.getType())) {
        return c;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "status patch of " + uid;
  }
}
