package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The pure parts of upstream getNewReplicaSet: the ReplicaSet to create for a Deployment's current template,
 * the update an existing new ReplicaSet needs, hash-collision detection, and the Deployment status changes
 * that go with each outcome (revision annotation, Progressing condition, collisionCount).
 *
 * <p>Note for the caller: upstream writes the Deployment's revision annotation through updateStatus (the
 * status strategy keeps spec and labels but not annotations), so the Deployments returned here are meant for
 * an updateStatus call. Stateless and thread-safe; never mutates its arguments.
 */
public final class NewReplicaSets {

  private NewReplicaSets() {
  }

  /**
   * A ReplicaSet to create and the revision it carries.
   *
   * @param replicaSet the object to send to create
   * @param revision   maxRevision(old ReplicaSets) + 1
   * @param hash       its pod-template-hash (name suffix, label and selector value)
   */
  public record Creation(ReplicaSet replicaSet, String revision, String hash) {

    public int replicas() {
      return ReplicaSetUtil.specReplicas(replicaSet);
    }

    /** The Normal ScalingReplicaSet event upstream records after a create with replicas above 0. */
    public Optional<String> scaledUpEventMessage() {
      return replicas() > 0
          ? Optional.of("Scaled up replica set " + ReplicaSetUtil.name(replicaSet) + " to " + replicas())
          : Optional.empty();
    }
  }

  /** {@code maxRevision(oldRSs) + 1} in decimal: the revision the new ReplicaSet should carry. */
  public static String newRevision(List<ReplicaSet> oldRSs) {
    return Long.toString(Revisions.maxRevision(oldRSs) + 1);
  }

  /**
   * The new ReplicaSet for the Deployment's template: named {@code <deployment>-<hash>} (deterministic, so a
   * retried create is idempotent), template and labels with {@value PodTemplateHash#LABEL}, the Deployment's
   * selector plus that label, minReadySeconds, a controller owner reference to the Deployment, the size
   * {@link RollingUpdateMath#newRSNewReplicas} gives it, and the annotations of
   * {@link Revisions#setNewReplicaSetAnnotations} (with replicas annotations).
   *
   * @param oldRSs every old ReplicaSet of the Deployment
   */
  public static Creation newReplicaSet(Deployment d, List<ReplicaSet> oldRSs) {
    PodTemplateSpec template = d.getSpec().getTemplate();
    Integer collisionCount = d.getStatus() == null ? null : d.getStatus().getCollisionCount();
    String hash = PodTemplateHash.compute(template, collisionCount);

    Map<String, String> labels = new LinkedHashMap<>();
    if (template != null && template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    labels.put(PodTemplateHash.LABEL, hash);
    PodTemplateSpec rsTemplate = new PodTemplateSpecBuilder(template == null ? new PodTemplateSpec() : template)
        .editOrNewMetadata().withLabels(labels).endMetadata().build();

    LabelSelector selector = d.getSpec().getSelector();
    Map<String, String> matchLabels = new LinkedHashMap<>();
    if (selector != null && selector.getMatchLabels() != null) {
      matchLabels.putAll(selector.getMatchLabels());
    }
    matchLabels.put(PodTemplateHash.LABEL, hash);
    LabelSelector rsSelector = new LabelSelectorBuilder(selector == null ? new LabelSelector() : selector)
        .withMatchLabels(matchLabels).build();

    ReplicaSet rs = new ReplicaSetBuilder()
        .withNewMetadata()
        .withName(ReplicaSetUtil.name(d) + "-" + hash)
        .withNamespace(d.getMetadata().getNamespace())
        .withOwnerReferences(controllerRef(d))
        .withLabels(new LinkedHashMap<>(labels))
        .endMetadata()
        .withNewSpec()
        .withReplicas(0)
        .withMinReadySeconds(d.getSpec().getMinReadySeconds())
        .withSelector(rsSelector)
        .withTemplate(rsTemplate)
        .endSpec()
        .build();

    List<ReplicaSet> all = new ArrayList<>(oldRSs);
    all.add(rs);
    int replicas = RollingUpdateMath.newRSNewReplicas(d, all, rs);
    rs = ReplicaSetUtil.withSpecReplicas(rs, replicas);
    String revision = newRevision(oldRSs);
    rs = Revisions.setNewReplicaSetAnnotations(d, rs, revision, false,
        Revisions.MAX_REV_HISTORY_LENGTH_IN_CHARS).replicaSet();
    return new Creation(rs, revision, hash);
  }

  /** The controller owner reference a Deployment puts on its ReplicaSets (metav1.NewControllerRef). */
  public static OwnerReference controllerRef(Deployment d) {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1").withKind("Deployment")
        .withName(ReplicaSetUtil.name(d)).withUid(ReplicaSetUtil.uid(d))
        .withController(true).withBlockOwnerDeletion(true)
        .build();
  }

  /**
   * Whether a ReplicaSet found under the new ReplicaSet's name (create answered AlreadyExists) is someone
   * else's: not controlled by this Deployment, or running a different template. Then the caller bumps
   * collisionCount ({@link #withCollisionCountBumped}) so the next sync hashes to another name; otherwise it
   * simply adopts the existing object as the new ReplicaSet.
   */
  public static boolean isHashCollision(Deployment d, ReplicaSet existing) {
    String uid = ReplicaSetUtil.uid(d);
    List<OwnerReference> refs = existing.getMetadata() == null ? null
        : existing.getMetadata().getOwnerReferences();
    boolean ours = refs != null && refs.stream()
        .anyMatch(r -> Boolean.TRUE.equals(r.getController()) && Objects.equals(r.getUid(), uid));
    PodTemplateSpec theirs = existing.getSpec() == null ? null : existing.getSpec().getTemplate();
    return !(ours && PodTemplateHash.equalIgnoreHash(d.getSpec().getTemplate(), theirs));
  }

  /** A copy of the Deployment with {@code status.collisionCount} incremented (absent counts as 0). */
  public static Deployment withCollisionCountBumped(Deployment d) {
    DeploymentStatus status = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
    int next = (status.getCollisionCount() == null ? 0 : status.getCollisionCount()) + 1;
    return new DeploymentBuilder(d)
        .withStatus(new DeploymentStatusBuilder(status).withCollisionCount(next).build()).build();
  }

  /**
   * The update an existing new ReplicaSet needs, if any: annotations per
   * {@link Revisions#setNewReplicaSetAnnotations} ({@code exists == true}) and the Deployment's
   * minReadySeconds. When present, upstream sends it and returns without touching the Deployment.
   */
  public static Optional<ReplicaSet> existingNewReplicaSetUpdate(Deployment d, ReplicaSet existing,
                                   List<ReplicaSet> oldRSs) {
    Revisions.AnnotatedReplicaSet annotated = Revisions.setNewReplicaSetAnnotations(d, existing,
        newRevision(oldRSs), true, Revisions.MAX_REV_HISTORY_LENGTH_IN_CHARS);
    Integer wanted = d.getSpec().getMinReadySeconds();
    Integer has = existing.getSpec() == null ? null : existing.getSpec().getMinReadySeconds();
    boolean minReadyChanged = ReplicaSetUtil.orZero(wanted) != ReplicaSetUtil.orZero(has);
    if (!annotated.changed() && !minReadyChanged) {
      return Optional.empty();
    }
    return Optional.of(new ReplicaSetBuilder(annotated.replicaSet())
        .editOrNewSpec().withMinReadySeconds(wanted).endSpec().build());
  }

  /**
   * The Deployment after finding its existing, up-to-date new ReplicaSet: the revision annotation copied
   * from it, and, with a deadline but no Progressing condition yet, True FoundNewReplicaSet. Empty when
   * neither changes.
   */
  public static Optional<Deployment> afterFoundNewReplicaSet(Deployment d, ReplicaSet newRS, Instant now) {
    Map<String, String> rsAnnotations = newRS.getMetadata() == null ? null : newRS.getMetadata().getAnnotations();
    String revision = rsAnnotations == null ? null : rsAnnotations.get(Revisions.REVISION_ANNOTATION);
    Deployment result = d;
    boolean changed = false;
    Optional<Deployment> revised = Revisions.setDeploymentRevision(d, revision == null ? "" : revision);
    if (revised.isPresent()) {
      result = revised.get();
      changed = true;
    }
    if (DeploymentProgress.hasProgressDeadline(d) && DeploymentConditions.getCondition(d.getStatus(),
        DeploymentConditions.TYPE_PROGRESSING).isEmpty()) {
      DeploymentStatus status = DeploymentConditions.setCondition(d.getStatus(),
          DeploymentConditions.newCondition(DeploymentConditions.TYPE_PROGRESSING,
              DeploymentConditions.STATUS_TRUE, DeploymentConditions.REASON_FOUND_NEW_REPLICA_SET,
              "Found new replica set \"" + ReplicaSetUtil.name(newRS) + "\"", now));
      result = new DeploymentBuilder(result).withStatus(status).build();
      changed = true;
    }
    return changed ? Optional.of(result) : Optional.empty();
  }

  /**
   * The Deployment after a new ReplicaSet was created (or adopted after AlreadyExists): the new revision
   * annotation and, for a fresh create with a deadline, True NewReplicaSetCreated. Empty when neither
   * changes.
   */
  public static Optional<Deployment> afterCreated(Deployment d, ReplicaSet created, String revision,
                          boolean alreadyExisted, Instant now) {
    Deployment result = d;
    boolean changed = false;
    Optional<Deployment> revised = Revisions.setDeploymentRevision(d, revision);
    if (revised.isPresent()) {
      result = revised.get();
      changed = true;
    }
    if (!alreadyExisted && DeploymentProgress.hasProgressDeadline(d)) {
      DeploymentStatus status = DeploymentConditions.setCondition(d.getStatus(),
          DeploymentConditions.newCondition(DeploymentConditions.TYPE_PROGRESSING,
              DeploymentConditions.STATUS_TRUE, DeploymentConditions.REASON_NEW_REPLICA_SET_CREATED,
              "Created new replica set \"" + ReplicaSetUtil.name(created) + "\"", now));
      result = new DeploymentBuilder(result).withStatus(status).build();
      changed = true;
    }
    return changed ? Optional.of(result) : Optional.empty();
  }

  /**
   * The message of the Warning {@value DeploymentConditions#REASON_FAILED_RS_CREATE} event after a failed
   * create (not AlreadyExists, not a terminating namespace).
   */
  public static String createFailedMessage(ReplicaSet attempted, String error) {
    return "Failed to create new replica set \"" + ReplicaSetUtil.name(attempted) + "\": " + error;
  }

  /**
   * The status to write after a failed create when the Deployment has a deadline: False
   * {@value DeploymentConditions#REASON_FAILED_RS_CREATE} with {@link #createFailedMessage}. Empty without a
   * deadline.
   */
  public static Optional<DeploymentStatus> statusAfterCreateFailed(Deployment d, ReplicaSet attempted,
                                   String error, Instant now) {
    if (!DeploymentProgress.hasProgressDeadline(d)) {
      return Optional.empty();
    }
    return Optional.of(DeploymentConditions.setCondition(d.getStatus(), DeploymentConditions.newCondition(
        DeploymentConditions.TYPE_PROGRESSING, DeploymentConditions.STATUS_FALSE,
        DeploymentConditions.REASON_FAILED_RS_CREATE, createFailedMessage(attempted, error), now)));
  }
}
