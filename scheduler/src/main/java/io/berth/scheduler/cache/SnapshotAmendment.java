package io.berth.scheduler.cache;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Tentative placements (and removals) on a {@link Snapshot}, for a group scheduling cycle (Sky-Scheduler's
 * Statement, upstream's {@code AssumeAndReserveInSnapshot}): {@link #assume} puts a pod on its
 * node in the snapshot only, so that the group's later members are filtered and scored against
 * the members placed before them, and {@link #revert} puts every touched node back exactly as the
 * cache gave it. The cache never sees these placements; the scheduler assumes the pods in the
 * cache itself when the group commits.
 *
 * <p>Each placement swaps in a private copy of the node ({@link NodeInfo#snapshot()} plus the pod),
 * never mutating a NodeInfo the cache handed out (those are shared from cycle to cycle). A placed
 * pod's PVCs join the snapshot's used-PVC set ({@link Snapshot#isPvcUsedByPods}), so that a later
 * member mounting the same ReadWriteOncePod claim is rejected by VolumeRestrictions as it would be
 * once the first member is bound; a removal ({@link #remove}) leaves the set alone (a claim of a
 * victim may still be used by another pod, and preemption's own what-if goes through
 * VolumeRestrictions' RemovePod extension). Not thread-safe: confined to the scheduling thread,
 * like the snapshot, and reverted before the next {@link SchedulerCache#updateSnapshot}.
 */
public final class SnapshotAmendment {
  private final Snapshot snapshot;
  // confined to the scheduling thread: what each assume or remove replaced, newest first
  private final Deque<Change> replaced = new ArrayDeque<>();

  /** One amendment: the NodeInfo it replaced, the PVC keys it newly marked as used, whether a removal. */
  private record Change(NodeInfo previous, List<String> markedPvcs, boolean removal) { }

  public SnapshotAmendment(Snapshot snapshot) {
    this.snapshot = snapshot;
  }

  /**
   * Places {@code assumed} (its {@code spec.nodeName} set) on its node in the snapshot. Throws
   * {@link IllegalArgumentException} when the node is not in the snapshot.
   */
  public void assume(Pod assumed) {
    assume(PodInfo.of(assumed));
  }

  /** As {@link #assume(Pod)}, with the assumed pod's derived data at hand. */
  public void assume(PodInfo podInfo) {
    Pod assumed = podInfo.pod();
    String nodeName = assumed.getSpec().getNodeName();
    NodeInfo current = snapshot.get(nodeName).orElseThrow(() -> new IllegalArgumentException(
        "node \"" + nodeName + "\" of pod \"" + assumed.getMetadata().getNamespace() + "/"
            + assumed.getMetadata().getName() + "\" is not in the snapshot"));
    NodeInfo amended = current.snapshot();
    amended.addPod(podInfo);
    List<String> marked = List.of();
    for (String pvc : podInfo.pvcKeys()) {
      if (snapshot.markPvcUsed(pvc)) {
        marked = marked.isEmpty() ? new ArrayList<>(2) : marked;
        marked.add(pvc);
      }
    }
    snapshot.put(amended);
    replaced.push(new Change(current, marked, false));
  }

  /**
   * Takes {@code victim} off its node in the snapshot, as if it were gone (preemption's what-if);
   * nothing when its node is not in the snapshot.
   */
  public void remove(Pod victim) {
    String nodeName = victim.getSpec() == null ? null : victim.getSpec().getNodeName();
    if (nodeName == null) {
      return;
    }
    java.util.Optional<NodeInfo> current = snapshot.get(nodeName);
    if (current.isEmpty()) {
      return;
    }
    NodeInfo amended = current.get().snapshot();
    amended.removePod(victim);
    snapshot.put(amended);
    snapshot.bumpVersion(); // a pod other than a member is gone: figures cached per version are not
    replaced.push(new Change(current.get(), List.of(), true));
  }

  /** How many placements are in effect. */
  public int size() {
    return replaced.size();
  }

  /** Undoes the newest placement; nothing when there is none. */
  public void revertLast() {
    if (!replaced.isEmpty()) {
      undo(replaced.pop());
    }
  }

  /** Undoes every placement, newest first; the snapshot is as before the first one. */
  public void revert() {
    while (!replaced.isEmpty()) {
      undo(replaced.pop());
    }
  }

  private void undo(Change change) {
    snapshot.put(change.previous());
    change.markedPvcs().forEach(snapshot::unmarkPvcUsed);
    if (change.removal()) {
      snapshot.bumpVersion();
    }
  }
}
