package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NewReplicaSetsTest {

  private static final Instant NOW = Instant.parse("2024-03-01T12:00:00Z");

  private static Deployment annotated() {
    return new DeploymentBuilder(rolling(10, 2, 1)).editMetadata()
        .addToAnnotations("team", "payments")
        .addToAnnotations(Revisions.LAST_APPLIED_CONFIG_ANNOTATION, "{}").endMetadata().build();
  }

  @Test
  void newReplicaSetCarriesHashNameOwnerSizeAndAnnotations() {
    Deployment d = annotated();
    ReplicaSet old = Fixtures.withRevision(rs("foo-old", 10, 0), "4");
    NewReplicaSets.Creation c = NewReplicaSets.newReplicaSet(d, List.of(old));
    ReplicaSet r = c.replicaSet();
    String hash = PodTemplateHash.compute(d.getSpec().getTemplate(), null);
    assertThat(c.hash()).isEqualTo(hash);
    assertThat(r.getMetadata().getName()).isEqualTo("foo-" + hash);
    assertThat(r.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(r.getMetadata().getLabels()).containsEntry("app", "foo").containsEntry(PodTemplateHash.LABEL, hash);
    assertThat(r.getSpec().getSelector().getMatchLabels()).containsEntry("app", "foo")
        .containsEntry(PodTemplateHash.LABEL, hash);
    assertThat(r.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(PodTemplateHash.LABEL, hash);
    assertThat(PodTemplateHash.equalIgnoreHash(r.getSpec().getTemplate(), d.getSpec().getTemplate())).isTrue();
    assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).as("deployment untouched")
        .doesNotContainKey(PodTemplateHash.LABEL);
    OwnerReference owner = r.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getKind()).isEqualTo("Deployment");
    assertThat(owner.getUid()).isEqualTo("uid-foo");
    assertThat(owner.getController()).isTrue();
    assertThat(owner.getBlockOwnerDeletion()).isTrue();
    assertThat(c.revision()).isEqualTo("5");
    // 10 old pods, ceiling 12: the new RS starts at 2.
    assertThat(c.replicas()).isEqualTo(2);
    assertThat(r.getMetadata().getAnnotations())
        .containsEntry(Revisions.REVISION_ANNOTATION, "5")
        .containsEntry("team", "payments")
        .containsEntry(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "10")
        .containsEntry(ProportionalScaling.MAX_REPLICAS_ANNOTATION, "12")
        .doesNotContainKey(Revisions.LAST_APPLIED_CONFIG_ANNOTATION);
    assertThat(c.scaledUpEventMessage()).contains("Scaled up replica set foo-" + hash + " to 2");
  }

  @Test
  void collisionCountChangesTheName() {
    Deployment d = rolling(3, 1, 0);
    Deployment bumped = NewReplicaSets.withCollisionCountBumped(d);
    assertThat(bumped.getStatus().getCollisionCount()).isEqualTo(1);
    assertThat(NewReplicaSets.withCollisionCountBumped(bumped).getStatus().getCollisionCount()).isEqualTo(2);
    assertThat(NewReplicaSets.newReplicaSet(bumped, List.of()).replicaSet().getMetadata().getName())
        .isNotEqualTo(NewReplicaSets.newReplicaSet(d, List.of()).replicaSet().getMetadata().getName());
  }

  @Test
  void hashCollisionDetection() {
    Deployment d = rolling(3, 1, 0);
    ReplicaSet ours = NewReplicaSets.newReplicaSet(d, List.of()).replicaSet();
    assertThat(NewReplicaSets.isHashCollision(d, ours)).as("our own RS from a slow cache").isFalse();
    ReplicaSet foreignOwner = new ReplicaSetBuilder(ours).editMetadata().withOwnerReferences(List.of())
        .endMetadata().build();
    assertThat(NewReplicaSets.isHashCollision(d, foreignOwner)).isTrue();
    ReplicaSet otherTemplate = new ReplicaSetBuilder(ours).editSpec().withTemplate(Fixtures.template("other"))
        .endSpec().build();
    assertThat(NewReplicaSets.isHashCollision(d, otherTemplate)).isTrue();
  }

  @Test
  void existingNewReplicaSetNeedsUpdateForRevisionOrMinReadySeconds() {
    Deployment d = rolling(3, 1, 0);
    ReplicaSet old = Fixtures.withRevision(rs("old", 0, 0), "2");
    ReplicaSet upToDate = Fixtures.withRevision(NewReplicaSets.newReplicaSet(d, List.of(old)).replicaSet(), "3");
    assertThat(NewReplicaSets.existingNewReplicaSetUpdate(d, upToDate, List.of(old))).isEmpty();

    ReplicaSet behind = Fixtures.withRevision(upToDate, "1");
    assertThat(NewReplicaSets.existingNewReplicaSetUpdate(d, behind, List.of(old))).get()
        .extracting(r -> r.getMetadata().getAnnotations().get(Revisions.REVISION_HISTORY_ANNOTATION))
        .isEqualTo("1");

    Deployment slower = new DeploymentBuilder(d).editSpec().withMinReadySeconds(15).endSpec().build();
    assertThat(NewReplicaSets.existingNewReplicaSetUpdate(slower, upToDate, List.of(old))).get()
        .extracting(r -> r.getSpec().getMinReadySeconds()).isEqualTo(15);
  }

  @Test
  void foundAndCreatedStatusChanges() {
    Deployment d = rolling(3, 1, 0);
    ReplicaSet found = Fixtures.withRevision(rs("foo-abc", 3, 0), "7");
    Deployment afterFound = NewReplicaSets.afterFoundNewReplicaSet(d, found, NOW).orElseThrow();
    assertThat(afterFound.getMetadata().getAnnotations()).containsEntry(Revisions.REVISION_ANNOTATION, "7");
    DeploymentCondition foundCond = DeploymentConditions.getCondition(afterFound.getStatus(),
        DeploymentConditions.TYPE_PROGRESSING).orElseThrow();
    assertThat(foundCond.getReason()).isEqualTo(DeploymentConditions.REASON_FOUND_NEW_REPLICA_SET);
    assertThat(foundCond.getMessage()).isEqualTo("Found new replica set \"foo-abc\"");
    assertThat(NewReplicaSets.afterFoundNewReplicaSet(afterFound, found, NOW)).as("idempotent").isEmpty();

    Deployment afterCreated = NewReplicaSets.afterCreated(d, found, "7", false, NOW).orElseThrow();
    assertThat(DeploymentConditions.getCondition(afterCreated.getStatus(), DeploymentConditions.TYPE_PROGRESSING))
        .get().extracting(DeploymentCondition::getReason)
        .isEqualTo(DeploymentConditions.REASON_NEW_REPLICA_SET_CREATED);
    Optional<Deployment> adopted = NewReplicaSets.afterCreated(afterFound, found, "7", true, NOW);
    assertThat(adopted).as("already existed and revision current: nothing").isEmpty();
  }

  @Test
  void createFailureIsReportedWithTheReplicaSetName() {
    Deployment d = rolling(3, 1, 0);
    ReplicaSet attempted = NewReplicaSets.newReplicaSet(d, List.of()).replicaSet();
    String msg = NewReplicaSets.createFailedMessage(attempted, "quota exceeded");
    assertThat(msg).isEqualTo("Failed to create new replica set \"" + attempted.getMetadata().getName()
        + "\": quota exceeded");
    DeploymentCondition c = DeploymentConditions.getCondition(
        NewReplicaSets.statusAfterCreateFailed(d, attempted, "quota exceeded", NOW).orElseThrow(),
        DeploymentConditions.TYPE_PROGRESSING).orElseThrow();
    assertThat(c.getStatus()).isEqualTo("False");
    assertThat(c.getReason()).isEqualTo("ReplicaSetCreateError");
    Deployment noDeadline = new DeploymentBuilder(d).editSpec().withProgressDeadlineSeconds(null).endSpec()
        .build();
    assertThat(NewReplicaSets.statusAfterCreateFailed(noDeadline, attempted, "x", NOW)).isEmpty();
  }
}
