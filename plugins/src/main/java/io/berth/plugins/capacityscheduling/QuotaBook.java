package io.berth.plugins.capacityscheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The scheduler's account of every namespace's quota usage: the ElasticQuotas (one per namespace: with several, the
 * one whose name sorts first counts), the pods charged to each namespace (bound or reserved, keyed by UID, so a pod
 * is charged once however often it is reported), and the pods nominated by preemption but not yet placed. Pods are
 * charged in every namespace, so a quota created later starts from its namespace's real usage. Readers of the
 * scheduling cycle take an immutable {@link QuotaSnapshot}, rebuilt only after a change.
 *
 * <p>Thread-safe: every method is guarded by this object's monitor (the scheduling thread, binding threads and the
 * informers' delivery threads call it); {@link #preemptibleNamespaces()} reads a volatile immutable set.
 */
final class QuotaBook {
  /** One namespace's charged pods and their sums. */
  private static final class Usage {
    final Map<String, PodCharge> pods = new HashMap<>();
    final Map<String, Long> used = new HashMap<>();
    final Map<String, Long> labelledPreemptibleUsed = new HashMap<>();
  }

  // guarded by this: namespace -> quota name -> quota
  private final Map<String, TreeMap<String, ElasticQuota>> quotas = new HashMap<>();
  // guarded by this: namespace -> charged pods
  private final Map<String, Usage> usage = new HashMap<>();
  // guarded by this: UID -> the charge of a pod nominated to a node, not yet charged
  private final Map<String, PodCharge> nominated = new LinkedHashMap<>();
  // guarded by this: the snapshot of the current state; null after a change
  private QuotaSnapshot snapshot;
  // bumped on every change; guarded by this
  private long version;
  // namespaces whose quota is labelled preemptible; immutable, replaced under this
  private volatile Set<String> preemptibleNamespaces = Set.of();

  /**
   * An independent book with this one's quotas, charged pods and nominations as they are now: changes to either
   * leave the other as it was (what-if runs charge only their copy).
   */
  synchronized QuotaBook copy() {
    QuotaBook c = new QuotaBook();
    quotas.forEach((ns, byName) -> c.quotas.put(ns, new TreeMap<>(byName)));
    usage.forEach((ns, u) -> {
      Usage copied = new Usage();
      copied.pods.putAll(u.pods);
      copied.used.putAll(u.used);
      copied.labelledPreemptibleUsed.putAll(u.labelledPreemptibleUsed);
      c.usage.put(ns, copied);
    });
    c.nominated.putAll(nominated);
    c.version = version;
    c.snapshot = snapshot;
    c.preemptibleNamespaces = preemptibleNamespaces;
    return c;
  }

  /** Adds or replaces a quota; true when its namespace's effective quota changed. */
  synchronized boolean putQuota(ElasticQuota q) {
    Optional<ElasticQuota> before = effective(q.namespace());
    quotas.computeIfAbsent(q.namespace(), k -> new TreeMap<>()).put(q.name(), q);
    return changedFrom(q.namespace(), before);
  }

  /** Removes a quota; true when its namespace's effective quota changed. */
  synchronized boolean removeQuota(String namespace, String name) {
    Optional<ElasticQuota> before = effective(namespace);
    TreeMap<String, ElasticQuota> byName = quotas.get(namespace);
    if (byName == null || byName.remove(name) == null) {
      return false;
    }
    if (byName.isEmpty()) {
      quotas.remove(namespace);
    }
    return changedFrom(namespace, before);
  }

  private boolean changedFrom(String namespace, Optional<ElasticQuota> before) {
    Optional<ElasticQuota> after = effective(namespace);
    boolean changed = !before.map(ElasticQuota::withoutStatus).equals(after.map(ElasticQuota::withoutStatus));
    if (changed) {
      changed();
    }
    Set<String> preemptible = new HashSet<>();
    quotas.forEach((ns, byName) -> {
      if (byName.firstEntry().getValue().preemptible()) {
        preemptible.add(ns);
      }
    });
    preemptibleNamespaces = Set.copyOf(preemptible);
    return changed;
  }

  /** The quota that governs {@code namespace}, if any. */
  synchronized Optional<ElasticQuota> effective(String namespace) {
    TreeMap<String, ElasticQuota> byName = quotas.get(namespace);
    return byName == null || byName.isEmpty() ? Optional.empty() : Optional.of(byName.firstEntry().getValue());
  }

  /** Every quota that governs a namespace, ordered by namespace. */
  synchronized List<ElasticQuota> effectiveQuotas() {
    List<ElasticQuota> out = new ArrayList<>();
    for (TreeMap<String, ElasticQuota> byName : quotas.values()) {
      out.add(byName.firstEntry().getValue());
    }
    out.sort(Comparator.comparing(ElasticQuota::namespace));
    return out;
  }

  /** Charges a pod to its namespace (and drops its nomination); false when it was already charged. */
  synchronized boolean charge(PodCharge c) {
    nominated.remove(c.uid());
    Usage u = usage.computeIfAbsent(c.namespace(), k -> new Usage());
    if (u.pods.putIfAbsent(c.uid(), c) != null) {
      return false;
    }
    Amounts.addInto(u.used, c.requests(), 1);
    if (c.labelledPreemptible()) {
      Amounts.addInto(u.labelledPreemptibleUsed, c.requests(), 1);
    }
    changed();
    return true;
  }

  /** Releases a pod's charge and its nomination; false when it had no charge. */
  synchronized boolean release(String namespace, String uid) {
    boolean nominationDropped = nominated.remove(uid) != null;
    Usage u = usage.get(namespace);
    PodCharge c = u == null ? null : u.pods.remove(uid);
    if (c == null) {
      if (nominationDropped) {
        changed();
      }
      return false;
    }
    Amounts.addInto(u.used, c.requests(), -1);
    if (c.labelledPreemptible()) {
      Amounts.addInto(u.labelledPreemptibleUsed, c.requests(), -1);
    }
    if (u.pods.isEmpty()) {
      usage.remove(namespace);
    }
    changed();
    return true;
  }

  /** Whether the pod with {@code uid} is charged to {@code namespace}. */
  synchronized boolean isCharged(String namespace, String uid) {
    Usage u = usage.get(namespace);
    return u != null && u.pods.containsKey(uid);
  }

  /** Records a pod nominated to a node; ignored when it is already charged. */
  synchronized void nominate(PodCharge c) {
    if (!isCharged(c.namespace(), c.uid()) && !c.equals(nominated.put(c.uid(), c))) {
      changed();
    }
  }

  /** Drops a pod's nomination. */
  synchronized void unnominate(String uid) {
    if (nominated.remove(uid) != null) {
      changed();
    }
  }

  /** What {@code namespace} uses now, by resource (a copy). */
  synchronized Map<String, Long> used(String namespace) {
    Usage u = usage.get(namespace);
    return u == null ? Map.of() : Map.copyOf(u.used);
  }

  /** Namespaces whose quota is labelled preemptible. Lock-free. */
  Set<String> preemptibleNamespaces() {
    return preemptibleNamespaces;
  }

  /** How many changes the book has seen. */
  synchronized long version() {
    return version;
  }

  /** The current state, immutable; the same instance until the next change. */
  synchronized QuotaSnapshot snapshot() {
    QuotaSnapshot s = snapshot;
    if (s != null) {
      return s;
    }
    Map<String, QuotaSnapshot.View> views = new HashMap<>();
    for (TreeMap<String, ElasticQuota> byName : quotas.values()) {
      ElasticQuota q = byName.firstEntry().getValue();
      Usage u = usage.get(q.namespace());
      Map<String, Long> used = u == null ? Map.of() : u.used;
      Map<String, Long> guaranteed = new HashMap<>();
      if (!q.preemptible() && u != null) {
        guaranteed.putAll(u.used);
        Amounts.addInto(guaranteed, u.labelledPreemptibleUsed, -1);
      }
      views.put(q.namespace(), new QuotaSnapshot.View(q, used, guaranteed));
    }
    s = new QuotaSnapshot(views, List.copyOf(nominated.values()));
    snapshot = s;
    return s;
  }

  private void changed() {
    version++;
    snapshot = null;
  }
}
