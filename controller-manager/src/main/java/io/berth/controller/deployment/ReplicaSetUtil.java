package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Null-safe readers, sort orders and sums over ReplicaSets, as the Deployment controller uses them
 * (upstream {@code controller.ReplicaSetsByCreationTimestamp}, {@code ReplicaSetsBySizeOlder/Newer},
 * {@code FilterActiveReplicaSets} and the {@code Get*ReplicaCountForReplicaSets} family).
 *
 * <p>Stateless; never mutates its arguments. Missing numbers read as the API server would store them:
 * an absent {@code spec.replicas} is 1 (the apps/v1 default), absent status counters are 0.
 */
final class ReplicaSetUtil {

  /** Older first; equal timestamps ordered by name, as upstream ReplicaSetsByCreationTimestamp. */
  static final Comparator<ReplicaSet> BY_CREATION_TIMESTAMP =
      Comparator.comparing((ReplicaSet rs) -> creationTimestamp(rs)).thenComparing(ReplicaSetUtil::name);

  /** Larger first; equal sizes older first (upstream ReplicaSetsBySizeOlder). */
  static final Comparator<ReplicaSet> BY_SIZE_OLDER =
      Comparator.comparingInt(ReplicaSetUtil::specReplicas).reversed().thenComparing(BY_CREATION_TIMESTAMP);

  /** Larger first; equal sizes newer first (upstream ReplicaSetsBySizeNewer). */
  static final Comparator<ReplicaSet> BY_SIZE_NEWER =
      Comparator.comparingInt(ReplicaSetUtil::specReplicas).reversed()
          .thenComparing(BY_CREATION_TIMESTAMP.reversed());

  private ReplicaSetUtil() {
  }

  static String name(HasMetadata obj) {
    return obj.getMetadata() == null || obj.getMetadata().getName() == null ? "" : obj.getMetadata().getName();
  }

  static String uid(HasMetadata obj) {
    return obj.getMetadata() == null ? null : obj.getMetadata().getUid();
  }

  /**
   * The creation timestamp; absent or unparsable reads as {@link Instant#MIN}, which sorts first like Go's
   * zero time.
   */
  static Instant creationTimestamp(HasMetadata obj) {
    String ts = obj.getMetadata() == null ? null : obj.getMetadata().getCreationTimestamp();
    if (ts == null || ts.isEmpty()) {
      return Instant.MIN;
    }
    try {
      return Instant.parse(ts);
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }

  static boolean isBeingDeleted(HasMetadata obj) {
    return obj.getMetadata() != null && obj.getMetadata().getDeletionTimestamp() != null;
  }

  static long generation(HasMetadata obj) {
    Long g = obj.getMetadata() == null ? null : obj.getMetadata().getGeneration();
    return g == null ? 0 : g;
  }

  static int specReplicas(ReplicaSet rs) {
    Integer r = rs.getSpec() == null ? null : rs.getSpec().getReplicas();
    return r == null ? 1 : r;
  }

  static int statusReplicas(ReplicaSet rs) {
    return rs.getStatus() == null ? 0 : orZero(rs.getStatus().getReplicas());
  }

  static int readyReplicas(ReplicaSet rs) {
    return rs.getStatus() == null ? 0 : orZero(rs.getStatus().getReadyReplicas());
  }

  static int availableReplicas(ReplicaSet rs) {
    return rs.getStatus() == null ? 0 : orZero(rs.getStatus().getAvailableReplicas());
  }

  static long observedGeneration(ReplicaSet rs) {
    Long g = rs.getStatus() == null ? null : rs.getStatus().getObservedGeneration();
    return g == null ? 0 : g;
  }

  /** {@code spec.replicas} of a Deployment, 1 when absent (the apps/v1 default). */
  static int deploymentReplicas(Deployment d) {
    Integer r = d.getSpec() == null ? null : d.getSpec().getReplicas();
    return r == null ? 1 : r;
  }

  static int orZero(Integer value) {
    return value == null ? 0 : value;
  }

  /** ReplicaSets with a non-zero {@code spec.replicas}, in the given order (upstream FilterActiveReplicaSets). */
  static List<ReplicaSet> filterActive(List<ReplicaSet> rss) {
    List<ReplicaSet> active = new ArrayList<>();
    for (ReplicaSet rs : rss) {
      if (rs != null && specReplicas(rs) > 0) {
        active.add(rs);
      }
    }
    return active;
  }

  static int replicaCount(List<ReplicaSet> rss) {
    return rss.stream().filter(Objects::nonNull).mapToInt(ReplicaSetUtil::specReplicas).sum();
  }

  static int actualReplicaCount(List<ReplicaSet> rss) {
    return rss.stream().filter(Objects::nonNull).mapToInt(ReplicaSetUtil::statusReplicas).sum();
  }

  static int readyReplicaCount(List<ReplicaSet> rss) {
    return rss.stream().filter(Objects::nonNull).mapToInt(ReplicaSetUtil::readyReplicas).sum();
  }

  static int availableReplicaCount(List<ReplicaSet> rss) {
    return rss.stream().filter(Objects::nonNull).mapToInt(ReplicaSetUtil::availableReplicas).sum();
  }

  static List<ReplicaSet> sorted(List<ReplicaSet> rss, Comparator<ReplicaSet> order) {
    List<ReplicaSet> copy = new ArrayList<>();
    for (ReplicaSet rs : rss) {
      if (rs != null) {
        copy.add(rs);
      }
    }
    copy.sort(order);
    return copy;
  }

  /** A deep copy with {@code spec.replicas} set; the argument is untouched. */
  static ReplicaSet withSpecReplicas(ReplicaSet rs, int replicas) {
    return new ReplicaSetBuilder(rs).editOrNewSpec().withReplicas(replicas).endSpec().build();
  }

  static boolean sameObject(ReplicaSet a, ReplicaSet b) {
    if (a == b) {
      return true;
    }
    String ua = uid(a);
    String ub = uid(b);
    if (ua != null && ub != null) {
      return ua.equals(ub);
    }
    return name(a).equals(name(b));
  }
}
