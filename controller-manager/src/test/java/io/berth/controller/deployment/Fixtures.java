package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builders for the Deployments and ReplicaSets the tables use. */
final class Fixtures {

  static final Instant T0 = Instant.parse("2016-05-20T00:00:00Z");

  private Fixtures() {
  }

  static PodTemplateSpec template(String image) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata().withLabels(Map.of("app", "foo")).endMetadata()
        .withNewSpec().addNewContainer().withName("web").withImage(image).endContainer().endSpec()
        .build();
  }

  /** RollingUpdate Deployment "foo" selecting app=foo, image nginx:1, generation 1, deadline 600 s. */
  static Deployment rolling(int replicas, Object maxSurge, Object maxUnavailable) {
    return new DeploymentBuilder()
        .withNewMetadata().withName("foo").withNamespace("default").withUid("uid-foo")
        .withGeneration(1L).endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector().withMatchLabels(Map.of("app", "foo")).endSelector()
        .withTemplate(template("nginx:1"))
        .withNewStrategy().withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxSurge(maxSurge == null ? null : new IntOrString(maxSurge))
        .withMaxUnavailable(maxUnavailable == null ? null : new IntOrString(maxUnavailable))
        .endRollingUpdate()
        .endStrategy()
        .withProgressDeadlineSeconds(600)
        .withRevisionHistoryLimit(10)
        .endSpec()
        .build();
  }

  static Deployment recreate(int replicas) {
    return new DeploymentBuilder(rolling(replicas, 0, 0))
        .editSpec().withNewStrategy().withType("Recreate").endStrategy().endSpec().build();
  }

  /** A ReplicaSet of "foo" created {@code createdSecondsAfterT0} after T0, all replicas available. */
  static ReplicaSet rs(String name, int replicas, int createdSecondsAfterT0) {
    return rs(name, replicas, replicas, createdSecondsAfterT0);
  }

  static ReplicaSet rs(String name, int replicas, int available, int createdSecondsAfterT0) {
    return new ReplicaSetBuilder()
        .withNewMetadata().withName(name).withNamespace("default").withUid("uid-" + name)
        .withCreationTimestamp(T0.plusSeconds(createdSecondsAfterT0).toString())
        .withGeneration(1L)
        .endMetadata()
        .withNewSpec().withReplicas(replicas).withTemplate(template("image-of-" + name)).endSpec()
        .withNewStatus().withReplicas(replicas).withReadyReplicas(available)
        .withAvailableReplicas(available).withObservedGeneration(1L).endStatus()
        .build();
  }

  static ReplicaSet withAnnotations(ReplicaSet rs, Map<String, String> annotations) {
    Map<String, String> merged = new LinkedHashMap<>();
    if (rs.getMetadata().getAnnotations() != null) {
      merged.putAll(rs.getMetadata().getAnnotations());
    }
    merged.putAll(annotations);
    return new ReplicaSetBuilder(rs).editMetadata().withAnnotations(merged).endMetadata().build();
  }

  static ReplicaSet withRevision(ReplicaSet rs, String revision) {
    return withAnnotations(rs, Map.of(Revisions.REVISION_ANNOTATION, revision));
  }

  /** The replicas annotations a ReplicaSet gets when last scaled for a Deployment of that size and surge. */
  static ReplicaSet sizedFor(ReplicaSet rs, int desired, int maxSurge) {
    return withAnnotations(rs, Map.of(
        ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, Integer.toString(desired),
        ProportionalScaling.MAX_REPLICAS_ANNOTATION, Integer.toString(desired + maxSurge)));
  }

  static ReplicaSet withTemplate(ReplicaSet rs, PodTemplateSpec template) {
    return new ReplicaSetBuilder(rs).editSpec().withTemplate(template).endSpec().build();
  }
}
