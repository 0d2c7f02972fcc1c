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
 * summed requests of the first {@code minMember} counted members by name. A group scheduling cycle runs PreFilter
 * for each of its members on an unchanged member list, so the first member's summary serves the rest
 * ({@link #matches}: the same pod objects in the same order, for the same {@code minMember}).
 *
 * <p>Matching is by object identity: the informer's index hands out the objects of its store, and any change to a
 * pod (a new member, a deletion, a lifted gate, a new resourceVersion) replaces its object there, so an identical
 * list is an unchanged one and a changed list only costs a recount. Thread-safe: immutable but for the lazily
 * summed requests (a volatile field; racing threads compute equal maps).
 */
final class MemberSummary {
  // the index's answer this summary was computed from (pods naming the group in either API), by identity
  private final Pod[] listed;
  private final int minMember;
  private final int counted;
  private final int gated;
  // the counted members whose requests PreFilter sums (the first minMember by name)
  private final List<Pod> summed;
  // computed on first use (PreEnqueue never asks); racing threads compute equal maps
  private volatile Map<String, Long> requests;

  private MemberSummary(Pod[] listed, int minMember, int counted, int gated, List<Pod> summed) {
    this.listed = listed;
    this.minMember = minMember;
    this.counted = counted;
    this.gated = gated;
    this.summed = summed;
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
    counted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    return new MemberSummary(listed.toArray(Pod[]::new), group.minMember(), counted.size(), gated,
        List.copyOf(counted.subList(0, Math.min(group.minMember(), counted.size()))));
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
      Resource sum = new Resource();
      for (Pod p : summed) {
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
