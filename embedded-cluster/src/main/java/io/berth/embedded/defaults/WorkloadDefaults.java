package io.berth.embedded.defaults;

import static io.berth.embedded.defaults.JsonFields.defaultPointer;
import static io.berth.embedded.defaults.JsonFields.defaultString;
import static io.berth.embedded.defaults.JsonFields.existingObject;
import static io.berth.embedded.defaults.JsonFields.objects;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Defaults of the workload kinds that carry a pod template, from {@code pkg/apis/apps/v1/defaults.go}
 * (Deployment, ReplicaSet, StatefulSet, DaemonSet) and {@code pkg/apis/core/v1/defaults.go}
 * (ReplicationController, PodTemplate). Their templates get {@link PodSpecDefaults} but none of the
 * Pod-only defaults. Mutates the given tree; stateless, thread-safe.
 */
final class WorkloadDefaults {

  private WorkloadDefaults() {}

  /** {@code SetDefaults_Deployment}. */
  static void deployment(ObjectNode deployment) {
    ObjectNode spec = JsonFields.object(deployment, "spec");
    defaultPointer(spec, "replicas", 1);
    ObjectNode strategy = JsonFields.object(spec, "strategy");
    defaultString(strategy, "type", "RollingUpdate");
    if ("RollingUpdate".equals(JsonFields.string(strategy, "type"))) {
      ObjectNode rollingUpdate = JsonFields.object(strategy, "rollingUpdate");
      defaultPointer(rollingUpdate, "maxUnavailable", "25%");
      defaultPointer(rollingUpdate, "maxSurge", "25%");
    }
    defaultPointer(spec, "revisionHistoryLimit", 10);
    defaultPointer(spec, "progressDeadlineSeconds", 600);
    template(spec);
  }

  /** {@code SetDefaults_ReplicaSet}. */
  static void replicaSet(ObjectNode replicaSet) {
    ObjectNode spec = JsonFields.object(replicaSet, "spec");
    defaultPointer(spec, "replicas", 1);
    template(spec);
  }

  /**
   * {@code SetDefaults_StatefulSet} with StatefulSetAutoDeletePVC (GA) on; each volume claim template
   * gets the PersistentVolumeClaim defaults (including {@code status.phase: Pending}, as upstream's
   * generated defaulter does).
   */
  static void statefulSet(ObjectNode statefulSet) {
    ObjectNode spec = JsonFields.object(statefulSet, "spec");
    defaultString(spec, "podManagementPolicy", "OrderedReady");
    ObjectNode updateStrategy = JsonFields.object(spec, "updateStrategy");
    if (JsonFields.isEmptyString(updateStrategy, "type")) {
      updateStrategy.put("type", "RollingUpdate");
      JsonFields.object(updateStrategy, "rollingUpdate");
    }
    ObjectNode rollingUpdate = existingObject(updateStrategy, "rollingUpdate");
    if ("RollingUpdate".equals(JsonFields.string(updateStrategy, "type")) && rollingUpdate != null) {
      defaultPointer(rollingUpdate, "partition", 0);
    }
    ObjectNode retention = JsonFields.object(spec, "persistentVolumeClaimRetentionPolicy");
    defaultString(retention, "whenDeleted", "Retain");
    defaultString(retention, "whenScaled", "Retain");
    defaultPointer(spec, "replicas", 1);
    defaultPointer(spec, "revisionHistoryLimit", 10);
    for (ObjectNode claim : objects(spec, "volumeClaimTemplates")) {
      CoreObjectDefaults.persistentVolumeClaim(claim);
    }
    template(spec);
  }

  /** {@code SetDefaults_DaemonSet}. */
  static void daemonSet(ObjectNode daemonSet) {
    ObjectNode spec = JsonFields.object(daemonSet, "spec");
    ObjectNode updateStrategy = JsonFields.object(spec, "updateStrategy");
    defaultString(updateStrategy, "type", "RollingUpdate");
    if ("RollingUpdate".equals(JsonFields.string(updateStrategy, "type"))) {
      ObjectNode rollingUpdate = JsonFields.object(updateStrategy, "rollingUpdate");
      defaultPointer(rollingUpdate, "maxUnavailable", 1);
      defaultPointer(rollingUpdate, "maxSurge", 0);
    }
    defaultPointer(spec, "revisionHistoryLimit", 10);
    template(spec);
  }

  /**
   * {@code SetDefaults_ReplicationController} (selector and labels from the template's labels) and the
   * declarative {@code replicas: 1}.
   */
  static void replicationController(ObjectNode controller) {
    ObjectNode spec = JsonFields.object(controller, "spec");
    defaultPointer(spec, "replicas", 1);
    ObjectNode templateLabels = existingObject(existingObject(existingObject(spec, "template"), "metadata"), "labels");
    if (templateLabels != null) {
      JsonNode selector = spec.get("selector");
      if (selector == null || selector.isNull() || selector.isEmpty()) {
        spec.set("selector", templateLabels.deepCopy());
      }
      ObjectNode metadata = JsonFields.object(controller, "metadata");
      JsonNode labels = metadata.get("labels");
      if (labels == null || labels.isNull() || labels.isEmpty()) {
        metadata.set("labels", templateLabels.deepCopy());
      }
    }
    template(spec);
  }

  /** A PodTemplate object: only its template's PodSpec defaults. */
  static void podTemplate(ObjectNode podTemplate) {
    template(podTemplate);
  }

  private static void template(ObjectNode owner) {
    ObjectNode podSpec = existingObject(existingObject(owner, "template"), "spec");
    if (podSpec != null) {
      PodSpecDefaults.applyToPodSpec(podSpec);
    }
  }
}
