package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Splits a Deployment's ReplicaSets into the new one (whose pod template equals the Deployment's, ignoring
 * {@value PodTemplateHash#LABEL}) and the old ones (upstream deploymentutil.FindNewReplicaSet and
 * FindOldReplicaSets).
 *
 * <p>Stateless and thread-safe; never mutates the list it is given.
 */
public final class ReplicaSetClassifier {

  private ReplicaSetClassifier() {
  }

  /**
   * The old ReplicaSets of a Deployment.
   *
   * @param withReplicas the old ReplicaSets whose {@code spec.replicas} is not 0, in input order
   * @param all          every old ReplicaSet, in input order
   */
  public record OldReplicaSets(List<ReplicaSet> withReplicas, List<ReplicaSet> all) {
    public OldReplicaSets {
      withReplicas = List.copyOf(withReplicas);
      all = List.copyOf(all);
    }
  }

  /**
   * The ReplicaSet running the Deployment's current template. Several may match (e.g. after an upgrade that
   * changed how templates hash, upstream issue 40415); the oldest wins, ties broken by name, so the choice is
   * deterministic.
   *
   * @param rsList the ReplicaSets the Deployment owns
   */
  public static Optional<ReplicaSet> findNewReplicaSet(Deployment d, List<ReplicaSet> rsList) {
    PodTemplateSpec template = d.getSpec() == null ? null : d.getSpec().getTemplate();
    for (ReplicaSet rs : ReplicaSetUtil.sorted(rsList, ReplicaSetUtil.BY_CREATION_TIMESTAMP)) {
      PodTemplateSpec rsTemplate = rs.getSpec() == null ? null : rs.getSpec().getTemplate();
      if (PodTemplateHash.equalIgnoreHash(rsTemplate, template)) {
        return Optional.of(rs);
      }
    }
    return Optional.empty();
  }

  /** Every ReplicaSet but the new one (matched by uid, as upstream), split as {@link OldReplicaSets}. */
  public static OldReplicaSets findOldReplicaSets(Deployment d, List<ReplicaSet> rsList) {
    Optional<ReplicaSet> newRS = findNewReplicaSet(d, rsList);
    List<ReplicaSet> withReplicas = new ArrayList<>();
    List<ReplicaSet> all = new ArrayList<>();
    for (ReplicaSet rs : rsList) {
      if (rs == null || newRS.isPresent() && ReplicaSetUtil.sameObject(rs, newRS.get())) {
        continue;
      }
      all.add(rs);
      if (ReplicaSetUtil.specReplicas(rs) != 0) {
        withReplicas.add(rs);
      }
    }
    return new OldReplicaSets(withReplicas, all);
  }
}
