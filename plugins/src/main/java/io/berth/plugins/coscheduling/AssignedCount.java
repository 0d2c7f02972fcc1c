package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfoLister;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One count of a group's assigned members, as Permit and PostFilter take it: the members (pods naming the group in
 * its own API) bound to a node of the snapshot, or, when not bound, reserved by the plugin; kept per uid so that
 * "every member but this one" is one lookup. It records what it was taken from: the member index's answer (its pod
 * objects, compared by identity: the informer replaces an object on every change, see {@link MemberSummary}), the
 * snapshot and its {@link NodeInfoLister#version() version} (which changes with the nodes), and the plugin's
 * reserved-set version (bumped after every Reserve, Unreserve and PostBind). {@link #matches} is true only when all
 * of them are unchanged, so a count reused is the count a recount would give: a group cycle's commit, which runs
 * Permit for each of its members in a row, counts the group once instead of once per member (O(members), not
 * O(members²)). Immutable and thread-safe.
 */
final class AssignedCount {
  private final GroupRef group;
  // the index's answer the count was taken from (both APIs' pods naming the group's name), by identity
  private final Pod[] listed;
  private final NodeInfoLister snapshot;
  private final long version;
  private final long reservedVersion;
  // uid (null for a pod without one) -> how many assigned members have it; their sum is total
  private final Map<String, Integer> byUid;
  private final int total;

  private AssignedCount(GroupRef group, Pod[] listed, NodeInfoLister snapshot, long version, long reservedVersion,
      Map<String, Integer> byUid, int total) {
    this.group = group;
    this.listed = listed;
    this.snapshot = snapshot;
    this.version = version;
    this.reservedVersion = reservedVersion;
    this.byUid = byUid;
    this.total = total;
  }

  /**
   * Counts {@code group}'s assigned members among {@code listed} (the member index's answer for its name): a pod of
   * the group's API counts when its {@code spec.nodeName} is a node of {@code snapshot}, or, unbound, when
   * {@code reserved} holds its uid. {@code version} and {@code reservedVersion} are what the caller read before
   * (the reserved-set version before reading {@code reserved}).
   */
  static AssignedCount of(GroupRef group, List<Pod> listed, NodeInfoLister snapshot, long version,
      long reservedVersion, Map<String, String> reserved) {
    Map<String, Integer> byUid = new HashMap<>();
    int total = 0;
    for (Pod p : listed) {
      if (!GroupRef.of(p).map(group::equals).orElse(false)) {
        continue;
      }
      String uid = p.getMetadata().getUid();
      String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
      if (node != null && !node.isEmpty() ? snapshot.get(node).isPresent() : uid != null && reserved.containsKey(uid)) {
        byUid.merge(uid, 1, Integer::sum);
        total++;
      }
    }
    return new AssignedCount(group, listed.toArray(Pod[]::new), snapshot, version, reservedVersion, byUid, total);
  }

  /** Whether a recount from these would be taken from exactly what this count was. */
  boolean matches(GroupRef group, List<Pod> nowListed, NodeInfoLister snapshot, long version, long reservedVersion) {
    if (snapshot != this.snapshot || version != this.version || reservedVersion != this.reservedVersion
        || !group.equals(this.group) || nowListed.size() != listed.length) {
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

  /** The assigned members other than those with uid {@code exceptUid} (null: other than those without a uid). */
  int excluding(String exceptUid) {
    return total - byUid.getOrDefault(exceptUid, 0);
  }
}
