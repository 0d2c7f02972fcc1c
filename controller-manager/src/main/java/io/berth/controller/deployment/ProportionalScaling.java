package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Scaling events: a Deployment whose replicas changed while it is paused or in the middle of a rollout
 * (upstream {@code sync.go} scale() and isScalingEvent(), and deploymentutil's FindActiveOrLatest,
 * GetProportion, getReplicaSetFraction and the replicas annotations).
 *
 * <p>Each ReplicaSet remembers the Deployment size it was last scaled for in two annotations,
 * {@value #DESIRED_REPLICAS_ANNOTATION} (replicas) and {@value #MAX_REPLICAS_ANNOTATION} (replicas + maxSurge).
 * A desired-replicas annotation that differs from the Deployment's replicas is a scaling event; the
 * max-replicas annotation gives each ReplicaSet's share of the old size, used to spread the change.
 *
 * <p>Stateless and thread-safe; returns plans, never writes, never mutates its arguments.
 */
public final class ProportionalScaling {

  public static final String DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
  public static final String MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";

  private ProportionalScaling() {
  }

  public static Optional<Integer> desiredReplicasAnnotation(ReplicaSet rs) {
    return intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
  }

  public static Optional<Integer> maxReplicasAnnotation(ReplicaSet rs) {
    return intAnnotation(rs, MAX_REPLICAS_ANNOTATION);
  }

  /** The annotation as an int32; absent or unparsable reads as absent (upstream getIntFromAnnotation). */
  private static Optional<Integer> intAnnotation(ReplicaSet rs, String key) {
    Map<String, String> annotations = rs.getMetadata() == null ? null : rs.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(key);
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Integer.parseInt(value));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether either annotation differs from the given values (upstream ReplicasAnnotationsNeedUpdate). */
  public static boolean replicasAnnotationsNeedUpdate(ReplicaSet rs, int desiredReplicas, int maxReplicas) {
    Map<String, String> annotations = rs.getMetadata() == null ? null : rs.getMetadata().getAnnotations();
    if (annotations == null) {
      return true;
    }
    return !Integer.toString(desiredReplicas).equals(annotations.get(DESIRED_REPLICAS_ANNOTATION))
        || !Integer.toString(maxReplicas).equals(annotations.get(MAX_REPLICAS_ANNOTATION));
  }

  /** A new map: {@code annotations} (may be null) with both replicas annotations set (SetReplicasAnnotations). */
  public static Map<String, String> withReplicasAnnotations(Map<String, String> annotations, int desiredReplicas,
                                int maxReplicas) {
    Map<String, String> copy = annotations == null ? new LinkedHashMap<>() : new LinkedHashMap<>(annotations);
    copy.put(DESIRED_REPLICAS_ANNOTATION, Integer.toString(desiredReplicas));
    copy.put(MAX_REPLICAS_ANNOTATION, Integer.toString(maxReplicas));
    return copy;
  }

  /**
   * Whether the Deployment was scaled since its active ReplicaSets were last sized: some active ReplicaSet
   * carries a desired-replicas annotation different from replicas (upstream isScalingEvent). ReplicaSets
   * without the annotation are ignored.
   *
   * @param allRSs the new and all old ReplicaSets of the Deployment
   */
  public static boolean isScalingEvent(Deployment d, List<ReplicaSet> allRSs) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    for (ReplicaSet rs : ReplicaSetUtil.filterActive(allRSs)) {
      Optional<Integer> desired = desiredReplicasAnnotation(rs);
      if (desired.isPresent() && desired.get() != replicas) {
        return true;
      }
    }
    return false;
  }

  /**
   * The only active ReplicaSet, or the newest one when none is active; empty when several are active and
   * the change must be spread proportionally (upstream FindActiveOrLatest). With no active ReplicaSet the
   * new one wins, else the most recently created old one.
   */
  public static Optional<ReplicaSet> findActiveOrLatest(Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs) {
    if (newRS.isEmpty() && oldRSs.isEmpty()) {
      return Optional.empty();
    }
    List<ReplicaSet> newestFirst =
        ReplicaSetUtil.sorted(oldRSs, ReplicaSetUtil.BY_CREATION_TIMESTAMP.reversed());
    List<ReplicaSet> all = new ArrayList<>(newestFirst);
    newRS.ifPresent(all::add);
    List<ReplicaSet> active = ReplicaSetUtil.filterActive(all);
    return switch (active.size()) {
      case 0 -> newRS.isPresent() ? newRS : Optional.of(newestFirst.get(0));
      case 1 -> Optional.of(active.get(0));
      default -> Optional.empty();
    };
  }

  /**
   * The change in size this ReplicaSet would get if the Deployment's pods were re-spread in the proportions
   * recorded by the max-replicas annotations (upstream getReplicaSetFraction).
   *
   * <p>Scaling to zero: the whole ReplicaSet ({@code -size}). Otherwise the ReplicaSet's share of the old
   * ceiling applied to the new one: {@code round(size * (replicas + maxSurge) / maxReplicasAnnotation) - size},
   * rounding half away from zero like Go's math.Round. Without the annotation the Deployment's
   * {@code status.replicas} stands in for the old ceiling. A zero old ceiling (nothing to take a share of)
   * gives 0, where upstream would divide by zero.
   */
  public static int replicaSetFraction(ReplicaSet rs, Deployment d) {
    int size = ReplicaSetUtil.specReplicas(rs);
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    if (replicas == 0) {
      return -size;
    }
    long deploymentReplicas = (long) replicas + RollingUpdateMath.maxSurge(d);
    int annotated = maxReplicasAnnotation(rs).orElseGet(() ->
        d.getStatus() == null ? 0 : ReplicaSetUtil.orZero(d.getStatus().getReplicas()));
    if (annotated == 0) {
      return 0;
    }
    double newSize = (double) (size * deploymentReplicas) / annotated;
    return (int) roundHalfAwayFromZero(newSize) - size;
  }

  private static long roundHalfAwayFromZero(double x) {
    return x < 0 ? -Math.round(-x) : Math.round(x);
  }

  /**
   * How many replicas this ReplicaSet gains (or loses, negative) while {@code toAdd} are being spread and
   * {@code added} of them are already given out (upstream GetProportion): its fraction, clamped so the total
   * never overshoots {@code toAdd}. Empty or zero-sized ReplicaSets get nothing.
   */
  public static int proportion(Optional<ReplicaSet> rs, Deployment d, int toAdd, int added) {
    if (rs.isEmpty() || ReplicaSetUtil.specReplicas(rs.get()) == 0 || toAdd == 0 || toAdd == added) {
      return 0;
    }
    int fraction = replicaSetFraction(rs.get(), d);
    int allowed = toAdd - added;
    return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
  }

  /**
   * The writes of one scale() pass (upstream DeploymentController.scale), in the order upstream issues them.
   *
   * <ol>
   *   <li>At most one active ReplicaSet (or none): it (or the newest) takes replicas outright.</li>
   *   <li>The new ReplicaSet is saturated: every active old ReplicaSet goes to 0.</li>
   *   <li>RollingUpdate with several active ReplicaSets: the difference between the new ceiling
   *   ({@code replicas + maxSurge}, or 0 when scaling to 0) and the current sum of sizes is spread over the
   *   active ReplicaSets by {@link #proportion}, visiting the largest first (newer first among equals when
   *   growing, older first when shrinking). Rounding leftovers go to the first visited, i.e. the largest,
   *   never below 0. Every active ReplicaSet whose size or replicas annotations change gets a step.</li>
   *   <li>Recreate with several active ReplicaSets: nothing (the rollout itself scales them).</li>
   * </ol>
   */
  public static List<ReplicaSetScale> scale(Deployment d, Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    Optional<ReplicaSet> activeOrLatest = findActiveOrLatest(newRS, oldRSs);
    if (activeOrLatest.isPresent()) {
      ReplicaSet rs = activeOrLatest.get();
      return ReplicaSetUtil.specReplicas(rs) == replicas
          ? List.of() : List.of(ReplicaSetScale.to(rs, replicas));
    }

    if (RollingUpdateMath.isSaturated(d, newRS)) {
      List<ReplicaSetScale> steps = new ArrayList<>();
      for (ReplicaSet old : ReplicaSetUtil.filterActive(oldRSs)) {
        steps.add(ReplicaSetScale.to(old, 0));
      }
      return steps;
    }

    if (!RollingUpdateMath.isRollingUpdate(d)) {
      return List.of();
    }

    List<ReplicaSet> candidates = new ArrayList<>(oldRSs);
    newRS.ifPresent(candidates::add);
    List<ReplicaSet> active = ReplicaSetUtil.filterActive(candidates);
    int allRSsReplicas = ReplicaSetUtil.replicaCount(active);
    int allowedSize = replicas > 0 ? replicas + RollingUpdateMath.maxSurge(d) : 0;
    int toAdd = allowedSize - allRSsReplicas;

    String operation = "";
    if (toAdd > 0) {
      active.sort(ReplicaSetUtil.BY_SIZE_NEWER);
      operation = "up";
    } else if (toAdd < 0) {
      active.sort(ReplicaSetUtil.BY_SIZE_OLDER);
      operation = "down";
    }

    Map<ReplicaSet, Integer> sizes = new IdentityHashMap<>();
    int added = 0;
    for (ReplicaSet rs : active) {
      if (toAdd != 0) {
        int proportion = proportion(Optional.of(rs), d, toAdd, added);
        sizes.put(rs, ReplicaSetUtil.specReplicas(rs) + proportion);
        added += proportion;
      } else {
        sizes.put(rs, ReplicaSetUtil.specReplicas(rs));
      }
    }

    int desired = replicas;
    int max = replicas + RollingUpdateMath.maxSurge(d);
    List<ReplicaSetScale> steps = new ArrayList<>();
    for (int i = 0; i < active.size(); i++) {
      ReplicaSet rs = active.get(i);
      int size = sizes.get(rs);
      if (i == 0 && toAdd != 0) {
        size = Math.max(0, size + (toAdd - added));
      }
      // upstream scaleReplicaSet: write when the size or the replicas annotations change.
      if (size != ReplicaSetUtil.specReplicas(rs) || replicasAnnotationsNeedUpdate(rs, desired, max)) {
        steps.add(new ReplicaSetScale(rs, size, operation));
      }
    }
    return steps;
  }
}
