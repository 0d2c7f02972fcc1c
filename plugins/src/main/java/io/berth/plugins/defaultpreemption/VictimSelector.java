package io.berth.plugins.defaultpreemption;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds the fewest pods to evict from one node so that the preemptor fits there, as upstream's
 * {@code SelectVictimsOnNode}. It works on the caller's private copies of the NodeInfo and the
 * CycleState (it mutates both): every pod of lower priority is removed (through the PreFilter
 * RemovePod extensions); if the preemptor still does not fit, the node cannot help. Otherwise the
 * removed pods are added back one at a time, most important first and PDB-protected ones before
 * the others, and each one that leaves the preemptor still fitting is reprieved; the rest are the
 * victims. A {@link VictimPolicy} says which pods are eligible (by default those of lower priority),
 * their importance, whether the preemptor is admitted beyond the filters with the removed pods
 * gone, and whether the final victims are acceptable. Immutable and thread-safe (each call owns its copies); called from parallel workers.
 */
final class VictimSelector {
  /** The outcome on one node: victims (most important first) and PDB violations, or why not. */
  record Selection(List<Pod> victims, int numPdbViolations, Status status) {
    static Selection failed(Status status) {
      return new Selection(List.of(), 0, status);
    }
  }

  private final Handle handle;
  private final Comparator<PodInfo> mostImportantFirst;
  private final VictimPolicy policy;

  VictimSelector(Handle handle, VictimOrdering ordering) {
    this(handle, ordering, VictimPolicy.LOWER_PRIORITY);
  }

  VictimSelector(Handle handle, VictimOrdering ordering, VictimPolicy policy) {
    this.handle = handle;
    this.policy = policy;
    this.mostImportantFirst = Comparator.comparing(PodInfo::pod,
        policy.importance(ordering.mostImportantFirst()));
  }

  Selection select(CycleState state, Pod preemptor, NodeInfo nodeInfo,
      List<PodDisruptionBudget> pdbs) {
    List<PodInfo> potentialVictims = new ArrayList<>(nodeInfo.pods().size());
    for (PodInfo pi : nodeInfo.pods()) {
      if (policy.eligible(state, preemptor, pi.pod())) {
        potentialVictims.add(pi);
      }
    }
    for (PodInfo pi : potentialVictims) {
      Status s = remove(state, preemptor, pi, nodeInfo);
      if (!s.isSuccess()) {
        return Selection.failed(s);
      }
    }
    if (potentialVictims.isEmpty()) {
      // The node is as it was: no need to run the filters again.
      return Selection.failed(Status.unresolvable(DefaultPreemption.REASON_NO_VICTIMS));
    }
    // Affinity of the preemptor to the victims themselves is deliberately not considered: if it
    // does not fit with all of them gone, this node cannot help.
    Status fits = handle.runFilterPluginsWithNominatedPods(state, preemptor, nodeInfo);
    if (!fits.isSuccess()) {
      return Selection.failed(fits);
    }
    // the pods currently off the node: the policy's admission check sees them gone
    List<Pod> removed = new ArrayList<>(potentialVictims.size());
    for (PodInfo pi : potentialVictims) {
      removed.add(pi.pod());
    }
    Status admitted = policy.admits(state, preemptor, removed);
    if (!admitted.isSuccess()) {
      return Selection.failed(admitted);
    }
    potentialVictims.sort(mostImportantFirst);
    PdbViolations.Split split = PdbViolations.split(potentialVictims, pdbs);
    List<PodInfo> victims = new ArrayList<>();
    int numViolating = 0;
    for (PodInfo pi : split.violating()) {
      Status s = reprieve(state, preemptor, pi, nodeInfo, victims, removed);
      if (s.code() == Code.ERROR) {
        return Selection.failed(s);
      }
      if (!s.isSuccess()) {
        numViolating++;
      }
    }
    for (PodInfo pi : split.nonViolating()) {
      Status s = reprieve(state, preemptor, pi, nodeInfo, victims, removed);
      if (s.code() == Code.ERROR) {
        return Selection.failed(s);
      }
    }
    if (!split.violating().isEmpty() && !split.nonViolating().isEmpty()) {
      victims.sort(mostImportantFirst);
    }
    List<Pod> chosen = victims.stream().map(PodInfo::pod).toList();
    Status accepted = policy.acceptVictims(state, preemptor, chosen);
    if (!accepted.isSuccess()) {
      return Selection.failed(accepted);
    }
    return new Selection(chosen, numViolating, Status.SUCCESS);
  }

  /**
   * Adds {@code pi} back; keeps it when the preemptor still fits (Success), else removes it again
   * and records it as a victim (Unschedulable). Error when an extension fails.
   */
  private Status reprieve(CycleState state, Pod preemptor, PodInfo pi, NodeInfo nodeInfo,
      List<PodInfo> victims, List<Pod> removed) {
    nodeInfo.addPod(pi);
    Status added = asError(handle.runPreFilterExtensionAddPod(state, preemptor, pi, nodeInfo));
    if (!added.isSuccess()) {
      return added;
    }
    removeIdentical(removed, pi.pod());
    if (handle.runFilterPluginsWithNominatedPods(state, preemptor, nodeInfo).isSuccess()
        && policy.admits(state, preemptor, removed).isSuccess()) {
      return Status.SUCCESS;
    }
    removed.add(pi.pod());
    Status taken = remove(state, preemptor, pi, nodeInfo);
    if (!taken.isSuccess()) {
      return taken;
    }
    victims.add(pi);
    return Status.unschedulable();
  }

  /** Pods compare deeply; the list holds the very instances, so remove by identity. */
  private static void removeIdentical(List<Pod> pods, Pod pod) {
    for (int i = pods.size() - 1; i >= 0; i--) {
      if (pods.get(i) == pod) {
        pods.remove(i);
        return;
      }
    }
  }

  private Status remove(CycleState state, Pod preemptor, PodInfo pi, NodeInfo nodeInfo) {
    if (!nodeInfo.removePod(pi.pod())) {
      return Status.error("no corresponding pod " + pi.key() + " in pods of node "
          + nodeInfo.nodeName());
    }
    return asError(handle.runPreFilterExtensionRemovePod(state, preemptor, pi, nodeInfo));
  }

  /** Any failure of an extension is an error here, as upstream turns it into an error. */
  private static Status asError(Status s) {
    return s.isSuccess() || s.code() == Code.ERROR ? s : Status.error(s.message());
  }
}
