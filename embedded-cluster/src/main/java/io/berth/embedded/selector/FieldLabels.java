package io.berth.embedded.selector;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * The field labels kube-apiserver lets a field selector use, per resource, and their values for a given
 * object. The supported sets follow the scheme's field-label conversion functions
 * ({@code pkg/apis/core/v1/conversion.go}, {@code apps/v1}, {@code batch/v1}, {@code events/v1},
 * {@code resource/v1}: a ResourceSlice's {@code spec.nodeName} and {@code spec.driver}); the
 * values follow each registry's {@code ToSelectableFields} ({@code pkg/registry/core/pod/strategy.go}
 * and friends). Resources without their own table support {@code metadata.name} and
 * {@code metadata.namespace}, as upstream's default conversion does; Node supports only
 * {@code metadata.name} and {@code spec.unschedulable}, Namespace only {@code metadata.name} and
 * {@code status.phase} (upstream rejects {@code metadata.namespace} for both).
 *
 * <p>Upstream quirks kept: a Pod's {@code status.podIPs} is accepted but never present in the field set
 * (so it always reads as ""); {@code status.podIP} is the first of {@code status.podIPs}; the legacy
 * {@code spec.host} selects on {@code spec.nodeName}. Stateless and thread-safe.
 */
public final class FieldLabels {

  private record ResourceKey(String group, String resource) {}

  /** A resource's field labels and how to read them from an object tree. */
  private record Table(Set<String> supported, BiConsumer<JsonNode, Map<String, String>> extractor) {}

  private static final Set<String> META_NAME_NAMESPACE = Set.of("metadata.name", "metadata.namespace");
  private static final Table DEFAULT_TABLE = new Table(META_NAME_NAMESPACE, (obj, out) -> {});
  private static final Map<ResourceKey, Table> TABLES = Map.ofEntries(
      Map.entry(new ResourceKey("", "pods"), new Table(
          with(META_NAME_NAMESPACE, "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
              "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
              "status.nominatedNodeName", "spec.host"),
          FieldLabels::podFields)),
      Map.entry(new ResourceKey("", "nodes"), new Table(
          Set.of("metadata.name", "spec.unschedulable"),
          (obj, out) -> out.put("spec.unschedulable", bool(obj.path("spec").path("unschedulable"))))),
      Map.entry(new ResourceKey("", "namespaces"), new Table(
          Set.of("metadata.name", "status.phase"),
          (obj, out) -> out.put("status.phase", text(obj.path("status").path("phase"))))),
      Map.entry(new ResourceKey("", "events"), new Table(
          with(META_NAME_NAMESPACE, "involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
              "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
              "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"),
          FieldLabels::coreEventFields)),
      Map.entry(new ResourceKey("events.k8s.io", "events"), new Table(
          with(META_NAME_NAMESPACE, "regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
              "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
              "reportingController", "type"),
          FieldLabels::eventsV1Fields)),
      Map.entry(new ResourceKey("apps", "replicasets"), new Table(
          with(META_NAME_NAMESPACE, "status.replicas"),
          (obj, out) -> out.put("status.replicas", integer(obj.path("status").path("replicas"))))),
      Map.entry(new ResourceKey("", "replicationcontrollers"), new Table(
          with(META_NAME_NAMESPACE, "status.replicas"),
          (obj, out) -> out.put("status.replicas", integer(obj.path("status").path("replicas"))))),
      Map.entry(new ResourceKey("", "secrets"), new Table(
          with(META_NAME_NAMESPACE, "type"),
          (obj, out) -> out.put("type", text(obj.path("type"))))),
      Map.entry(new ResourceKey("", "services"), new Table(
          with(META_NAME_NAMESPACE, "spec.clusterIP", "spec.type"),
          (obj, out) -> {
            out.put("spec.clusterIP", text(obj.path("spec").path("clusterIP")));
            out.put("spec.type", text(obj.path("spec").path("type")));
          })),
      Map.entry(new ResourceKey("batch", "jobs"), new Table(
          with(META_NAME_NAMESPACE, "status.successful"),
          (obj, out) -> out.put("status.successful", integer(obj.path("status").path("successful"))))),
      Map.entry(new ResourceKey("resource.k8s.io", "resourceslices"), new Table(
          Set.of("metadata.name", "spec.nodeName", "spec.driver"),
          (obj, out) -> {
            out.put("spec.nodeName", text(obj.path("spec").path("nodeName")));
            out.put("spec.driver", text(obj.path("spec").path("driver")));
          })),
      Map.entry(new ResourceKey("certificates.k8s.io", "certificatesigningrequests"), new Table(
          Set.of("metadata.name", "spec.signerName"),
          (obj, out) -> out.put("spec.signerName", text(obj.path("spec").path("signerName"))))));

  private FieldLabels() {}

  /**
   * The field labels a selector on this resource may use.
   *
   * @param group the API group, "" for the core group
   * @param resource the plural resource name, e.g. {@code pods}
   */
  public static Set<String> supportedFields(String group, String resource) {
    return table(group, resource).supported();
  }

  /**
   * Checks that every term of {@code selector} uses a supported field label.
   *
   * @throws IllegalArgumentException {@code field label not supported: <field>} for the first unsupported
   *     term (kube-apiserver answers it with 400 Bad Request)
   */
  public static void validate(FieldSelector selector, String group, String resource) {
    Set<String> supported = supportedFields(group, resource);
    for (FieldRequirement requirement : selector.requirements()) {
      if (!supported.contains(requirement.field())) {
        throw new IllegalArgumentException("field label not supported: " + requirement.field());
      }
    }
  }

  /**
   * The selectable fields of an object of this resource, as upstream's {@code GetAttrs} computes them:
   * {@code metadata.name}, {@code metadata.namespace} (for namespaced kinds) and the resource's own
   * fields, with absent values as "".
   *
   * @param object the object tree as stored (JSON of the served version)
   */
  public static Map<String, String> selectableFields(String group, String resource, JsonNode object) {
    Objects.requireNonNull(object, "object");
    Table table = table(group, resource);
    Map<String, String> out = new LinkedHashMap<>();
    JsonNode metadata = object.path("metadata");
    out.put("metadata.name", text(metadata.path("name")));
    if (table.supported().contains("metadata.namespace")) {
      out.put("metadata.namespace", text(metadata.path("namespace")));
    }
    table.extractor().accept(object, out);
    return out;
  }

  /**
   * A field-value function for {@link FieldSelector#matches} over one object: the value of a selectable
   * field, or empty when the object's field set lacks it.
   */
  public static Function<String, Optional<String>> fieldValues(String group, String resource, JsonNode object) {
    Map<String, String> fields = selectableFields(group, resource, object);
    return field -> Optional.ofNullable(fields.get(field));
  }

  private static Table table(String group, String resource) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(resource, "resource");
    return TABLES.getOrDefault(new ResourceKey(group, resource), DEFAULT_TABLE);
  }

  private static void podFields(JsonNode pod, Map<String, String> out) {
    JsonNode spec = pod.path("spec");
    JsonNode status = pod.path("status");
    out.put("spec.nodeName", text(spec.path("nodeName")));
    out.put("spec.host", text(spec.path("nodeName")));
    out.put("spec.restartPolicy", text(spec.path("restartPolicy")));
    out.put("spec.schedulerName", text(spec.path("schedulerName")));
    out.put("spec.serviceAccountName", text(spec.path("serviceAccountName")));
    out.put("spec.hostNetwork", bool(spec.path("hostNetwork")));
    out.put("status.phase", text(status.path("phase")));
    // the internal PodIPs list is what upstream reads; the v1 podIP is its first entry
    JsonNode podIps = status.path("podIPs");
    String podIp = podIps.isArray() && !podIps.isEmpty()
        ? text(podIps.get(0).path("ip"))
        : text(status.path("podIP"));
    out.put("status.podIP", podIp);
    out.put("status.nominatedNodeName", text(status.path("nominatedNodeName")));
  }

  private static void coreEventFields(JsonNode event, Map<String, String> out) {
    JsonNode ref = event.path("involvedObject");
    for (String field : List.of("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")) {
      out.put("involvedObject." + field, text(ref.path(field)));
    }
    out.put("reason", text(event.path("reason")));
    out.put("reportingComponent", text(event.path("reportingComponent")));
    out.put("source", text(event.path("source").path("component")));
    out.put("type", text(event.path("type")));
  }

  private static void eventsV1Fields(JsonNode event, Map<String, String> out) {
    JsonNode ref = event.path("regarding");
    for (String field : List.of("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")) {
      out.put("regarding." + field, text(ref.path(field)));
    }
    out.put("reason", text(event.path("reason")));
    out.put("reportingController", text(event.path("reportingController")));
    out.put("type", text(event.path("type")));
  }

  private static String text(JsonNode node) {
    return node.isMissingNode() || node.isNull() ? "" : node.asString();
  }

  private static String bool(JsonNode node) {
    return Boolean.toString(node.isBoolean() ? node.booleanValue() : "true".equals(node.asString("")));
  }

  private static String integer(JsonNode node) {
    return node.isNumber() ? Long.toString(node.asLong()) : "0";
  }

  private static Set<String> with(Set<String> base, String... more) {
    Set<String> out = new LinkedHashSet<>(base);
    out.addAll(List.of(more));
    return Set.copyOf(out);
  }
}
