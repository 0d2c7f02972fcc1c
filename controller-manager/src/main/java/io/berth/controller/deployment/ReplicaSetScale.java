package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One planned write of a ReplicaSet's size: the pure half of upstream {@code scaleReplicaSet}. The controller
 * sends {@link #applyTo(Deployment)} as an update and, when {@link #eventMessage()} is present, records a Normal
 * {@value #EVENT_REASON} event on the Deployment.
 *
 * <p>Immutable value; {@code replicaSet} is the object the step was planned against and is never mutated. When
 * a plan holds two steps for the same ReplicaSet (unhealthy clean-up, then scale-down), the second was planned
 * against the first's result: apply it with {@link #onto(ReplicaSet)} to the object the first write returned,
 * so the update carries the current resourceVersion.
 *
 * @param replicaSet       the ReplicaSet as last read (or as left by the previous step of the same plan)
 * @param newReplicas      the target {@code spec.replicas}
 * @param scalingOperation "up", "down", or "" (upstream passes "" in proportional scaling when nothing is added)
 */
public record ReplicaSetScale(ReplicaSet replicaSet, int newReplicas, String scalingOperation) {

  /** Event reason upstream records for every size change of a ReplicaSet. */
  public static final String EVENT_REASON = "ScalingReplicaSet";

  public ReplicaSetScale {
    Objects.requireNonNull(replicaSet, "replicaSet");
    Objects.requireNonNull(scalingOperation, "scalingOperation");
    if (newReplicas < 0) {
      throw new IllegalArgumentException("newReplicas must be >= 0, got " + newReplicas);
    }
  }

  /** A step whose operation follows the direction of the change (upstream scaleReplicaSetAndRecordEvent). */
  public static ReplicaSetScale to(ReplicaSet rs, int newReplicas) {
    String op = ReplicaSetUtil.specReplicas(rs) < newReplicas ? "up" : "down";
    return new ReplicaSetScale(rs, newReplicas, op);
  }

  public String name() {
    return ReplicaSetUtil.name(replicaSet);
  }

  public int oldReplicas() {
    return ReplicaSetUtil.specReplicas(replicaSet);
  }

  public boolean sizeChanged() {
    return oldReplicas() != newReplicas;
  }

  /** The same target against a fresher copy of the ReplicaSet (e.g. the object a previous write returned). */
  public ReplicaSetScale onto(ReplicaSet latest) {
    return new ReplicaSetScale(latest, newReplicas, scalingOperation);
  }

  /**
   * The object to send: a copy with {@code spec.replicas = newReplicas} and the desired-replicas/max-replicas
   * annotations set from the Deployment, exactly what upstream writes on every scale.
   */
  public ReplicaSet applyTo(Deployment d) {
    int desired = ReplicaSetUtil.deploymentReplicas(d);
    int max = desired + RollingUpdateMath.maxSurge(d);
    ReplicaSet copy = ReplicaSetUtil.withSpecReplicas(replicaSet, newReplicas);
    Map<String, String> annotations = ProportionalScaling.withReplicasAnnotations(
        copy.getMetadata() == null ? null : copy.getMetadata().getAnnotations(), desired, max);
    return new ReplicaSetBuilder(copy).editOrNewMetadata().withAnnotations(annotations).endMetadata().build();
  }

  /**
   * The message of the {@value #EVENT_REASON} event, present only when the size changes (upstream records no
   * event for an annotation-only update).
   */
  public Optional<String> eventMessage() {
    if (!sizeChanged()) {
      return Optional.empty();
    }
    return Optional.of(String.format("Scaled %s replica set %s to %d from %d",
        scalingOperation, name(), newReplicas, oldReplicas()));
  }
}
