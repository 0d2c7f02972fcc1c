package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The arithmetic of a RollingUpdate rollout: fenceposts (maxSurge/maxUnavailable), how far the new ReplicaSet
 * may grow, and which old ReplicaSets shrink by how much (upstream {@code deploymentutil.ResolveFenceposts},
 * {@code MaxSurge}, {@code MaxUnavailable}, {@code NewRSNewReplicas}, {@code IsSaturated} and
 * {@code rolling.go}'s reconcileNewReplicaSet / reconcileOldReplicaSets / cleanupUnhealthyReplicas /
 * scaleDownOldReplicaSetsForRollingUpdate).
 *
 * <p>Stateless and thread-safe; returns plans ({@link ReplicaSetScale}) instead of writing. Expects the
 * Deployment as the API server stores it (see {@link DeploymentDefaults}); absent fields are read with the
 * Go zero value upstream would see.
 */
public final class RollingUpdateMath {

  public static final String STRATEGY_ROLLING_UPDATE = "RollingUpdate";
  public static final String STRATEGY_RECREATE = "Recreate";
  static final String MAX_SURGE_FIELD = "spec.strategy.rollingUpdate.maxSurge";
  static final String MAX_UNAVAILABLE_FIELD = "spec.strategy.rollingUpdate.maxUnavailable";

  private RollingUpdateMath() {
  }

  /** The two resolved fenceposts of a rolling update, in pods. */
  public record Fenceposts(int maxSurge, int maxUnavailable) {
  }

  /**
   * Resolves maxSurge (percentages round up) and maxUnavailable (percentages round down) against
   * {@code desired}; absent values count as 0.
   *
   * <p>Both resolving to zero is possible even though validation forbids writing both as zero: 10% of 3
   * replicas rounds down to 0 unavailable. Upstream then allows one unavailable pod, so a rollout can still
   * proceed when surge pods cannot be created (e.g. quota): 0/0 becomes 0/1.
   *
   * @throws IllegalArgumentException naming the field when a value does not parse
   */
  public static Fenceposts resolveFenceposts(IntOrString maxSurge, IntOrString maxUnavailable, int desired) {
    IntOrString zero = new IntOrString(0);
    int surge = IntOrPercent.scaledValue(IntOrPercent.valueOrDefault(maxSurge, zero), desired, true,
        MAX_SURGE_FIELD);
    int unavailable = IntOrPercent.scaledValue(IntOrPercent.valueOrDefault(maxUnavailable, zero), desired,
        false, MAX_UNAVAILABLE_FIELD);
    if (surge == 0 && unavailable == 0) {
      unavailable = 1;
    }
    return new Fenceposts(surge, unavailable);
  }

  public static boolean isRollingUpdate(Deployment d) {
    return STRATEGY_ROLLING_UPDATE.equals(strategyType(d));
  }

  public static boolean isRecreate(Deployment d) {
    return STRATEGY_RECREATE.equals(strategyType(d));
  }

  static String strategyType(Deployment d) {
    DeploymentStrategy s = d.getSpec() == null ? null : d.getSpec().getStrategy();
    return s == null || s.getType() == null ? "" : s.getType();
  }

  static Optional<RollingUpdateDeployment> rollingUpdate(Deployment d) {
    DeploymentStrategy s = d.getSpec() == null ? null : d.getSpec().getStrategy();
    return Optional.ofNullable(s == null ? null : s.getRollingUpdate());
  }

  /**
   * Pods the rollout may have unavailable: 0 unless RollingUpdate with replicas above 0, and never more than
   * replicas. A value that does not parse yields 0, as upstream (validation is expected to have caught it).
   */
  public static int maxUnavailable(Deployment d) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    if (!isRollingUpdate(d) || replicas == 0) {
      return 0;
    }
    int unavailable;
    try {
      unavailable = fenceposts(d).maxUnavailable();
    } catch (IllegalArgumentException e) {
      return 0;
    }
    return Math.min(unavailable, replicas);
  }

  /** Pods the rollout may run above replicas: 0 unless RollingUpdate; unparsable values yield 0 as upstream. */
  public static int maxSurge(Deployment d) {
    if (!isRollingUpdate(d)) {
      return 0;
    }
    try {
      return fenceposts(d).maxSurge();
    } catch (IllegalArgumentException e) {
      return 0;
    }
  }

  /** replicas - maxUnavailable for RollingUpdate, 0 otherwise (upstream MinAvailable). */
  public static int minAvailable(Deployment d) {
    if (!isRollingUpdate(d)) {
      return 0;
    }
    return ReplicaSetUtil.deploymentReplicas(d) - maxUnavailable(d);
  }

  private static Fenceposts fenceposts(Deployment d) {
    Optional<RollingUpdateDeployment> ru = rollingUpdate(d);
    return resolveFenceposts(ru.map(RollingUpdateDeployment::getMaxSurge).orElse(null),
        ru.map(RollingUpdateDeployment::getMaxUnavailable).orElse(null),
        ReplicaSetUtil.deploymentReplicas(d));
  }

  /**
   * The size the new ReplicaSet should have now (upstream NewRSNewReplicas).
   *
   * <p>RollingUpdate: the Deployment may run at most {@code replicas + maxSurge} pods (counted as the sum of
   * {@code spec.replicas} of all its ReplicaSets). If that ceiling is reached the new ReplicaSet keeps its
   * size; otherwise it grows by the head-room, but never beyond {@code replicas}:
   * {@code new + min(replicas + maxSurge - allPods, replicas - new)}. maxSurge here is the raw value rounded
   * up, without the 0/0 fencepost adjustment. Recreate: straight to {@code replicas}.
   *
   * @param allRSs all ReplicaSets of the Deployment including {@code newRS}
   * @throws IllegalArgumentException for an unknown strategy type or a maxSurge that does not parse
   */
  public static int newRSNewReplicas(Deployment d, List<ReplicaSet> allRSs, ReplicaSet newRS) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    int newReplicas = ReplicaSetUtil.specReplicas(newRS);
    switch (strategyType(d)) {
      case STRATEGY_ROLLING_UPDATE -> {
        IntOrString rawSurge = rollingUpdate(d).map(RollingUpdateDeployment::getMaxSurge).orElse(null);
        int maxSurge = IntOrPercent.scaledValue(rawSurge, replicas, true, MAX_SURGE_FIELD);
        int currentPodCount = ReplicaSetUtil.replicaCount(allRSs);
        int maxTotalPods = replicas + maxSurge;
        if (currentPodCount >= maxTotalPods) {
          return newReplicas;
        }
        int scaleUpCount = Math.min(maxTotalPods - currentPodCount, replicas - newReplicas);
        return newReplicas + scaleUpCount;
      }
      case STRATEGY_RECREATE -> {
        return replicas;
      }
      default -> throw new IllegalArgumentException(
          "spec.strategy.type: deployment type \"" + strategyType(d) + "\" isn't supported");
    }
  }

  /**
   * Whether the ReplicaSet already owns the whole Deployment: its size and its desired-replicas annotation
   * both equal replicas, and that many pods are available (upstream IsSaturated).
   */
  public static boolean isSaturated(Deployment d, Optional<ReplicaSet> rs) {
    if (rs.isEmpty()) {
      return false;
    }
    Optional<Integer> desired = ProportionalScaling.desiredReplicasAnnotation(rs.get());
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    return desired.isPresent()
        && ReplicaSetUtil.specReplicas(rs.get()) == replicas
        && desired.get() == replicas
        && ReplicaSetUtil.availableReplicas(rs.get()) == replicas;
  }

  /**
   * The scale of the new ReplicaSet, if any (upstream reconcileNewReplicaSet): nothing when it already has
   * replicas; down to replicas when above; otherwise {@link #newRSNewReplicas}. The step is present only when
   * the size changes.
   */
  public static Optional<ReplicaSetScale> reconcileNewReplicaSet(List<ReplicaSet> allRSs, ReplicaSet newRS,
                                   Deployment d) {
    int replicas = ReplicaSetUtil.deploymentReplicas(d);
    int current = ReplicaSetUtil.specReplicas(newRS);
    if (current == replicas) {
      return Optional.empty();
    }
    int target = current > replicas ? replicas : newRSNewReplicas(d, allRSs, newRS);
    return target == current ? Optional.empty() : Optional.of(ReplicaSetScale.to(newRS, target));
  }

  /**
   * The scale-down of old ReplicaSets for one sync of a rolling update (upstream reconcileOldReplicaSets).
   *
   * <p>How many old pods may go: {@code maxScaledDown = allPods - minAvailable - newRSUnavailable}, where
   * allPods sums {@code spec.replicas} over all ReplicaSets (surge pods included), minAvailable is
   * {@code replicas - maxUnavailable}, and newRSUnavailable = new {@code spec.replicas - status.available}.
   * Subtracting the new ReplicaSet's unavailable pods keeps a crash-looping new ReplicaSet from making us
   * remove healthy old pods. With 10 replicas, maxSurge 3, maxUnavailable 2, a new ReplicaSet at 5 that never
   * becomes available and an old one at 8: 13 - 8 - 5 = 0, so nothing is scaled down.
   *
   * <p>Then, in order:
   * <ol>
   *   <li>clean-up of unhealthy replicas: old ReplicaSets, oldest first, lose their unavailable replicas
   *   ({@code spec - status.available}) up to maxScaledDown in total: removing pods that serve nobody cannot
   *   reduce availability;</li>
   *   <li>availability-bounded scale-down: with {@code available} summed over the (cleaned) old ReplicaSets and
   *   the new one, at most {@code available - minAvailable} replicas are removed, oldest ReplicaSet first, so
   *   the Deployment never drops below {@code replicas - maxUnavailable} available pods.</li>
   * </ol>
   * A ReplicaSet reporting more available than desired replicas aborts the clean-up as upstream does (its
   * error makes reconcileOldReplicaSets return "not scaled"); steps planned before that point are kept since
   * upstream has already written them.
   *
   * @param allRSs all ReplicaSets of the Deployment, including {@code newRS}
   * @param oldRSs the active old ReplicaSets (upstream passes FilterActiveReplicaSets(oldRSs))
   */
  public static OldReplicaSetsScaleDown reconcileOldReplicaSets(List<ReplicaSet> allRSs, List<ReplicaSet> oldRSs,
                                  ReplicaSet newRS, Deployment d) {
    if (ReplicaSetUtil.replicaCount(oldRSs) == 0) {
      return OldReplicaSetsScaleDown.none(0);
    }
    int allPodsCount = ReplicaSetUtil.replicaCount(allRSs);
    int minAvailable = ReplicaSetUtil.deploymentReplicas(d) - maxUnavailable(d);
    int newRSUnavailable = ReplicaSetUtil.specReplicas(newRS) - ReplicaSetUtil.availableReplicas(newRS);
    int maxScaledDown = allPodsCount - minAvailable - newRSUnavailable;
    if (maxScaledDown <= 0) {
      return OldReplicaSetsScaleDown.none(maxScaledDown);
    }

    List<ReplicaSet> ordered = ReplicaSetUtil.sorted(oldRSs, ReplicaSetUtil.BY_CREATION_TIMESTAMP);
    // Current (possibly already cleaned) object per ReplicaSet, keyed by the input object's identity.
    Map<ReplicaSet, ReplicaSet> current = new IdentityHashMap<>();
    ordered.forEach(rs -> current.put(rs, rs));

    List<ReplicaSetScale> cleanup = new ArrayList<>();
    int cleaned = 0;
    for (ReplicaSet rs : ordered) {
      if (cleaned >= maxScaledDown) {
        break;
      }
      int size = ReplicaSetUtil.specReplicas(rs);
      int available = ReplicaSetUtil.availableReplicas(rs);
      if (size == 0 || size == available) {
        continue;
      }
      int count = Math.min(maxScaledDown - cleaned, size - available);
      if (count < 0) {
        return new OldReplicaSetsScaleDown(maxScaledDown, cleanup, List.of(), true);
      }
      ReplicaSetScale step = ReplicaSetScale.to(rs, size - count);
      cleanup.add(step);
      current.put(rs, ReplicaSetUtil.withSpecReplicas(rs, size - count));
      cleaned += count;
    }

    List<ReplicaSet> cleanedOld = ordered.stream().map(current::get).toList();
    List<ReplicaSet> afterCleanup = new ArrayList<>(cleanedOld);
    afterCleanup.add(newRS);
    List<ReplicaSetScale> scaleDown = new ArrayList<>();
    int availablePodCount = ReplicaSetUtil.availableReplicaCount(afterCleanup);
    if (availablePodCount > minAvailable) {
      int totalScaleDownCount = availablePodCount - minAvailable;
      int scaledDown = 0;
      for (ReplicaSet rs : cleanedOld) {
        if (scaledDown >= totalScaleDownCount) {
          break;
        }
        int size = ReplicaSetUtil.specReplicas(rs);
        if (size == 0) {
          continue;
        }
        int count = Math.min(size, totalScaleDownCount - scaledDown);
        scaleDown.add(ReplicaSetScale.to(rs, size - count));
        scaledDown += count;
      }
    }
    return new OldReplicaSetsScaleDown(maxScaledDown, cleanup, scaleDown, false);
  }
}
