package io.berth.plugins.coscheduling;

import io.berth.framework.PodRequests;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What PreEnqueue and PreFilter need from a group's member list, computed once per list: how many members count
 * toward {@code minMember} (neither gated nor being deleted), how many are gated, and (on first use, PreFilter's) the
 * summed requests of the first {@code minMember} counted members by name (sorted and summed only then). A group
 * scheduling cycle runs PreFilter for each of its members on an unchanged member list, and the siblings of a group
 * that just became complete pass PreEnqueue one after another on one, so the first member's summary serves the rest
 * ({@link #matches}: the same group, the same pod objects in the same order, for the same {@code minMember}).
 *
 * <p>Matching is by object identity: the informer's index hands out the objects of its store, and any change to a
 * pod (a new member, a deletion, a lifted gate, a new resourceVersion) replaces its object there, so an identical
 * list is an unchanged one and a changed list only costs a recount. Thread-safe: immutable but for the lazily
 * summed requests (a volatile field; racing threads compute equal maps).
 */
final class MemberSummary {
  // the group (api and name) the summary counts, for matching against another group's lists
  private final GroupRef group;
  // the index's answer this summary was computed from (pods naming the group in either API), by identity
  private final Pod[] listed;
  private final int minMember;
  private final int counted;
  private final int gated;
  // the counted members, in listed order; PreFilter sums the first minMember of them by name
  private final List<Pod> countedPods;
  // computed on first use (PreEnqueue never asks); racing threads compute equal maps
  private volatile Map<String, Long> requests;

  private MemberSummary(GroupRef group, Pod[] listed, int minMember, int gated, List<Pod> countedPods) {
    this.group = group;
    this.listed = listed;
    this.minMember = minMember;
    this.counted = countedPods.size();
    this.gated = gated;
    this.countedPods = countedPods;
  }

  /**
   * The summary of {@code listed} (the pods the member index files under the group's name, in either API) for
   * {@code group}: pods of the other API are left out.
   */
  static MemberSummary of(PodGroup group, List<Pod> listed) {
    List<Pod> counted = new ArrayList<>(listed.size());
    int gated = 0;
    for (Pod p : listed) {
      if (!Coscheduling.inGroup(p, group)) {
        continue;
      }
      if (Coscheduling.gated(p)) {
        gated++;
      } else if (p.getMetadata().getDeletionTimestamp() == null) {
        counted.add(p);
      }
    }
    // sorted by name only when PreFilter first asks for the requests: PreEnqueue, which runs for every member
    // added, needs the counts alone
    return new MemberSummary(group.ref(), listed.toArray(Pod[]::new), group.minMember(), gated,
        Collections.unmodifiableList(counted));
  }

  /** Whether this summary was computed from exactly these pod objects, in this order, for {@code minMember}. */
  boolean matches(List<Pod> nowListed, int minMember) {
    if (minMember != this.minMember || nowListed.size() != listed.length) {
      return false;
    }
    int i = 0;
    for (Pod p : nowListed) {
      if (p != listed[i++]) {
        return false;
      }
    }
    return true;
  }

  /** As {@link #matches(List, int)}, for a summary of {@code group} (api, namespace and name) only. */
  boolean matches(GroupRef group, List<Pod> nowListed, int minMember) {
    return this.group.equals(group) && matches(nowListed, minMember);
  }

  /** Members that count toward minMember: in the group's API, not gated, not being deleted. */
  int counted() {
    return counted;
  }

  /** Members held by scheduling gates (they do not count). */
  int gated() {
    return gated;
  }

  /** The summed requests of the first minMember counted members by name (cpu, memory, ephemeral-storage, scalars). */
  Map<String, Long> requests() {
    Map<String, Long> out = requests;
    if (out == null) {
      List<Pod> byName = new ArrayList<>(countedPods);
      byName.sort(Comparator.comparing(p -> p.getMetadata().getName()));
      Resource sum = new Resource();
      for (Pod p : byName.subList(0, Math.min(minMember, byName.size()))) {
        sum.add(PodRequests.of(p));
      }
      Map<String, Long> m = new LinkedHashMap<>();
      m.put(Resource.CPU, sum.milliCpu());
      m.put(Resource.MEMORY, sum.memory());
      m.put(Resource.EPHEMERAL_STORAGE, sum.ephemeralStorage());
      m.putAll(sum.scalarResources());
      out = Collections.unmodifiableMap(m);
      requests = out;
    }
    return out;
  }
}
