package io.berth.embedded.server;

import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The validation kube-apiserver performs that clients of the embedded server depend on: object names, pods'
 * containers, workloads' selectors against their template labels and non-negative replica counts, the
 * {@code resource.k8s.io} objects ({@link ResourceApiValidation}) and Events ({@link EventValidation}). Every failure is
 * a 422 Invalid naming the object and the field. Stateless and thread-safe.
 */
final class Validation {

  private Validation() {
  }

  static void validateName(ResourceType type, String name) {
    if (type.group().equals("rbac.authorization.k8s.io")) {
      validatePathSegmentName(type, name);
      return;
    }
    boolean label = type == ResourceTypes.NAMESPACES || type == ResourceTypes.SERVICES;
    int max = label ? 63 : 253;
    if (name.length() > max || !(label ? DnsNames.isLabel(name) : DnsNames.isSubdomain(name))) {
      throw ApiException.invalid(type, name, "metadata.name: Invalid value: \"" + name + "\": a lowercase RFC 1123 "
          + (label ? "label" : "subdomain") + " must consist of lower case alphanumeric characters, '-'"
          + (label ? "" : " or '.'") + ", and must start and end with an alphanumeric character (at most " + max
          + " characters)");
    }
  }

  /** What an update may not change: a binding's roleRef. */
  static void validateUpdate(ResourceType type, JsonNode current, JsonNode next) {
    if (type == ResourceTypes.ROLE_BINDINGS || type == ResourceTypes.CLUSTER_ROLE_BINDINGS) {
      RbacValidation.validateRoleRefUnchanged(type, Json.text(next, "metadata", "name"), current, next);
    } else if (ResourceApiValidation.covers(type)) {
      ResourceApiValidation.validateUpdate(type, current, next);
    }
  }

  /** What a {@code /status} write may set ({@code next}: the stored object with the new status). */
  static void validateStatusUpdate(ResourceType type, JsonNode current, JsonNode next) {
    if (ResourceApiValidation.covers(type)) {
      ResourceApiValidation.validateStatusUpdate(type, current, next);
    }
  }

  /** RBAC objects' names are path segments upstream ({@code system:discovery} is valid). */
  private static void validatePathSegmentName(ResourceType type, String name) {
    String why = null;
    if (name.equals(".") || name.equals("..")) {
      why = "may not be '" + name + "'";
    } else if (name.contains("/")) {
      why = "may not contain '/'";
    } else if (name.contains("%")) {
      why = "may not contain '%'";
    }
    if (why != null) {
      throw ApiException.invalid(type, name, "metadata.name: Invalid value: \"" + name + "\": " + why);
    }
  }

  static void validate(ResourceType type, JsonNode obj) {
    String name = Json.text(obj, "metadata", "name");
    if (type == ResourceTypes.PODS) {
      validatePodSpec(type, name, obj.path("spec"), "spec");
    } else if (type.openApiSchema() != null && obj instanceof tools.jackson.databind.node.ObjectNode o) {
      CustomResourceSchema.apply(type, o, type.openApiSchema());
    } else if (type.equals(ResourceTypes.CUSTOM_RESOURCE_DEFINITIONS)) {
      CustomResourceDefinitionSpec.parse(obj);
    } else if (type.group().equals(RbacValidation.GROUP)) {
      RbacValidation.validate(type, name, obj);
    } else if (type == ResourceTypes.DEPLOYMENTS || type == ResourceTypes.REPLICA_SETS
        || type == ResourceTypes.STATEFUL_SETS || type == ResourceTypes.DAEMON_SETS) {
      validateWorkload(type, name, obj);
    } else if (ResourceApiValidation.covers(type)) {
      ResourceApiValidation.validate(type, obj);
    } else if (type == ResourceTypes.EVENTS) {
      EventValidation.validate(type, obj);
    }
  }

  private static void validatePodSpec(ResourceType type, String name, JsonNode spec, String path) {
    JsonNode containers = Json.at(spec, "containers");
    if (containers == null || !containers.isArray() || containers.isEmpty()) {
      throw ApiException.invalid(type, name, path + ".containers: Required value");
    }
    int i = 0;
    for (JsonNode c : containers.values()) {
      String field = path + ".containers[" + i + "]";
      if (Json.text(c, "name") == null || Json.text(c, "name").isEmpty()) {
        throw ApiException.invalid(type, name, field + ".name: Required value");
      }
      if (Json.text(c, "image") == null || Json.text(c, "image").isEmpty()) {
        throw ApiException.invalid(type, name, field + ".image: Required value");
      }
      i++;
    }
  }

  private static void validateWorkload(ResourceType type, String name, JsonNode obj) {
    JsonNode replicas = Json.at(obj, "spec", "replicas");
    if (replicas != null && replicas.asLong(0) < 0) {
      throw ApiException.invalid(type, name, "spec.replicas: Invalid value: " + replicas.asLong()
          + ": must be greater than or equal to 0");
    }
    JsonNode selector = Json.at(obj, "spec", "selector");
    if (selector == null || selector.isEmpty()) {
      throw ApiException.invalid(type, name, "spec.selector: Required value");
    }
    Map<String, String> templateLabels = Json.stringMap(obj, "spec", "template", "metadata", "labels");
    Map<String, String> matchLabels = Json.stringMap(selector, "matchLabels");
    for (Map.Entry<String, String> e : matchLabels.entrySet()) {
      if (!e.getValue().equals(templateLabels.get(e.getKey()))) {
        throw ApiException.invalid(type, name, "spec.template.metadata.labels: Invalid value: "
            + templateLabels + ": `selector` does not match template `labels`");
      }
    }
    validatePodSpec(type, name, obj.path("spec").path("template").path("spec"), "spec.template.spec");
  }
}
