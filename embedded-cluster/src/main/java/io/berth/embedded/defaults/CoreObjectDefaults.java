package io.berth.embedded.defaults;

import static io.berth.embedded.defaults.JsonFields.defaultPointer;
import static io.berth.embedded.defaults.JsonFields.defaultString;
import static io.berth.embedded.defaults.JsonFields.existingObject;
import static io.berth.embedded.defaults.JsonFields.objects;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Defaults of the non-workload core kinds Berth's tests create, from
 * {@code pkg/apis/core/v1/defaults.go} ({@code SetDefaults_Service}, {@code _PersistentVolumeClaim},
 * {@code _PersistentVolume}, {@code _Namespace}, {@code _NamespaceStatus}, {@code _NodeStatus},
 * {@code _Secret}), the namespace strategy's {@code PrepareForCreate} (the {@code kubernetes}
 * finalizer) and {@code scheduling/v1}'s {@code SetDefaults_PriorityClass}. Mutates the given tree;
 * stateless, thread-safe.
 */
final class CoreObjectDefaults {

  static final String METADATA_NAME_LABEL = "kubernetes.io/metadata.name";
  static final String KUBERNETES_FINALIZER = "kubernetes";
  static final int DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

  private CoreObjectDefaults() {}

  /** {@code SetDefaults_Service}. Cluster IPs and IP families are allocated by the service registry, not here. */
  static void service(ObjectNode service) {
    ObjectNode spec = JsonFields.object(service, "spec");
    defaultString(spec, "sessionAffinity", "None");
    String affinity = JsonFields.string(spec, "sessionAffinity");
    if (affinity.equals("None")) {
      spec.remove("sessionAffinityConfig");
    } else if (affinity.equals("ClientIP")) {
      ObjectNode clientIp = existingObject(existingObject(spec, "sessionAffinityConfig"), "clientIP");
      if (clientIp == null || JsonFields.isNil(clientIp, "timeoutSeconds")) {
        spec.putObject("sessionAffinityConfig").putObject("clientIP")
            .put("timeoutSeconds", DEFAULT_CLIENT_IP_AFFINITY_SECONDS);
      }
    }
    defaultString(spec, "type", "ClusterIP");
    String type = JsonFields.string(spec, "type");
    for (ObjectNode port : objects(spec, "ports")) {
      defaultString(port, "protocol", "TCP");
      JsonNode targetPort = port.get("targetPort");
      boolean zero = targetPort == null || targetPort.isNull()
          || (targetPort.isNumber() && targetPort.asInt() == 0)
          || (targetPort.isString() && targetPort.stringValue().isEmpty());
      if (zero && port.path("port").isNumber()) {
        port.set("targetPort", port.get("port"));
      }
    }
    boolean externallyAccessible = type.equals("LoadBalancer") || type.equals("NodePort")
        || (type.equals("ClusterIP") && JsonFields.hasElements(spec, "externalIPs"));
    if (externallyAccessible) {
      defaultString(spec, "externalTrafficPolicy", "Cluster");
    }
    if (type.equals("NodePort") || type.equals("LoadBalancer") || type.equals("ClusterIP")) {
      defaultPointer(spec, "internalTrafficPolicy", "Cluster");
    }
    if (type.equals("LoadBalancer")) {
      defaultPointer(spec, "allocateLoadBalancerNodePorts", true);
      ObjectNode loadBalancer = existingObject(existingObject(service, "status"), "loadBalancer");
      for (ObjectNode ingress : objects(loadBalancer, "ingress")) {
        if (!JsonFields.string(ingress, "ip").isEmpty()) {
          defaultPointer(ingress, "ipMode", "VIP");
        }
      }
    }
  }

  /** {@code SetDefaults_PersistentVolumeClaim} and {@code _PersistentVolumeClaimSpec}. */
  static void persistentVolumeClaim(ObjectNode claim) {
    defaultString(JsonFields.object(claim, "status"), "phase", "Pending");
    defaultPointer(JsonFields.object(claim, "spec"), "volumeMode", "Filesystem");
  }

  /** {@code SetDefaults_PersistentVolume}. */
  static void persistentVolume(ObjectNode volume) {
    defaultString(JsonFields.object(volume, "status"), "phase", "Pending");
    ObjectNode spec = JsonFields.object(volume, "spec");
    defaultString(spec, "persistentVolumeReclaimPolicy", "Retain");
    defaultPointer(spec, "volumeMode", "Filesystem");
  }

  /** {@code SetDefaults_Namespace} and {@code _NamespaceStatus}; every decode, so create and update. */
  static void namespace(ObjectNode namespace) {
    String name = JsonFields.string(namespace.path("metadata"), "name");
    if (!name.isEmpty()) {
      JsonFields.object(JsonFields.object(namespace, "metadata"), "labels").put(METADATA_NAME_LABEL, name);
    }
    defaultString(JsonFields.object(namespace, "status"), "phase", "Active");
  }

  /** The namespace strategy's {@code PrepareForCreate}: the {@code kubernetes} finalizer is required on create. */
  static void namespaceOnCreate(ObjectNode namespace) {
    ObjectNode spec = JsonFields.object(namespace, "spec");
    JsonNode existing = spec.get("finalizers");
    ArrayNode finalizers = existing != null && existing.isArray() ? (ArrayNode) existing : spec.putArray("finalizers");
    for (JsonNode finalizer : finalizers) {
      if (KUBERNETES_FINALIZER.equals(finalizer.asString(""))) {
        return;
      }
    }
    finalizers.add(KUBERNETES_FINALIZER);
  }

  /** {@code SetDefaults_NodeStatus}: allocatable defaults to capacity. */
  static void node(ObjectNode node) {
    ObjectNode status = existingObject(node, "status");
    ObjectNode capacity = existingObject(status, "capacity");
    if (capacity != null && JsonFields.isNil(status, "allocatable")) {
      status.set("allocatable", capacity.deepCopy());
    }
  }

  /** {@code SetDefaults_Secret}. */
  static void secret(ObjectNode secret) {
    defaultString(secret, "type", "Opaque");
  }

  /** {@code SetDefaults_PriorityClass}. */
  static void priorityClass(ObjectNode priorityClass) {
    defaultPointer(priorityClass, "preemptionPolicy", PriorityClassInfo.PREEMPT_LOWER_PRIORITY);
  }
}
