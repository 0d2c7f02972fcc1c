package io.berth.deploy.rbac;

import io.berth.scheduler.EventOccurrences;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The workload that drives every code path of the two daemons that calls the API server, applied by an admin
 * client while the daemons run as their ServiceAccounts. Each step waits for its effect, so that when a method
 * returns the daemons have made the requests the step needs. Confined to the test thread.
 */
final class Workloads {
  static final String NAMESPACE = "work";
  private static final String SCHEDULER = "berth-scheduler";
  private static final Duration STEP = Duration.ofSeconds(60);
  private static final PatchContext STRATEGIC = PatchContext.of(PatchType.STRATEGIC_MERGE);

  private final EmbeddedCluster cluster;
  private final KubernetesClient admin;

  Workloads(EmbeddedCluster cluster, KubernetesClient admin) {
    this.cluster = cluster;
    this.admin = admin;
  }

  /**
   * The scheduler's paths: binding, a PVC bound in PreBind, an unschedulable pod (status patch and a repeated
   * FailedScheduling event), and preemption of a lower-priority pod protected by nothing (DisruptionTarget
   * condition, deletion, nominatedNodeName).
   */
  void scheduling() {
    cluster.nodes().add(NodeSpec.node("lp-1").withCpu("2").withZone("zone-a"));
    cluster.nodes().add(NodeSpec.node("lp-2").withCpu("2").withZone("zone-b"));
    admin.resource(new PriorityClassBuilder().withNewMetadata().withName("lp-low").endMetadata().withValue(100)
        .build()).create();
    admin.resource(new PriorityClassBuilder().withNewMetadata().withName("lp-high").endMetadata().withValue(1000)
        .build()).create();
    admin.resource(new PodDisruptionBudgetBuilder().withNewMetadata().withName("lp-web").withNamespace(NAMESPACE)
        .endMetadata().withNewSpec().withMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(1))
        .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", "web").build()).endSpec().build())
        .create();

    // A claim bound in PreBind: the scheduler binds the volume and the claim to each other.
    admin.resource(new StorageClassBuilder().withNewMetadata().withName("lp-local").endMetadata()
        .withProvisioner("kubernetes.io/no-provisioner").withVolumeBindingMode("WaitForFirstConsumer").build())
        .create();
    PersistentVolume pv = admin.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata()
        .withName("lp-pv").endMetadata().withNewSpec().withStorageClassName("lp-local")
        .addToCapacity("storage", new Quantity("1Gi")).withAccessModes("ReadWriteOnce")
        .withNewHostPath().withPath("/tmp/lp-pv").endHostPath()
        .withNewNodeAffinity().withNewRequired().addNewNodeSelectorTerm().addNewMatchExpression()
        .withKey("kubernetes.io/hostname").withOperator("In").withValues("lp-1").endMatchExpression()
        .endNodeSelectorTerm().endRequired().endNodeAffinity().endSpec().build()).create();
    admin.persistentVolumes().resource(new PersistentVolumeBuilder(pv).editOrNewStatus().withPhase("Available")
        .endStatus().build()).updateStatus();
    admin.persistentVolumeClaims().inNamespace(NAMESPACE).resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("lp-claim").endMetadata().withNewSpec().withStorageClassName("lp-local")
        .withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage", new Quantity("1Gi"))
        .endResources().endSpec().build()).create();
    create(new PodBuilder(pod("with-claim", "100m", null)).editSpec().addNewVolume().withName("data")
        .withNewPersistentVolumeClaim().withClaimName("lp-claim").endPersistentVolumeClaim().endVolume()
        .endSpec().build());
    awaitBound("with-claim");
    assertThat(admin.persistentVolumeClaims().inNamespace(NAMESPACE).withName("lp-claim").get().getSpec()
        .getVolumeName()).isEqualTo("lp-pv");

    // Fill both nodes with low-priority pods; an unschedulable pod is rejected on every attempt.
    for (int i = 0; i < 4; i++) {
      create(pod("low-" + i, "800m", "lp-low"));
    }
    for (int i = 0; i < 4; i++) {
      awaitBound("low-" + i);
    }
    create(pod("too-big", "16", null));
    await().atMost(STEP).until(() -> podScheduledFalse("too-big"));

    // A high-priority pod preempts a low one: nominated, the victim is deleted, then it binds.
    create(pod("high", "800m", "lp-high"));
    awaitBound("high");
    await().atMost(STEP).until(() -> admin.pods().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith("low-")).count() == 3);

    // A deleted pod makes the unschedulable pod try again and fail the same way: the scheduler's events.k8s.io/v1
    // Event is repeated (patched, series.count set) instead of created anew. Its first failure changed the pod (the
    // PodScheduled condition), and upstream's isomorphic events compare the object's resourceVersion, so the second
    // failure may be a new Event and only the next one its repeat: up to two deletions.
    for (int round = 0; round < 2 && !failedSchedulingRepeated("too-big"); round++) {
      long before = failedSchedulingAttempts("too-big");
      String victim = admin.pods().inNamespace(NAMESPACE).list().getItems().stream().map(p -> p.getMetadata()
          .getName()).filter(n -> n.startsWith("low-")).findFirst().orElseThrow();
      admin.pods().inNamespace(NAMESPACE).withName(victim).delete();
      await().atMost(STEP).until(() -> failedSchedulingAttempts("too-big") > before);
    }
    await().atMost(STEP).until(() -> failedSchedulingRepeated("too-big"));
  }

  private boolean failedSchedulingRepeated(String pod) {
    return admin.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
        .anyMatch(e -> "FailedScheduling".equals(e.getReason()) && pod.equals(e.getInvolvedObject().getName())
            && EventOccurrences.count(e) > 1);
  }

  /**
   * The controller manager's paths: a Deployment created and rolled out, an orphaned ReplicaSet adopted and then
   * released by a label change, a rollout with a history limit of 1 (old ReplicaSets scaled down and deleted), an
   * orphaned pod adopted by a ReplicaSet and an owned pod released by a label change.
   */
  void deployments() {
    admin.apps().deployments().inNamespace(NAMESPACE).resource(new DeploymentBuilder().withNewMetadata()
        .withName("web").endMetadata().withNewSpec().withReplicas(2).withRevisionHistoryLimit(10)
        .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", "web").build())
        .withTemplate(template("v1")).endSpec().build()).create();
    awaitAvailable("v1", 2);
    rollTo("v2");

    // An orphan whose labels the Deployment selects is adopted (a patch adding the ControllerRef).
    admin.apps().replicaSets().inNamespace(NAMESPACE).resource(new ReplicaSetBuilder().withNewMetadata()
        .withName("web-orphan").withLabels(Map.of("app", "web", "pod-template-hash", "orphan")).endMetadata()
        .withNewSpec().withReplicas(0).withSelector(new LabelSelectorBuilder().addToMatchLabels(Map.of("app", "web",
            "pod-template-hash", "orphan")).build())
        .withTemplate(new PodTemplateSpecBuilder(template("orphan")).editMetadata()
            .addToLabels("pod-template-hash", "orphan").endMetadata().build()).endSpec().build()).create();
    await().atMost(STEP).until(() -> ownedByDeployment(admin.apps().replicaSets().inNamespace(NAMESPACE)
        .withName("web-orphan").get()));
    // An owned ReplicaSet whose labels no longer match is released (a patch removing the ControllerRef).
    admin.apps().replicaSets().inNamespace(NAMESPACE).withName("web-orphan").patch(STRATEGIC,
        "{\"metadata\":{\"labels\":{\"app\":\"elsewhere\"}}}");
    await().atMost(STEP).until(() -> !ownedByDeployment(admin.apps().replicaSets().inNamespace(NAMESPACE)
        .withName("web-orphan").get()));

    // History cleanup: with a limit of 1, the rollout to v3 leaves the new ReplicaSet and one old one.
    patchDeployment("{\"spec\":{\"revisionHistoryLimit\":1}}");
    rollTo("v3");
    await().atMost(STEP).until(() -> replicaSets().size() == 2);

    // A pod matching the current ReplicaSet is adopted, then deleted as a surplus; an owned pod whose labels
    // change is released and replaced.
    ReplicaSet current = replicaSets().stream().filter(rs -> rs.getSpec().getReplicas() > 0).findFirst()
        .orElseThrow();
    String hash = current.getMetadata().getLabels().get("pod-template-hash");
    admin.pods().inNamespace(NAMESPACE).resource(new PodBuilder(pod("stray", "10m", null)).editMetadata()
        .withLabels(Map.of("app", "web", "version", "v3", "pod-template-hash", hash)).endMetadata().build())
        .create();
    await().atMost(STEP).until(() -> admin.pods().inNamespace(NAMESPACE).withName("stray").get() == null
        || owner(admin.pods().inNamespace(NAMESPACE).withName("stray").get()) != null);
    Pod owned = admin.pods().inNamespace(NAMESPACE).withLabel("pod-template-hash", hash).list().getItems().stream()
        .filter(p -> !p.getMetadata().getName().equals("stray") && p.getMetadata().getDeletionTimestamp() == null)
        .findFirst().orElseThrow();
    admin.pods().inNamespace(NAMESPACE).withName(owned.getMetadata().getName()).patch(STRATEGIC,
        "{\"metadata\":{\"labels\":{\"app\":\"released\"}}}");
    await().atMost(STEP).until(() -> owner(admin.pods().inNamespace(NAMESPACE).withName(owned.getMetadata()
        .getName()).get()) == null);
    awaitAvailable("v3", 2);

    // Pod creates that fail (422: fabric8 itself retries 5xx): the ReplicaSet controller retries, and its identical FailedCreate events are
    // repeated (patched, count bumped) rather than created anew.
    cluster.faults().failNext("create", "pods", 3, 422);
    patchDeployment("{\"spec\":{\"replicas\":3}}");
    await().atMost(STEP).until(() -> admin.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
        .anyMatch(e -> "FailedCreate".equals(e.getReason()) && e.getCount() != null && e.getCount() > 1));
    awaitAvailable("v3", 3);
  }

  private void rollTo(String version) {
    patchDeployment("{\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"version\":\"" + version
        + "\"}},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:" + version + "\"}]}}}}");
    awaitAvailable(version, 2);
  }

  /** A strategic merge patch without a resourceVersion: the controllers write the Deployment meanwhile. */
  private void patchDeployment(String patch) {
    admin.apps().deployments().inNamespace(NAMESPACE).withName("web").patch(STRATEGIC, patch);
  }

  private void awaitAvailable(String version, int replicas) {
    await().atMost(STEP).until(() -> {
      Deployment d = admin.apps().deployments().inNamespace(NAMESPACE).withName("web").get();
      return d.getStatus() != null && Objects.equals(d.getStatus().getUpdatedReplicas(), replicas)
          && Objects.equals(d.getStatus().getAvailableReplicas(), replicas)
          && Objects.equals(d.getStatus().getReplicas(), replicas)
          && Objects.equals(d.getStatus().getObservedGeneration(), d.getMetadata().getGeneration())
          && d.getSpec().getTemplate().getMetadata().getLabels().get("version").equals(version);
    });
  }

  /**
   * Dynamic Resource Allocation: the resource-claim-controller creates a pod's claim from its template and records
   * it in the pod's status; the scheduler allocates it (finalizer, allocation and reservation); deleting the pod
   * makes the controller drop the reservation, the allocation and the finalizer. A pod that fails before it is
   * scheduled gets its generated claim deleted by the controller.
   */
  void dynamicResources() {
    cluster.nodes().add(NodeSpec.node("lp-gpu").withGpus(2));
    admin.resources(ResourceClaimTemplate.class).inNamespace(NAMESPACE).resource(new ResourceClaimTemplateBuilder()
        .withNewMetadata().withName("one-gpu").withNamespace(NAMESPACE).endMetadata().withNewSpec().withNewSpec()
        .withNewDevices().addNewRequest().withName("gpu").withNewExactly().withDeviceClassName("gpu.berth.io")
        .endExactly().endRequest().endDevices().endSpec().endSpec().build()).create();
    create(withClaim(pod("gpu-user", "10m", null)));
    awaitBound("gpu-user");
    await().atMost(STEP).until(() -> claimOf("gpu-user") != null && claimOf("gpu-user").getStatus() != null
        && claimOf("gpu-user").getStatus().getAllocation() != null);
    String claim = claimOf("gpu-user").getMetadata().getName();
    admin.pods().inNamespace(NAMESPACE).withName("gpu-user").delete();
    await().atMost(STEP).until(() -> admin.resources(ResourceClaim.class).inNamespace(NAMESPACE).withName(claim)
        .get() == null);

    create(new PodBuilder(withClaim(pod("gpu-failed", "10m", null))).editSpec().withSchedulerName("nobody")
        .endSpec().build());
    await().atMost(STEP).until(() -> claimOf("gpu-failed") != null);
    String failedClaim = claimOf("gpu-failed").getMetadata().getName();
    admin.pods().inNamespace(NAMESPACE).withName("gpu-failed").editStatus(p -> {
      p.getStatus().setPhase("Failed");
      return p;
    });
    await().atMost(STEP).until(() -> admin.resources(ResourceClaim.class).inNamespace(NAMESPACE)
        .withName(failedClaim).get() == null);
  }

  private static Pod withClaim(Pod pod) {
    return new PodBuilder(pod).editSpec().withResourceClaims(new io.fabric8.kubernetes.api.model
        .PodResourceClaimBuilder().withName("gpu").withResourceClaimTemplateName("one-gpu").build()).endSpec()
        .build();
  }

  private ResourceClaim claimOf(String podName) {
    Pod pod = admin.pods().inNamespace(NAMESPACE).withName(podName).get();
    if (pod == null || pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null
        || pod.getStatus().getResourceClaimStatuses().isEmpty()) {
      return null;
    }
    return admin.resources(ResourceClaim.class).inNamespace(NAMESPACE)
        .withName(pod.getStatus().getResourceClaimStatuses().get(0).getResourceClaimName()).get();
  }

  private List<ReplicaSet> replicaSets() {
    return admin.apps().replicaSets().inNamespace(NAMESPACE).withLabel("app", "web").list().getItems().stream()
        .filter(Workloads::ownedByDeployment).toList();
  }

  private static boolean ownedByDeployment(ReplicaSet rs) {
    return rs != null && rs.getMetadata().getOwnerReferences().stream()
        .anyMatch(o -> "Deployment".equals(o.getKind()) && Boolean.TRUE.equals(o.getController()));
  }

  private static String owner(Pod pod) {
    if (pod == null) {
      return null;
    }
    return pod.getMetadata().getOwnerReferences().stream().filter(o -> Boolean.TRUE.equals(o.getController()))
        .map(o -> o.getName()).findFirst().orElse(null);
  }

  private static PodTemplateSpec template(String version) {
    return new PodTemplateSpecBuilder().withNewMetadata().withLabels(Map.of("app", "web", "version", version))
        .endMetadata().withNewSpec().withSchedulerName(SCHEDULER).withTerminationGracePeriodSeconds(0L)
        .addNewContainer().withName("web").withImage("nginx:" + version).withNewResources()
        .addToRequests("cpu", new Quantity("10m")).endResources().endContainer().endSpec().build();
  }

  private static Pod pod(String name, String cpu, String priorityClass) {
    return new PodBuilder().withMetadata(new ObjectMeta()).editMetadata().withName(name).withNamespace(NAMESPACE)
        .endMetadata().withNewSpec().withSchedulerName(SCHEDULER).withPriorityClassName(priorityClass)
        .withTerminationGracePeriodSeconds(0L).addNewContainer().withName("c").withImage("busybox")
        .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
        .build();
  }

  private void create(Pod pod) {
    admin.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  private void awaitBound(String name) {
    await().atMost(STEP).until(() -> {
      Pod p = admin.pods().inNamespace(NAMESPACE).withName(name).get();
      return p != null && p.getSpec().getNodeName() != null;
    });
  }

  private boolean podScheduledFalse(String name) {
    Pod p = admin.pods().inNamespace(NAMESPACE).withName(name).get();
    return p != null && p.getStatus() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()));
  }

  /** How many FailedScheduling attempts the pod's events count (an event repeated is one object, count bumped). */
  private long failedSchedulingAttempts(String pod) {
    return admin.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(e -> "FailedScheduling".equals(e.getReason()) && pod.equals(e.getInvolvedObject().getName()))
        .mapToLong(EventOccurrences::count).sum();
  }
}
