package io.berth.simulator.scenario;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Checks one Kubernetes object of a scenario before anything starts: that the simulator knows its kind and
 * apiVersion, that its name is a valid object name, and, for the kinds scenarios use to place pods (Pod,
 * Deployment, ReplicaSet, PriorityClass, PodGroup), the fields the API server would reject: containers without a
 * name or image, malformed quantities, a request above its limit, a selector that does not match the template's
 * labels, bad tolerations and topology spread constraints, a PodGroup's {@code minMember}. Messages follow
 * upstream validation's wording. Stateless; the problems go to the caller's {@link Problems}.
 */
final class ManifestValidator {

  /** The kinds a scenario may create, by kind, with the apiVersion the embedded API server serves them as. */
  static final Map<String, String> KINDS = Map.ofEntries(
      Map.entry("Namespace", "v1"), Map.entry("Pod", "v1"), Map.entry("ConfigMap", "v1"),
      Map.entry("Service", "v1"), Map.entry("PersistentVolume", "v1"), Map.entry("PersistentVolumeClaim", "v1"),
      Map.entry("ResourceQuota", "v1"), Map.entry("Deployment", "apps/v1"), Map.entry("ReplicaSet", "apps/v1"),
      Map.entry("PriorityClass", "scheduling.k8s.io/v1"), Map.entry("PodDisruptionBudget", "policy/v1"),
      Map.entry("StorageClass", "storage.k8s.io/v1"),
      Map.entry("CustomResourceDefinition", "apiextensions.k8s.io/v1"),
      Map.entry("PodGroup", "scheduling.x-k8s.io/v1alpha1"),
      Map.entry("ResourceClaimTemplate", "resource.k8s.io/v1"), Map.entry("ResourceClaim", "resource.k8s.io/v1"),
      Map.entry("DeviceClass", "resource.k8s.io/v1"));

  static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "PersistentVolume", "PriorityClass",
      "StorageClass", "CustomResourceDefinition", "DeviceClass");

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  // upstream's resource.Quantity grammar, loosely: a signed decimal, then a binary/decimal suffix or an exponent
  private static final Pattern QUANTITY =
      Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");
  private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");

  private ManifestValidator() {
  }

  /** The object's label for messages: {@code Deployment demo/web}, or what is known of it. */
  static String label(JsonNode object) {
    String kind = object.path("kind").isString() ? object.path("kind").stringValue() : "object";
    JsonNode meta = object.path("metadata");
    String name = meta.path("name").isString() ? meta.path("name").stringValue() : "";
    String ns = meta.path("namespace").isString() ? meta.path("namespace").stringValue() : "";
    if (ns.isEmpty() && KINDS.containsKey(kind) && !CLUSTER_SCOPED.contains(kind) && !name.isEmpty()) {
      ns = "default";
    }
    return (kind + " " + (ns.isEmpty() ? name : ns + "/" + name)).trim();
  }

  /**
   * Validates {@code object} (fields reported under {@code prefix}, empty for a document of its own) and collects
   * the priority classes its pods name into {@code priorityClassRefs} (as {@code field -> name}).
   */
  static void validate(JsonNode object, String prefix, Problems problems, Map<String, String> priorityClassRefs) {
    if (!object.isObject()) {
      problems.invalid(prefix.isEmpty() ? "<document>" : prefix, nodeType(object), "must be a mapping");
      return;
    }
    String kind = text(object, "kind", prefix, problems, true);
    String apiVersion = text(object, "apiVersion", prefix, problems, true);
    if (kind != null && !KINDS.containsKey(kind)) {
      problems.add(path(prefix, "kind"), "Unsupported value: " + Problems.quote(kind) + ": supported kinds: "
          + String.join(", ", new java.util.TreeSet<>(KINDS.keySet())) + " (nodes go in the Scenario document)");
      return;
    }
    if (kind != null && apiVersion != null && !KINDS.get(kind).equals(apiVersion)) {
      problems.add(path(prefix, "apiVersion"), "Unsupported value: " + Problems.quote(apiVersion) + ": " + kind
          + " is served as " + KINDS.get(kind));
    }
    JsonNode meta = object.path("metadata");
    String metaPath = path(prefix, "metadata");
    if (!meta.isObject()) {
      problems.required(metaPath);
    } else {
      String name = text(meta, "name", metaPath, problems, true);
      if (name != null && (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches())) {
        problems.invalid(metaPath + ".name", name, "a lowercase RFC 1123 subdomain must consist of lower case "
            + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
      }
      String ns = text(meta, "namespace", metaPath, problems, false);
      if (ns != null && kind != null && CLUSTER_SCOPED.contains(kind)) {
        problems.invalid(metaPath + ".namespace", ns, kind + " is cluster-scoped");
      } else if (ns != null && !DNS_LABEL.matcher(ns).matches()) {
        problems.invalid(metaPath + ".namespace", ns, "a lowercase RFC 1123 label must consist of lower case "
            + "alphanumeric characters or '-', and must start and end with an alphanumeric character");
      }
      stringMap(meta.path("labels"), metaPath + ".labels", problems);
    }
    if (kind == null) {
      return;
    }
    switch (kind) {
      case "Pod" -> podSpec(object.path("spec"), path(prefix, "spec"), problems, priorityClassRefs);
      case "Deployment", "ReplicaSet" -> workload(object, prefix, problems, priorityClassRefs);
      case "PriorityClass" -> {
        JsonNode value = object.path("value");
        if (value.isMissingNode()) {
          problems.required(path(prefix, "value"));
        } else if (!value.isIntegralNumber() || !value.canConvertToInt()) {
          problems.invalid(path(prefix, "value"), value, "must be a 32-bit integer");
        }
      }
      case "PodGroup" -> podGroup(object.path("spec"), path(prefix, "spec"), problems);
      default -> {
        // created as given; the API server's own validation applies
      }
    }
  }

  private static void workload(JsonNode object, String prefix, Problems problems, Map<String, String> refs) {
    String spec = path(prefix, "spec");
    JsonNode s = object.path("spec");
    if (!s.isObject()) {
      problems.required(spec);
      return;
    }
    JsonNode replicas = s.path("replicas");
    if (!replicas.isMissingNode() && (!replicas.isIntegralNumber() || replicas.asLong() < 0)) {
      problems.invalid(spec + ".replicas", replicas,
          "must be greater than or equal to 0");
    }
    JsonNode selector = s.path("selector");
    JsonNode matchLabels = selector.path("matchLabels");
    if (!selector.isObject() || (matchLabels.isMissingNode() && selector.path("matchExpressions").isMissingNode())) {
      problems.required(spec + ".selector");
    }
    stringMap(matchLabels, spec + ".selector.matchLabels", problems);
    JsonNode template = s.path("template");
    if (!template.isObject()) {
      problems.required(spec + ".template");
      return;
    }
    JsonNode labels = template.path("metadata").path("labels");
    if (matchLabels.isObject()) {
      for (Map.Entry<String, JsonNode> e : matchLabels.properties()) {
        if (!labels.path(e.getKey()).isString() || !labels.path(e.getKey()).stringValue()
            .equals(e.getValue().asString())) {
          problems.invalid(spec + ".template.metadata.labels", labels.isObject() ? labels : "{}",
              "`selector` does not match template `labels`");
          break;
        }
      }
    }
    JsonNode strategy = s.path("strategy").path("type");
    if (object.path("kind").stringValue().equals("Deployment") && !strategy.isMissingNode()
        && !Set.of("RollingUpdate", "Recreate").contains(strategy.asString())) {
      problems.add(spec + ".strategy.type", "Unsupported value: " + Problems.quote(strategy.asString())
          + ": supported values: \"Recreate\", \"RollingUpdate\"");
    }
    podSpec(template.path("spec"), spec + ".template.spec", problems, refs);
  }

  private static void podSpec(JsonNode spec, String path, Problems problems, Map<String, String> refs) {
    if (!spec.isObject()) {
      problems.required(path);
      return;
    }
    containers(spec.path("containers"), path + ".containers", true, problems);
    containers(spec.path("initContainers"), path + ".initContainers", false, problems);
    JsonNode pc = spec.path("priorityClassName");
    if (pc.isString()) {
      refs.put(path + ".priorityClassName", pc.stringValue());
    }
    JsonNode tolerations = spec.path("tolerations");
    for (int i = 0; tolerations.isArray() && i < tolerations.size(); i++) {
      JsonNode t = tolerations.get(i);
      String tp = path + ".tolerations[" + i + "]";
      String op = t.path("operator").asString("Equal");
      if (!op.equals("Equal") && !op.equals("Exists")) {
        problems.add(tp + ".operator", "Unsupported value: " + Problems.quote(op)
            + ": supported values: \"Equal\", \"Exists\"");
      } else if (op.equals("Exists") && !t.path("value").asString("").isEmpty()) {
        problems.invalid(tp + ".operator", op, "value must be empty when `operator` is 'Exists'");
      }
      String effect = t.path("effect").asString("");
      if (!effect.isEmpty() && !EFFECTS.contains(effect)) {
        problems.add(tp + ".effect", "Unsupported value: " + Problems.quote(effect)
            + ": supported values: \"NoExecute\", \"NoSchedule\", \"PreferNoSchedule\"");
      }
    }
    JsonNode spread = spec.path("topologySpreadConstraints");
    for (int i = 0; spread.isArray() && i < spread.size(); i++) {
      JsonNode c = spread.get(i);
      String cp = path + ".topologySpreadConstraints[" + i + "]";
      if (!c.path("maxSkew").isIntegralNumber() || c.path("maxSkew").asLong() < 1) {
        problems.invalid(cp + ".maxSkew", c.path("maxSkew").isMissingNode() ? 0 : c.path("maxSkew"),
            "must be greater than zero");
      }
      if (c.path("topologyKey").asString("").isEmpty()) {
        problems.required(cp + ".topologyKey");
      }
      String when = c.path("whenUnsatisfiable").asString("");
      if (!when.equals("DoNotSchedule") && !when.equals("ScheduleAnyway")) {
        problems.add(cp + ".whenUnsatisfiable", "Unsupported value: " + Problems.quote(when)
            + ": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
      }
    }
    stringMap(spec.path("nodeSelector"), path + ".nodeSelector", problems);
  }

  private static void containers(JsonNode list, String path, boolean required, Problems problems) {
    if (list.isMissingNode() || list.isNull()) {
      if (required) {
        problems.required(path);
      }
      return;
    }
    if (!list.isArray() || (required && list.isEmpty())) {
      problems.required(path);
      return;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode c = list.get(i);
      String cp = path + "[" + i + "]";
      String name = text(c, "name", cp, problems, true);
      if (name != null && !DNS_LABEL.matcher(name).matches()) {
        problems.invalid(cp + ".name", name, "a lowercase RFC 1123 label must consist of lower case alphanumeric "
            + "characters or '-', and must start and end with an alphanumeric character");
      } else if (name != null && !names.add(name)) {
        problems.add(cp + ".name", "Duplicate value: " + Problems.quote(name));
      }
      text(c, "image", cp, problems, true);
      JsonNode resources = c.path("resources");
      quantities(resources.path("requests"), cp + ".resources.requests", problems);
      quantities(resources.path("limits"), cp + ".resources.limits", problems);
      for (String r : new String[] {"cpu", "memory"}) {
        JsonNode req = resources.path("requests").path(r);
        JsonNode lim = resources.path("limits").path(r);
        if (isQuantity(req) && isQuantity(lim) && amount(req).compareTo(amount(lim)) > 0) {
          problems.invalid(cp + ".resources.requests", req.asString(), "must be less than or equal to " + r
              + " limit of " + lim.asString());
        }
      }
    }
  }

  private static void podGroup(JsonNode spec, String path, Problems problems) {
    if (!spec.isObject()) {
      problems.required(path);
      return;
    }
    JsonNode min = spec.path("minMember");
    if (min.isMissingNode()) {
      problems.required(path + ".minMember");
    } else if (!min.isIntegralNumber() || min.asLong() < 1 || !min.canConvertToInt()) {
      problems.invalid(path + ".minMember", min,
          "must be greater than or equal to 1");
    }
    JsonNode timeout = spec.path("scheduleTimeoutSeconds");
    if (!timeout.isMissingNode() && (!timeout.isIntegralNumber() || timeout.asLong() < 0)) {
      problems.invalid(path + ".scheduleTimeoutSeconds", timeout, "must be greater than or equal to 0");
    }
    quantities(spec.path("minResources"), path + ".minResources", problems);
  }

  static void quantities(JsonNode map, String path, Problems problems) {
    if (map.isMissingNode() || map.isNull()) {
      return;
    }
    if (!map.isObject()) {
      problems.invalid(path, map, "must be a map of resource name to quantity");
      return;
    }
    for (Map.Entry<String, JsonNode> e : map.properties()) {
      if (!isQuantity(e.getValue())) {
        problems.invalid(path + "[" + e.getKey() + "]", e.getValue(), "quantities must match the regular expression "
            + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
      }
    }
  }

  static boolean isQuantity(JsonNode value) {
    return (value.isString() && QUANTITY.matcher(value.stringValue()).matches())
        || (value.isNumber() && value.asDouble() >= 0);
  }

  private static java.math.BigDecimal amount(JsonNode q) {
    return io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
        new io.fabric8.kubernetes.api.model.Quantity(q.asString()));
  }

  static void stringMap(JsonNode map, String path, Problems problems) {
    if (map.isMissingNode() || map.isNull()) {
      return;
    }
    if (!map.isObject()) {
      problems.invalid(path, map, "must be a map of strings");
      return;
    }
    for (Map.Entry<String, JsonNode> e : map.properties()) {
      if (!e.getValue().isString()) {
        problems.invalid(path + "[" + e.getKey() + "]", e.getValue(), "must be a string (quote it in YAML)");
      }
    }
  }

  /** The string at {@code field} of {@code object}, or null (reported when required, or when not a string). */
  static String text(JsonNode object, String field, String prefix, Problems problems, boolean required) {
    JsonNode v = object.path(field);
    if (v.isMissingNode() || v.isNull() || (v.isString() && v.stringValue().isEmpty())) {
      if (required) {
        problems.required(path(prefix, field));
      }
      return null;
    }
    if (!v.isString()) {
      problems.invalid(path(prefix, field), v, "must be a string");
      return null;
    }
    return v.stringValue();
  }

  static String path(String prefix, String field) {
    return prefix.isEmpty() ? field : prefix + "." + field;
  }

  /** The value as messages show it: strings quoted, anything else as JSON. */
  static Object nodeType(JsonNode node) {
    return node;
  }
}
