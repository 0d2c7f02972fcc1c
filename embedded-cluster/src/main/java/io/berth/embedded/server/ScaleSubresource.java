package io.berth.embedded.server;

import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code /scale} subresource of workloads (what {@code kubectl scale} and autoscalers use): reads and writes
 * {@code spec.replicas} through an {@code autoscaling/v1 Scale}. Stateless; thread-safe.
 */
final class ScaleSubresource {

  private final ResourceOperations ops;

  ScaleSubresource(ResourceOperations ops) {
    this.ops = ops;
  }

  ObjectNode get(ResourceType type, String namespace, String name) {
    return toScale(ops.get(type, namespace, name));
  }

  /** PUT of a Scale: sets {@code spec.replicas}, honouring the Scale's resourceVersion precondition. */
  ObjectNode update(ResourceType type, String namespace, String name, ObjectNode scale) {
    return ops.store().write(() -> {
      StoredObject current = ops.get(type, namespace, name);
      return write(type, current, scale);
    });
  }

  /** PATCH of a Scale (kubectl scale sends a merge patch {@code {"spec":{"replicas":N}}}). */
  ObjectNode patch(ResourceType type, String namespace, String name, String contentType, byte[] patch) {
    return ops.store().write(() -> {
      StoredObject current = ops.get(type, namespace, name);
      ObjectNode scale = toScale(current);
      ObjectNode patched = ops.hooks().applyPatch(type, contentType, scale, patch);
      return write(type, current, patched);
    });
  }

  private ObjectNode write(ResourceType type, StoredObject current, ObjectNode scale) {
    String rv = Json.text(scale, "metadata", "resourceVersion");
    if (rv != null && !rv.isEmpty() && !rv.equals(Long.toString(current.resourceVersion()))) {
      throw ApiException.conflict(type, current.name(),
          "the object has been modified; please apply your changes to the latest version and try again");
    }
    JsonNode replicas = Json.at(scale, "spec", "replicas");
    if (replicas == null || !replicas.isNumber()) {
      throw ApiException.invalid(type, current.name(), "spec.replicas: Required value");
    }
    if (replicas.asLong() < 0) {
      throw ApiException.invalid(type, current.name(), "spec.replicas: Invalid value: " + replicas.asLong()
          + ": must be greater than or equal to 0");
    }
    StoredObject updated = ops.mutate(type, current.namespace(), current.name(), obj -> {
      Json.objectAt(obj, "spec").put("replicas", replicas.asInt());
      return obj;
    }, false).orElseThrow(() -> ApiException.notFound(type, current.name()));
    return toScale(updated);
  }

  private static ObjectNode toScale(StoredObject workload) {
    JsonNode tree = workload.tree();
    ObjectNode scale = Json.object();
    scale.put("kind", "Scale");
    scale.put("apiVersion", "autoscaling/v1");
    ObjectNode meta = scale.putObject("metadata");
    meta.put("name", workload.name());
    meta.put("namespace", workload.namespace());
    meta.put("uid", workload.uid());
    meta.put("resourceVersion", Long.toString(workload.resourceVersion()));
    String created = Json.text(tree, "metadata", "creationTimestamp");
    if (created != null) {
      meta.put("creationTimestamp", created);
    }
    scale.putObject("spec").put("replicas", tree.path("spec").path("replicas").asInt(0));
    ObjectNode status = scale.putObject("status");
    status.put("replicas", tree.path("status").path("replicas").asInt(0));
    Map<String, String> matchLabels = Json.stringMap(tree, "spec", "selector", "matchLabels");
    if (!matchLabels.isEmpty()) {
      status.put("selector", matchLabels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(",")));
    }
    return scale;
  }
}
