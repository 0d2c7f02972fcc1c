package io.berth.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TopologySelectorTermBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** Builders for the objects of volume binding tests, after upstream's test_utils.go. */
final class VolumeFixtures {
  static final String HOSTNAME = "kubernetes.io/hostname";
  static final StorageClass IMMEDIATE_SC = storageClass("immediate-sc", "Immediate", null);
  static final StorageClass WAIT_SC = storageClass("wait-sc", "WaitForFirstConsumer", null);
  static final StorageClass WAIT_HDD_SC = storageClass("wait-hdd-sc", "WaitForFirstConsumer",
      null);
  static final StorageClass NO_PROVISIONER_SC = storageClass("local-sc", "WaitForFirstConsumer",
      "kubernetes.io/no-provisioner");
  /** Provisions dynamically, but only in zone-a. */
  static final StorageClass PROVISIONING_SC = new StorageClassBuilder(
      storageClass("csi-sc", "WaitForFirstConsumer", "example.com/csi"))
      .withAllowedTopologies(new TopologySelectorTermBuilder().addNewMatchLabelExpression()
          .withKey("topology.kubernetes.io/zone").withValues("zone-a").endMatchLabelExpression()
          .build()).build();

  private VolumeFixtures() {}

  static StorageClass storageClass(String name, String mode, String provisioner) {
    return new StorageClassBuilder().withNewMetadata().withName(name).endMetadata()
        .withVolumeBindingMode(mode).withProvisioner(provisioner).build();
  }

  static Node node(String name, String... labels) {
    Map<String, String> l = new TreeMap<>();
    l.put(HOSTNAME, name);
    for (int i = 0; i + 1 < labels.length; i += 2) {
      l.put(labels[i], labels[i + 1]);
    }
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(l).endMetadata().build();
  }

  static PvBuilder pv(String name, String className) {
    return new PvBuilder(new PersistentVolumeBuilder().withNewMetadata().withName(name)
        .endMetadata().withNewSpec().withStorageClassName(className).endSpec());
  }

  static PvcBuilder pvc(String name, String className) {
    return new PvcBuilder(new PersistentVolumeClaimBuilder().withNewMetadata().withName(name)
        .withNamespace("default").withUid("uid-" + name).endMetadata().withNewSpec()
        .withStorageClassName(className).endSpec());
  }

  static PodBuilder pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid(UUID.randomUUID().toString()).endMetadata().withNewSpec().endSpec();
  }

  static Pod podWithClaims(String name, String... claims) {
    PodBuilder b = pod(name);
    for (String claim : claims) {
      b.editSpec().addToVolumes(new VolumeBuilder().withName("vol-" + claim)
          .withNewPersistentVolumeClaim().withClaimName(claim).endPersistentVolumeClaim().build())
          .endSpec();
    }
    return b.build();
  }

  /** A small fluent wrapper like upstream's pvBuilder. */
  static final class PvBuilder {
    private final PersistentVolumeBuilder b;

    PvBuilder(PersistentVolumeBuilder b) {
      this.b = b;
    }

    PvBuilder phase(String phase) {
      b.editOrNewStatus().withPhase(phase).endStatus();
      return this;
    }

    PvBuilder available() {
      return phase("Available");
    }

    PvBuilder capacity(String q) {
      b.editSpec().addToCapacity("storage", new Quantity(q)).endSpec();
      return this;
    }

    PvBuilder nodeAffinity(String key, String... values) {
      b.editSpec().withNewNodeAffinity().withNewRequired().addNewNodeSelectorTerm()
          .withMatchExpressions(new NodeSelectorRequirementBuilder().withKey(key)
              .withOperator("In").withValues(values).build())
          .endNodeSelectorTerm().endRequired().endNodeAffinity().endSpec();
      return this;
    }

    PvBuilder accessModes(String... modes) {
      b.editSpec().withAccessModes(modes).endSpec();
      return this;
    }

    PvBuilder version(String rv) {
      b.editMetadata().withResourceVersion(rv).endMetadata();
      return this;
    }

    PvBuilder claimRef(String namespace, String name) {
      b.editSpec().withNewClaimRef().withNamespace(namespace).withName(name).endClaimRef()
          .endSpec();
      return this;
    }

    PvBuilder labels(String key, String value) {
      b.editMetadata().addToLabels(key, value).endMetadata();
      return this;
    }

    PvBuilder volumeMode(String mode) {
      b.editSpec().withVolumeMode(mode).endSpec();
      return this;
    }

    PvBuilder deleting() {
      b.editMetadata().withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata();
      return this;
    }

    PersistentVolume build() {
      return b.build();
    }
  }

  /** A small fluent wrapper like upstream's pvcBuilder. */
  static final class PvcBuilder {
    private final PersistentVolumeClaimBuilder b;

    PvcBuilder(PersistentVolumeClaimBuilder b) {
      this.b = b;
    }

    PvcBuilder boundTo(String pvName) {
      b.editSpec().withVolumeName(pvName).endSpec().editMetadata()
          .addToAnnotations(VolumeHelpers.ANN_BIND_COMPLETED, "true").endMetadata();
      return this;
    }

    PvcBuilder preBoundTo(String pvName) {
      b.editSpec().withVolumeName(pvName).endSpec();
      return this;
    }

    PvcBuilder request(String q) {
      b.editSpec().withNewResources().addToRequests("storage", new Quantity(q)).endResources()
          .endSpec();
      return this;
    }

    PvcBuilder phase(String phase) {
      b.editOrNewStatus().withPhase(phase).endStatus();
      return this;
    }

    PvcBuilder accessModes(String... modes) {
      b.editSpec().withAccessModes(List.of(modes)).endSpec();
      return this;
    }

    PvcBuilder annotation(String key, String value) {
      b.editMetadata().addToAnnotations(key, value).endMetadata();
      return this;
    }

    PvcBuilder deleting() {
      b.editMetadata().withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata();
      return this;
    }

    PvcBuilder selector(String key, String value) {
      b.editSpec().withNewSelector().addToMatchLabels(key, value).endSelector().endSpec();
      return this;
    }

    PvcBuilder volumeMode(String mode) {
      b.editSpec().withVolumeMode(mode).endSpec();
      return this;
    }

    PersistentVolumeClaim build() {
      return b.build();
    }
  }
}
