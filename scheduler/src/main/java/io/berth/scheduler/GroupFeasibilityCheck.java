package io.berth.scheduler;

import io.berth.framework.AssumedPod;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.GroupPreemptionPlugin;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.StatusException;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.cache.SnapshotAmendment;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The what-if a {@link GroupPreemptionPlugin} asks: would at least {@code needed} of the group's
 * members fit if these victims were gone? Runs the same placement as the group cycle (the same
 * {@link SchedulingAlgorithm#schedulePod} per member, each on the snapshot amended by the members
 * before it) on the snapshot without the victims, with no Reserve, Permit or cache change, and
 * reverts the snapshot before answering. Uses a scheduling cycle number that no batch follows, so
 * opportunistic batching never reuses a what-if's scores. Remembers where the members went in the
 * last what-if that fit ({@link #lastFit}): the preemptor's victims are those of that what-if (a
 * plugin only keeps a victim set it was told fits), so those are the nodes the members are
 * nominated to. Confined to the scheduling thread.
 */
final class GroupFeasibilityCheck implements GroupPreemptionPlugin.GroupFeasibility {
  /** No real cycle follows this one, so the batch state it leaves is never used. */
  private static final long WHAT_IF_CYCLE = -2;

  private final Framework fw;
  private final PodGroupPlugin groups;
  private final SchedulingAlgorithm algorithm;
  private final Snapshot snapshot;
  private final List<QueuedPodInfo> members;
  private final int needed;
  // confined to the scheduling thread: member uid -> node of the last what-if that fit
  private Map<String, String> lastFit = Map.of();

  GroupFeasibilityCheck(Framework fw, PodGroupPlugin groups, SchedulingAlgorithm algorithm,
      Snapshot snapshot, List<QueuedPodInfo> members, int needed) {
    this.fw = fw;
    this.groups = groups;
    this.algorithm = algorithm;
    this.snapshot = snapshot;
    this.members = members;
    this.needed = needed;
  }

  @Override
  public boolean fitsWithout(List<Pod> victims) {
    SnapshotAmendment amendment = new SnapshotAmendment(snapshot);
    try {
      victims.forEach(amendment::remove);
      Map<String, String> hosts = new LinkedHashMap<>();
      int placed = 0;
      for (int i = 0; i < members.size(); i++) {
        Pod pod = members.get(i).pod();
        try {
          String host = algorithm.schedulePod(fw, new CycleState(), pod, snapshot, WHAT_IF_CYCLE)
              .suggestedHost();
          amendment.assume(AssumedPod.on(pod, host));
          hosts.put(pod.getMetadata().getUid(), host);
          placed++;
        } catch (FitError | SchedulingAlgorithm.NoNodesAvailableException | StatusException e) {
          // this member does not fit: the others may still make minMember
        }
        if (placed >= needed) {
          lastFit = hosts;
          return true;
        }
        if (placed + members.size() - i - 1 < needed) {
          return false;
        }
      }
      return false;
    } finally {
      amendment.revert();
    }
  }

  /**
   * Member uid to node in the last what-if that answered true (members the what-if did not need
   * or could not place are absent); empty before any did.
   */
  Map<String, String> lastFit() {
    return Collections.unmodifiableMap(lastFit);
  }

  @Override
  public Optional<PodGroupRef> groupOf(Pod pod) {
    return groups.podGroupOf(pod);
  }
}
