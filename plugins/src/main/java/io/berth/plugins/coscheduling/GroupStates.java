package io.berth.plugins.coscheduling;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Coscheduling remembers per group between calls, bounded: where the group's members sit
 * ({@link GroupNodes}), the counts and summed requests of its members ({@link MemberSummary}) and PreFilter's
 * capacity verdict ({@link CapacityVerdict}). At most {@code capacity}
 * groups are kept, the least recently used dropped first (a dropped group is recomputed on its next call, so the
 * bound costs time, never correctness); a group's entry is removed when its PodGroup is deleted or found missing and
 * when the group is complete (Permit allowed it). Thread-safe: guarded by {@code this} (the scheduling thread,
 * binding threads at Permit and the PodGroup informer's thread call it).
 */
final class GroupStates {
  /** The default bound: a few cycles' worth of groups; each entry holds a few small records. */
  static final int DEFAULT_CAPACITY = 64;

  /**
   * PreFilter's capacity verdict for one snapshot version and one requirement: the same for every member of a
   * group cycle, since the cycle's own placed members count as free. Immutable.
   */
  record CapacityVerdict(long version, Map<String, Long> required, List<String> shortfalls) { }

  /** One group's state; its fields are replaced whole. Thread-safe: the memo guards itself, the rest is volatile. */
  static final class State {
    final GroupNodes nodes;
    volatile MemberSummary members;
    volatile CapacityVerdict capacity;

    State(GroupRef group, NodeGroups nodeGroups) {
      this.nodes = new GroupNodes(group, nodeGroups);
    }
  }

  private final int capacity;
  // thread-safe itself; shared by every group's GroupNodes, outlives the groups it counts
  private final NodeGroups nodeGroups = new NodeGroups();
  // guarded by this: group (api and namespace/name) -> state, in access order
  private final LinkedHashMap<GroupRef, State> states;

  GroupStates(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.states = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<GroupRef, State> eldest) {
        return size() > GroupStates.this.capacity;
      }
    };
  }

  /** The state of {@code group}, created when absent (possibly evicting the least recently used group). */
  synchronized State of(GroupRef group) {
    return states.computeIfAbsent(group, k -> new State(group, nodeGroups));
  }

  /** The state of {@code group} if one is kept (creating none, evicting none), else null. */
  synchronized State peek(GroupRef group) {
    return states.get(group);
  }

  /** Forgets {@code group}. */
  synchronized void remove(GroupRef group) {
    states.remove(group);
  }

  synchronized int size() {
    return states.size();
  }

  synchronized boolean contains(GroupRef group) {
    return states.containsKey(group);
  }
}
