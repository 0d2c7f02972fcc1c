package io.berth.plugins.capacityscheduling;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The quotas as one scheduling cycle sees them, and the quota arithmetic, as scheduler-plugins' CapacityScheduling
 * (a pod may use its namespace's {@code min} always, and borrow up to {@code max} what other quotas leave of their
 * {@code min}):
 *
 * <ul>
 *   <li>a pod is rejected when its namespace's {@code used} + nominated + request exceeds {@code max} for a
 *       resource the quota limits;
 *   <li>or when that exceeds the namespace's {@code min} — counting only pods that are not preemptible (preemptible
 *       pods run on borrowed capacity only, so for them every amount exceeds {@code min}) — while the quotas'
 *       summed {@code used} (plus the pod's request and the nominations of quotas within their {@code min})
 *       exceeds their summed {@code min}: nobody has anything left to lend.
 * </ul>
 *
 * A resource a quota names in neither {@code min} nor {@code max} is not limited; summed {@code used} and
 * {@code min} count only the quotas that limit the resource. Immutable: {@link #release} returns a new snapshot.
 * Also the preemption dry run's view ({@link #release} of the simulated victims).
 */
final class QuotaSnapshot {

  /**
   * One namespace's quota with what its pods use: {@code used} counts every charged pod, {@code guaranteed} only
   * those that are not preemptible (what {@code min} protects). Immutable.
   */
  record View(ElasticQuota quota, Map<String, Long> used, Map<String, Long> guaranteed) {
    View {
      used = Map.copyOf(used);
      guaranteed = Map.copyOf(guaranteed);
    }

    long min(String r) {
      return Amounts.get(quota.min(), r);
    }

    /** Whether the guaranteed usage exceeds {@code min} for some resource the quota limits: it borrows. */
    boolean borrowing() {
      for (Map.Entry<String, Long> e : guaranteed.entrySet()) {
        if (quota.governs(e.getKey()) && e.getValue() > min(e.getKey())) {
          return true;
        }
      }
      return false;
    }

    /** Whether {@code need} more of guaranteed usage stays within {@code min} for every limited resource. */
    boolean withinMin(Map<String, Long> need) {
      for (Map.Entry<String, Long> e : need.entrySet()) {
        String r = e.getKey();
        if (e.getValue() > 0 && quota.governs(r) && Amounts.get(guaranteed, r) + e.getValue() > min(r)) {
          return false;
        }
      }
      return true;
    }
  }

  private final Map<String, View> views;
  private final List<PodCharge> nominated;
  // per resource: the summed min and used of the quotas that limit it
  private final Map<String, Long> sumMin = new HashMap<>();
  private final Map<String, Long> sumUsed = new HashMap<>();

  QuotaSnapshot(Map<String, View> views, List<PodCharge> nominated) {
    this.views = Map.copyOf(views);
    this.nominated = List.copyOf(nominated);
    for (View v : this.views.values()) {
      for (String r : limited(v.quota())) {
        sumMin.merge(r, v.min(r), Long::sum);
        sumUsed.merge(r, Amounts.get(v.used(), r), Long::sum);
      }
    }
  }

  private static TreeSet<String> limited(ElasticQuota q) {
    TreeSet<String> out = new TreeSet<>(q.min().keySet());
    out.addAll(q.max().keySet());
    return out;
  }

  /** The quota of {@code namespace} and its usage; empty when the namespace has none (it is unbounded). */
  Optional<View> view(String namespace) {
    return Optional.ofNullable(views.get(namespace));
  }

  Map<String, View> views() {
    return views;
  }

  long sumMin(String resource) {
    return Amounts.get(sumMin, resource);
  }

  long sumUsed(String resource) {
    return Amounts.get(sumUsed, resource);
  }

  /** Pods nominated to a node and not yet charged. */
  List<PodCharge> nominated() {
    return nominated;
  }

  /** Whether a pod of {@code namespace} is preemptible: labelled so, or its namespace's quota is. */
  boolean preemptible(String namespace, boolean labelled) {
    View v = views.get(namespace);
    return labelled || (v != null && v.quota().preemptible());
  }

  /** This snapshot with {@code charges} taken away (the victims of a simulated preemption). */
  QuotaSnapshot release(List<PodCharge> charges) {
    if (charges.isEmpty()) {
      return this;
    }
    Map<String, Map<String, Long>> used = new HashMap<>();
    Map<String, Map<String, Long>> guaranteed = new HashMap<>();
    for (PodCharge c : charges) {
      View v = views.get(c.namespace());
      if (v == null) {
        continue;
      }
      Amounts.addInto(used.computeIfAbsent(c.namespace(), k -> new HashMap<>(v.used())), c.requests(), -1);
      if (!preemptible(c.namespace(), c.labelledPreemptible())) {
        Amounts.addInto(guaranteed.computeIfAbsent(c.namespace(), k -> new HashMap<>(v.guaranteed())),
            c.requests(), -1);
      }
    }
    Map<String, View> next = new HashMap<>(views);
    used.forEach((ns, u) -> {
      View v = views.get(ns);
      next.put(ns, new View(v.quota(), u, guaranteed.getOrDefault(ns, v.guaranteed())));
    });
    guaranteed.forEach((ns, g) -> {
      if (!used.containsKey(ns)) {
        View v = views.get(ns);
        next.put(ns, new View(v.quota(), v.used(), g));
      }
    });
    return new QuotaSnapshot(next, nominated);
  }

  /**
   * What a pod of {@code namespace} asks of its quota in this cycle: its {@code demand} (its requests, or its
   * gang's) plus the requests of the nominated pods of its namespace with at least its priority (other than
   * itself); and, for the summed check, the nominated pods of other quotas still within their {@code min}.
   */
  Demand demand(String namespace, String uid, int priority, Map<String, Long> request) {
    Map<String, Long> own = new HashMap<>(request);
    Map<String, Long> others = new HashMap<>();
    for (PodCharge n : nominated) {
      if (n.uid().equals(uid)) {
        continue;
      }
      if (n.namespace().equals(namespace)) {
        if (n.priority() >= priority) {
          Amounts.addInto(own, n.requests(), 1);
        }
      } else {
        View v = views.get(n.namespace());
        if (v != null && !v.borrowing()) {
          Amounts.addInto(others, n.requests(), 1);
        }
      }
    }
    return new Demand(own, others);
  }

  /**
   * A pod's demand on the quotas: {@code own} on its namespace's quota (requests and higher-priority nominations),
   * {@code othersNominated} the other quotas' nominations that count toward the summed {@code used}. Immutable.
   */
  record Demand(Map<String, Long> own, Map<String, Long> othersNominated) {
    Demand {
      own = Map.copyOf(own);
      othersNominated = Map.copyOf(othersNominated);
    }
  }

  /**
   * Why a pod of {@code namespace} with {@code demand} may not run now, naming the quota, the resource and
   * used/min/max; empty when it may (or the namespace has no quota). {@code preemptible}: the pod runs on borrowed
   * capacity only.
   */
  Optional<String> rejection(String namespace, Demand demand, boolean preemptible) {
    View v = views.get(namespace);
    if (v == null) {
      return Optional.empty();
    }
    ElasticQuota q = v.quota();
    List<String> over = new ArrayList<>();
    for (String r : new TreeSet<>(demand.own().keySet())) {
      long need = demand.own().get(r);
      if (need <= 0 || !q.max().containsKey(r)) {
        continue;
      }
      long used = Amounts.get(v.used(), r);
      if (used + need > q.max().get(r)) {
        over.add(r + ": used " + Amounts.format(r, used) + " + requested " + Amounts.format(r, need)
            + " exceeds max " + Amounts.format(r, q.max().get(r)) + " (min " + Amounts.format(r, v.min(r)) + ")");
      }
    }
    if (!over.isEmpty()) {
      return Optional.of("ElasticQuota \"" + q.key() + "\" is at its max: " + String.join("; ", over));
    }
    boolean borrowedOnly = preemptible || q.preemptible();
    List<String> cannotLend = new ArrayList<>();
    for (String r : new TreeSet<>(demand.own().keySet())) {
      long need = demand.own().get(r);
      if (need <= 0 || !q.governs(r)) {
        continue;
      }
      long guaranteed = Amounts.get(v.guaranteed(), r);
      if (!borrowedOnly && guaranteed + need <= v.min(r)) {
        continue;
      }
      long total = sumUsed(r) + need + Amounts.get(demand.othersNominated(), r);
      if (total > sumMin(r)) {
        cannotLend.add(r + ": used " + Amounts.format(r, Amounts.get(v.used(), r)) + " + requested "
            + Amounts.format(r, need) + (borrowedOnly ? " (preemptible: borrowed capacity only)" : " exceeds min "
            + Amounts.format(r, v.min(r))) + " (max " + (q.max().containsKey(r) ? Amounts.format(r, q.max().get(r))
            : "unlimited") + "), and all quotas use " + Amounts.format(r, sumUsed(r)) + " of their summed min "
            + Amounts.format(r, sumMin(r)));
      }
    }
    if (!cannotLend.isEmpty()) {
      return Optional.of("ElasticQuota \"" + q.key() + "\" cannot borrow, no quota has unused min to lend: "
          + String.join("; ", cannotLend));
    }
    return Optional.empty();
  }
}
