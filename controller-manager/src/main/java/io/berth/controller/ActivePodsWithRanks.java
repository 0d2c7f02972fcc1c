package io.berth.controller;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The order in which a workload controller gives up pods when scaling down (upstream's
 * {@code controller.ActivePodsWithRanks}, with the {@code PodDeletionCost} and {@code LogarithmicScaleDown} features
 * on, as they are in 1.32). Pods preferred for deletion come first; each rule applies only when all earlier ones tie:
 * <ol>
 *   <li>unassigned before assigned (only when exactly one of the two has no node);
 *   <li>phase Pending before Unknown before Running (any other phase counts as Pending);
 *   <li>not ready before ready;
 *   <li>lower {@code controller.kubernetes.io/pod-deletion-cost} before higher (invalid or missing counts as 0);
 *   <li>higher rank before lower (the rank is the number of active related pods on the pod's node: doubled-up pods
 *       go first);
 *   <li>when both are ready with different ready times: the more recently ready first, compared on a logarithmic
 *       scale of their age ({@code floor(log2(now - readyTime))} in nanoseconds), ties within one bucket broken by
 *       UID (a pseudo-random but stable order); a missing time counts as the most recent;
 *   <li>more container restarts (the highest count of any container) first, compared exactly;
 *   <li>newer creationTimestamp first, on the same logarithmic scale and with the same UID tie-break.
 * </ol>
 * The logarithmic buckets make pods of similar age interchangeable, so repeated scale-downs spread deletions instead
 * of always picking the very newest pods. Because the bucketing can make the order non-transitive across rules, pods
 * are sorted with a merge sort that, unlike {@link java.util.List#sort}, never rejects an inconsistent comparison
 * (Go's {@code sort.Sort} does not either). Stateless; thread-safe.
 */
public final class ActivePodsWithRanks {

  /** The annotation that lets users say which pods to delete first ({@code PodDeletionCost}). */
  public static final String POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost";

  /** A pod with its rank; the rank counts active related pods on the same node. Immutable. */
  public record RankedPod(Pod pod, int rank) {
    public RankedPod {
      Objects.requireNonNull(pod, "pod");
    }
  }

  private ActivePodsWithRanks() {
  }

  /**
   * Ranks {@code podsToRank} by the number of active pods of {@code relatedPods} on the same node
   * ({@code getPodsRankedByRelatedPodsOnSameNode}); unassigned pods share the empty node name.
   */
  public static List<RankedPod> rankByRelatedPodsOnSameNode(List<Pod> podsToRank, List<Pod> relatedPods) {
    Map<String, Integer> podsOnNode = new HashMap<>();
    for (Pod pod : relatedPods) {
      if (Pods.isActive(pod)) {
        podsOnNode.merge(Pods.nodeName(pod), 1, Integer::sum);
      }
    }
    List<RankedPod> ranked = new ArrayList<>(podsToRank.size());
    for (Pod pod : podsToRank) {
      ranked.add(new RankedPod(pod, podsOnNode.getOrDefault(Pods.nodeName(pod), 0)));
    }
    return ranked;
  }

  /** {@code pods} ordered for deletion at {@code now}, preferred victims first; the input is not modified. */
  public static List<Pod> sortForDeletion(List<RankedPod> pods, Instant now) {
    RankedPod[] items = pods.toArray(new RankedPod[0]);
    mergeSort(items, new RankedPod[items.length], 0, items.length, now);
    List<Pod> result = new ArrayList<>(items.length);
    for (RankedPod p : items) {
      result.add(p.pod());
    }
    return result;
  }

  /** Whether {@code a} should be deleted before {@code b} at {@code now} (upstream's {@code Less}). */
  public static boolean less(RankedPod a, RankedPod b, Instant now) {
    Pod pi = a.pod();
    Pod pj = b.pod();
    // 1. Unassigned < assigned.
    String ni = Pods.nodeName(pi);
    String nj = Pods.nodeName(pj);
    if (!ni.equals(nj) && (ni.isEmpty() || nj.isEmpty())) {
      return ni.isEmpty();
    }
    // 2. Pending < Unknown < Running.
    int oi = phaseOrdinal(pi);
    int oj = phaseOrdinal(pj);
    if (oi != oj) {
      return oi < oj;
    }
    // 3. Not ready < ready.
    boolean ri = Pods.isReady(pi);
    boolean rj = Pods.isReady(pj);
    if (ri != rj) {
      return !ri;
    }
    // 4. Lower pod-deletion-cost < higher.
    int ci = deletionCost(pi);
    int cj = deletionCost(pj);
    if (ci != cj) {
      return ci < cj;
    }
    // 5. Doubled up (higher rank) < not doubled up.
    if (a.rank() != b.rank()) {
      return a.rank() > b.rank();
    }
    // 6. Ready for less time < more time, on a logarithmic scale.
    if (ri && rj) {
      Optional<Instant> ti = Pods.readyTime(pi);
      Optional<Instant> tj = Pods.readyTime(pj);
      if (!ti.equals(tj)) {
        return newerOnLogScale(pi, ti, pj, tj, now);
      }
    }
    // 7. More restarts < fewer restarts.
    int rsi = Pods.maxContainerRestarts(pi);
    int rsj = Pods.maxContainerRestarts(pj);
    if (rsi != rsj) {
      return rsi > rsj;
    }
    // 8. Newer < older, on a logarithmic scale.
    Optional<Instant> ci2 = Pods.creationTime(pi);
    Optional<Instant> cj2 = Pods.creationTime(pj);
    if (!ci2.equals(cj2)) {
      return newerOnLogScale(pi, ci2, pj, cj2, now);
    }
    return false;
  }

  private static boolean newerOnLogScale(Pod pi, Optional<Instant> ti, Pod pj, Optional<Instant> tj, Instant now) {
    if (now == null || ti.isEmpty() || tj.isEmpty()) {
      return afterOrZero(ti, tj);
    }
    long rankDiff = logarithmicRankDiff(ti.get(), tj.get(), now);
    if (rankDiff == 0) {
      return uid(pi).compareTo(uid(pj)) < 0;
    }
    return rankDiff < 0;
  }

  /** Whether {@code t1} is after {@code t2}, a missing time counting as after any present one. */
  private static boolean afterOrZero(Optional<Instant> t1, Optional<Instant> t2) {
    if (t1.isEmpty() || t2.isEmpty()) {
      return t1.isEmpty();
    }
    return t1.get().isAfter(t2.get());
  }

  /**
   * The difference of the two times' buckets, a bucket being {@code floor(log2(age in ns))} and -1 for a time not
   * in the past. {@link Math#getExponent(double)} of the age converted to a double is that floor, as Go's
   * {@code int64(math.Log2(float64(d)))} computes it.
   */
  static long logarithmicRankDiff(Instant t1, Instant t2, Instant now) {
    return bucket(Duration.between(t1, now)) - bucket(Duration.between(t2, now));
  }

  private static long bucket(Duration age) {
    long nanos = saturatedNanos(age);
    return nanos > 0 ? Math.getExponent((double) nanos) : -1;
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * The pod's deletion cost from {@link #POD_DELETION_COST_ANNOTATION}: a 32-bit decimal integer without a plus sign
   * or leading zeros; anything else (or no annotation) is 0.
   */
  public static int deletionCost(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(POD_DELETION_COST_ANNOTATION);
    if (value == null || !validFirstDigit(value)) {
      return 0;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean validFirstDigit(String s) {
    if (s.isEmpty()) {
      return false;
    }
    char c = s.charAt(0);
    return c == '-' || (c == '0' && s.equals("0")) || (c >= '1' && c <= '9');
  }

  private static int phaseOrdinal(Pod pod) {
    return switch (Pods.phase(pod)) {
      case Pods.PHASE_UNKNOWN -> 1;
      case Pods.PHASE_RUNNING -> 2;
      default -> 0;
    };
  }

  private static String uid(Pod pod) {
    String uid = pod.getMetadata().getUid();
    return uid == null ? "" : uid;
  }

  /** Top-down merge sort of {@code a[from, to)} by {@link #less}; stable and total whatever the comparisons say. */
  private static void mergeSort(RankedPod[] a, RankedPod[] tmp, int from, int to, Instant now) {
    if (to - from < 2) {
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(a, tmp, from, mid, now);
    mergeSort(a, tmp, mid, to, now);
    int i = from;
    int j = mid;
    int k = from;
    while (i < mid && j < to) {
      // take from the right only when it is strictly preferred: keeps equal pods in input order
      tmp[k++] = less(a[j], a[i], now) ? a[j++] : a[i++];
    }
    while (i < mid) {
      tmp[k++] = a[i++];
    }
    while (j < to) {
      tmp[k++] = a[j++];
    }
    System.arraycopy(tmp, from, a, from, to - from);
  }
}
