package io.berth.plugins.capacityscheduling;

import io.berth.framework.CycleState;
import io.berth.framework.PluginMetrics;
import io.berth.framework.Status;
import io.berth.plugins.defaultpreemption.VictimPolicy;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reclaim, as scheduler-plugins' CapacityScheduling, with preemptible capacity:
 *
 * <ul>
 *   <li>a pod within its namespace's {@code min} may evict pods of other namespaces that borrow (guaranteed usage
 *       above their {@code min}), whatever their priority, and preemptible pods of any quota'd namespace, its own
 *       included — but never so many non-preemptible pods of a namespace that it drops below its {@code min};
 *   <li>a pod above its {@code min} (or preemptible) may evict only lower-priority pods of its own namespace;
 *   <li>a pod of a namespace without a quota may evict only lower-priority pods of namespaces without one;
 *   <li>preemptible pods are given up first, then lower priority before higher; among nodes, fewer
 *       non-preemptible victims win right after PodDisruptionBudgets;
 *   <li>the preemptor must pass its quota check with the victims gone.
 * </ul>
 *
 * Counts {@code berth_quota_reclaims_total{namespace}} (per preemption, the preemptor's namespace) and
 * {@code berth_quota_reclaimed_pods_total{namespace}} (per victim, its namespace). Thread-safe: reads the cycle's
 * immutable {@link CycleQuota} and the book's lock-free set of preemptible namespaces.
 */
final class QuotaVictimPolicy implements VictimPolicy {
  static final String RECLAIMS = "berth_quota_reclaims";
  static final String RECLAIMED_PODS = "berth_quota_reclaimed_pods";

  private final QuotaBook book;
  private final PluginMetrics metrics;

  QuotaVictimPolicy(QuotaBook book, PluginMetrics metrics) {
    this.book = book;
    this.metrics = metrics;
  }

  private static Optional<CycleQuota> cycle(CycleState state) {
    return state.read(CycleQuota.KEY, CycleQuota.class);
  }

  private boolean preemptible(Pod pod) {
    return PodCharge.labelledPreemptible(pod) || book.preemptibleNamespaces().contains(pod.getMetadata()
        .getNamespace());
  }

  @Override
  public boolean eligible(CycleState state, Pod preemptor, Pod pod) {
    Optional<CycleQuota> c = cycle(state);
    boolean lower = PrioritySort.podPriority(pod) < PrioritySort.podPriority(preemptor);
    if (c.isEmpty()) {
      return lower;
    }
    QuotaSnapshot s = c.get().snapshot();
    String ns = preemptor.getMetadata().getNamespace();
    String victimNs = pod.getMetadata().getNamespace();
    Optional<QuotaSnapshot.View> own = s.view(ns);
    Optional<QuotaSnapshot.View> theirs = s.view(victimNs);
    if (own.isEmpty()) {
      return theirs.isEmpty() && lower;
    }
    if (theirs.isEmpty()) {
      return false;
    }
    if (!c.get().withinMin()) {
      return victimNs.equals(ns) && lower;
    }
    if (s.preemptible(victimNs, PodCharge.labelledPreemptible(pod))) {
      return true;
    }
    return !victimNs.equals(ns) && theirs.get().borrowing();
  }

  @Override
  public Comparator<Pod> importance(Comparator<Pod> byPriority) {
    return Comparator.<Pod>comparingInt(p -> preemptible(p) ? 1 : 0).thenComparing(byPriority);
  }

  @Override
  public Status admits(CycleState state, Pod preemptor, List<Pod> removed) {
    Optional<CycleQuota> c = cycle(state);
    if (c.isEmpty() || c.get().demand().isEmpty()) {
      return Status.SUCCESS;
    }
    QuotaSnapshot s = c.get().snapshot();
    List<PodCharge> charges = new ArrayList<>(removed.size());
    for (Pod p : removed) {
      if (s.view(p.getMetadata().getNamespace()).isPresent()) {
        charges.add(PodCharge.of(p));
      }
    }
    return s.release(charges).rejection(preemptor.getMetadata().getNamespace(), c.get().demand().get(),
        c.get().preemptible()).map(Status::unschedulable).orElse(Status.SUCCESS);
  }

  @Override
  public Status acceptVictims(CycleState state, Pod preemptor, List<Pod> victims) {
    Optional<CycleQuota> c = cycle(state);
    if (c.isEmpty()) {
      return Status.SUCCESS;
    }
    QuotaSnapshot s = c.get().snapshot();
    String ns = preemptor.getMetadata().getNamespace();
    Map<String, Map<String, Long>> taken = new TreeMap<>();
    for (Pod v : victims) {
      String victimNs = v.getMetadata().getNamespace();
      if (!victimNs.equals(ns) && !s.preemptible(victimNs, PodCharge.labelledPreemptible(v))) {
        Amounts.addInto(taken.computeIfAbsent(victimNs, k -> new HashMap<>()), Amounts.requestsOf(v), 1);
      }
    }
    for (Map.Entry<String, Map<String, Long>> e : taken.entrySet()) {
      Optional<QuotaSnapshot.View> view = s.view(e.getKey());
      if (view.isEmpty()) {
        continue;
      }
      for (Map.Entry<String, Long> r : new TreeMap<>(e.getValue()).entrySet()) {
        String res = r.getKey();
        if (!view.get().quota().min().containsKey(res)) {
          continue;
        }
        long left = Amounts.get(view.get().guaranteed(), res) - r.getValue();
        if (left < view.get().min(res)) {
          return Status.unschedulable("reclaim would take ElasticQuota \"" + view.get().quota().key()
              + "\" below its min for " + res + " (" + Amounts.format(res, left) + " < "
              + Amounts.format(res, view.get().min(res)) + ")");
        }
      }
    }
    return Status.SUCCESS;
  }

  @Override
  public long victimsCost(List<Pod> victims) {
    long n = 0;
    for (Pod v : victims) {
      n += preemptible(v) ? 0 : 1;
    }
    return n;
  }

  @Override
  public void preempting(Pod preemptor, String nodeName, List<Pod> victims) {
    metrics.increment(RECLAIMS, "Preemptions made by CapacityScheduling, by the preemptor's namespace.",
        Map.of("namespace", preemptor.getMetadata().getNamespace()), 1);
    Map<String, Integer> byNs = new TreeMap<>();
    for (Pod v : victims) {
      byNs.merge(v.getMetadata().getNamespace(), 1, Integer::sum);
    }
    byNs.forEach((victimNs, n) -> metrics.increment(RECLAIMED_PODS,
        "Pods evicted by CapacityScheduling's preemption, by their namespace.", Map.of("namespace", victimNs), n));
  }
}
