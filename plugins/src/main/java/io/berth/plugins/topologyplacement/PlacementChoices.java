package io.berth.plugins.topologyplacement;

import io.berth.plugins.coscheduling.GroupRef;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The domain chosen for each group while none of its members is placed yet, so that every member of one attempt
 * (the per-pod path, or a group cycle that does not amend the handle's snapshot) is steered to the same domain; and
 * the domains an attempt of the group failed in, which are tried last on the next attempt so that a domain whose
 * estimate was too optimistic does not capture the group forever. Once a member is assumed or bound, its domain
 * decides and the choice is dropped. At most {@link #MAX_GROUPS} groups are remembered (a full map is cleared: a
 * choice is only a hint that PreFilter re-checks). Thread-safe: both maps are concurrent, and each entry is
 * replaced whole (the failed sets are concurrent sets).
 */
final class PlacementChoices {

  static final int MAX_GROUPS = 10_000;

  private final ConcurrentHashMap<GroupRef, String> chosen = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<GroupRef, Set<String>> failed = new ConcurrentHashMap<>();

  Optional<String> chosen(GroupRef group) {
    return Optional.ofNullable(chosen.get(group));
  }

  void choose(GroupRef group, String domain) {
    if (chosen.size() >= MAX_GROUPS) {
      chosen.clear();
    }
    chosen.put(group, domain);
  }

  /** The group's members are placed: their domain decides from now on. */
  void settled(GroupRef group) {
    chosen.remove(group);
    failed.remove(group);
  }

  /** An attempt of the group in its chosen domain failed (a member was unreserved). */
  void attemptFailed(GroupRef group) {
    String domain = chosen.remove(group);
    if (domain != null) {
      if (failed.size() >= MAX_GROUPS) {
        failed.clear();
      }
      failed.computeIfAbsent(group, k -> ConcurrentHashMap.newKeySet()).add(domain);
    }
  }

  Set<String> failed(GroupRef group) {
    Set<String> f = failed.get(group);
    return f == null ? Set.of() : Set.copyOf(f);
  }

  /** Every feasible domain has failed once: start the round again. */
  void forgetFailures(GroupRef group) {
    failed.remove(group);
  }
}
