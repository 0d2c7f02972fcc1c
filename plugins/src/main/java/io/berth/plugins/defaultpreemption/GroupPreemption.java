package io.berth.plugins.defaultpreemption;

import io.berth.framework.GroupPreemptionPlugin.GroupFeasibility;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodGroupRef;
import io.berth.framework.PodInfo;
import io.berth.framework.Status;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Preemption for a whole pod group (workload-aware preemption, upstream 1.36's
 * {@code PodGroupPostFilter} of DefaultPreemption): the victims are chosen among pods of lower
 * priority than the group's lowest-priority member, in units: the placed members of one pod group
 * form one unit (taken together or not at all, never half a gang; a group with any member of the
 * preemptor's priority or more is no candidate), any other pod is a unit of its own. Units are
 * removed lowest priority first (then smallest, then by name) until the scheduler's feasibility
 * check says at least minMember members fit; then, as upstream's reprieve, each removed unit is
 * put back, highest priority first, if the group still fits without it. The victims are evicted
 * through {@link CandidatePreparation} (DisruptionTarget condition, deletion, Preempted event),
 * node by node. Each feasibility check is a full group placement on the snapshot, so this costs up
 * to twice as many group placements as there are units. Stateless besides its collaborators;
 * called on the scheduling thread.
 */
final class GroupPreemption {
  private static final Logger LOG = LoggerFactory.getLogger(GroupPreemption.class);

  /** One unit of victims: a pod, or the placed members of one pod group. */
  private record Unit(String key, int priority, List<Pod> pods) { }

  private final Handle handle;
  private final CandidatePreparation preparation;

  GroupPreemption(Handle handle, CandidatePreparation preparation) {
    this.handle = handle;
    this.preparation = preparation;
  }

  Status preempt(PodGroupRef group, List<Pod> members, GroupFeasibility feasibility) {
    if (members.isEmpty()) {
      return Status.unschedulable("PodGroup \"" + group.key() + "\" has no pending members");
    }
    for (Pod m : members) {
      if (m.getSpec() != null && "Never".equals(m.getSpec().getPreemptionPolicy())) {
        return Status.unschedulable("PodGroup \"" + group.key() + "\": member \""
            + m.getMetadata().getName() + "\" is " + DefaultPreemption.REASON_PREEMPT_NEVER);
      }
    }
    int priority = Integer.MAX_VALUE;
    for (Pod m : members) {
      priority = Math.min(priority, PrioritySort.podPriority(m));
    }
    List<Unit> units = units(group, priority, feasibility);
    if (units.isEmpty()) {
      return Status.unschedulable("no lower-priority pods to preempt for PodGroup \""
          + group.key() + "\"");
    }
    List<Unit> removed = new ArrayList<>();
    List<Pod> victims = new ArrayList<>();
    boolean fits = false;
    for (Unit u : units) {
      removed.add(u);
      victims.addAll(u.pods());
      if (feasibility.fitsWithout(victims)) {
        fits = true;
        break;
      }
    }
    if (!fits) {
      return Status.unschedulable("PodGroup \"" + group.key() + "\" does not fit even without "
          + "every lower-priority pod");
    }
    // reprieve, highest priority first: keep what the group can do without
    for (int i = removed.size() - 1; i >= 0; i--) {
      List<Pod> without = new ArrayList<>(victims);
      without.removeAll(removed.get(i).pods());
      if (feasibility.fitsWithout(without)) {
        victims = without;
      }
    }
    return evict(group, members.get(0), victims);
  }

  /** Candidate units, in removal order. */
  private List<Unit> units(PodGroupRef group, int priority, GroupFeasibility feasibility) {
    Map<String, List<Pod>> byUnit = new LinkedHashMap<>();
    Map<String, Integer> unitPriority = new LinkedHashMap<>();
    Set<String> ineligible = new HashSet<>();
    for (NodeInfo node : handle.snapshotLister().list()) {
      for (PodInfo pi : node.pods()) {
        Pod p = pi.pod();
        Optional<PodGroupRef> g = feasibility.groupOf(p);
        if (g.isPresent() && g.get().key().equals(group.key())) {
          continue; // the group's own placed members stay
        }
        String key = g.map(r -> "group " + r.key()).orElse("pod " + p.getMetadata().getUid());
        int pp = PrioritySort.podPriority(p);
        if (pp >= priority || p.getMetadata().getDeletionTimestamp() != null) {
          ineligible.add(key); // a gang with one member we may not preempt is kept whole
        }
        byUnit.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
        unitPriority.merge(key, pp, Math::max);
      }
    }
    List<Unit> out = new ArrayList<>();
    byUnit.forEach((key, pods) -> {
      if (!ineligible.contains(key)) {
        out.add(new Unit(key, unitPriority.get(key), pods));
      }
    });
    out.sort(Comparator.comparingInt(Unit::priority).thenComparingInt(u -> u.pods().size())
        .thenComparing(Unit::key));
    return out;
  }

  private Status evict(PodGroupRef group, Pod preemptor, List<Pod> victims) {
    Map<String, List<Pod>> byNode = new LinkedHashMap<>();
    for (Pod v : victims) {
      byNode.computeIfAbsent(v.getSpec().getNodeName(), n -> new ArrayList<>()).add(v);
    }
    for (Map.Entry<String, List<Pod>> e : byNode.entrySet()) {
      Status s = preparation.prepare(new Candidate(e.getKey(), e.getValue(), 0), preemptor);
      if (!s.isSuccess()) {
        return s;
      }
    }
    LOG.debug("PodGroup {}: preempted {} pod(s) on {} node(s)", group.key(), victims.size(),
        byNode.size());
    return Status.SUCCESS.withPlugin(DefaultPreemption.NAME);
  }
}
