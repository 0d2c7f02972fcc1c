package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which old ReplicaSets to delete so a Deployment keeps at most {@code spec.revisionHistoryLimit} of them
 * (upstream sync.go cleanupDeployment and deploymentutil.ReplicaSetsByRevision).
 *
 * <p>Stateless and thread-safe; returns the ReplicaSets to delete, in deletion order, without deleting.
 */
public final class HistoryCleanup {

  /** The apps/v1 default of {@code spec.revisionHistoryLimit}, used when the field is absent. */
  public static final int DEFAULT_REVISION_HISTORY_LIMIT = 10;

  /** Lowest revision first; unparsable or equal revisions fall back to creation time (older first), then name. */
  static final Comparator<ReplicaSet> BY_REVISION = (a, b) -> {
    Optional<Long> ra = Revisions.revision(a);
    Optional<Long> rb = Revisions.revision(b);
    if (ra.isEmpty() || rb.isEmpty() || ra.get().equals(rb.get())) {
      return ReplicaSetUtil.BY_CREATION_TIMESTAMP.compare(a, b);
    }
    return Long.compare(ra.get(), rb.get());
  };

  private HistoryCleanup() {
  }

  /**
   * The old ReplicaSets to delete now.
   *
   * <p>Counts the old ReplicaSets not already being deleted; {@code diff = count - limit} of them, taken in
   * revision order (oldest revision first), are candidates. A candidate is deleted only if it is fully scaled
   * down ({@code spec.replicas} and {@code status.replicas} both 0) and its controller has observed its
   * latest generation; a candidate that fails those checks is skipped, not replaced by a newer one, exactly
   * as upstream, so the history may stay above the limit until it drains. The limit is
   * {@value #DEFAULT_REVISION_HISTORY_LIMIT} when absent (what the API server's defaulting sets);
   * {@link Integer#MAX_VALUE} keeps everything.
   *
   * @param oldRSs all old ReplicaSets of the Deployment (the new one excluded)
   */
  public static List<ReplicaSet> replicaSetsToDelete(Deployment d, List<ReplicaSet> oldRSs) {
    Integer configured = d.getSpec() == null ? null : d.getSpec().getRevisionHistoryLimit();
    int limit = configured == null ? DEFAULT_REVISION_HISTORY_LIMIT : configured;
    if (limit == Integer.MAX_VALUE) {
      return List.of();
    }
    List<ReplicaSet> cleanable = new ArrayList<>();
    for (ReplicaSet rs : oldRSs) {
      if (rs != null && !ReplicaSetUtil.isBeingDeleted(rs)) {
        cleanable.add(rs);
      }
    }
    int diff = cleanable.size() - limit;
    if (diff <= 0) {
      return List.of();
    }
    cleanable.sort(BY_REVISION);
    List<ReplicaSet> toDelete = new ArrayList<>();
    for (int i = 0; i < diff; i++) {
      ReplicaSet rs = cleanable.get(i);
      if (ReplicaSetUtil.statusReplicas(rs) != 0 || ReplicaSetUtil.specReplicas(rs) != 0
          || ReplicaSetUtil.generation(rs) > ReplicaSetUtil.observedGeneration(rs)
          || ReplicaSetUtil.isBeingDeleted(rs)) {
        continue;
      }
      toDelete.add(rs);
    }
    return toDelete;
  }
}
