package io.berth.embedded.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A minimal OpenAPI v3 surface ({@code /openapi/v3} and one document per group version) that lists each resource's
 * operations with their {@code x-kubernetes-group-version-kind} and the {@code fieldValidation} query parameter.
 * That is what kubectl checks to decide that the server validates fields itself, so that {@code kubectl apply}
 * works without downloading schemas; no object schemas are served. Immutable after construction; thread-safe.
 */
final class OpenApi {

  private final byte[] root;
  private final Map<String, byte[]> documents = new LinkedHashMap<>();

  OpenApi() {
    Map<String, List<ResourceType>> byGroupVersion = new LinkedHashMap<>();
    for (ResourceType t : ResourceTypes.all()) {
      byGroupVersion.computeIfAbsent(t.apiVersion(), k -> new java.util.ArrayList<>()).add(t);
    }
    ObjectNode rootDoc = Json.object();
    ObjectNode rootPaths = rootDoc.putObject("paths");
    for (Map.Entry<String, List<ResourceType>> e : byGroupVersion.entrySet()) {
      String prefix = e.getKey().contains("/") ? "apis/" + e.getKey() : "api/" + e.getKey();
      rootPaths.putObject(prefix).put("serverRelativeURL", "/openapi/v3/" + prefix + "?hash=berth");
      documents.put("/openapi/v3/" + prefix, Json.bytes(document(prefix, e.getValue())));
    }
    root = Json.bytes(rootDoc);
  }

  private static ObjectNode document(String prefix, List<ResourceType> types) {
    ObjectNode doc = Json.object();
    doc.put("openapi", "3.0.0");
    ObjectNode info = doc.putObject("info");
    info.put("title", "Kubernetes");
    info.put("version", Discovery.GIT_VERSION);
    ObjectNode paths = doc.putObject("paths");
    for (ResourceType t : types) {
      String collection = "/" + prefix + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.resource();
      ObjectNode c = paths.putObject(collection);
      c.set("get", operation(t, "list"));
      c.set("post", operation(t, "post"));
      ObjectNode item = paths.putObject(collection + "/{name}");
      item.set("get", operation(t, "get"));
      item.set("put", operation(t, "put"));
      item.set("patch", operation(t, "patch"));
      item.set("delete", operation(t, "delete"));
    }
    doc.putObject("components").putObject("schemas");
    return doc;
  }

  private static ObjectNode operation(ResourceType t, String action) {
    ObjectNode op = Json.object();
    op.put("operationId", action + t.kind());
    ObjectNode gvk = op.putObject("x-kubernetes-group-version-kind");
    gvk.put("group", t.group());
    gvk.put("version", t.version());
    gvk.put("kind", t.kind());
    op.put("x-kubernetes-action", action);
    ArrayNode params = op.putArray("parameters");
    if (action.equals("post") || action.equals("put") || action.equals("patch")) {
      for (String name : List.of("dryRun", "fieldManager", "fieldValidation")) {
        ObjectNode p = params.addObject();
        p.put("name", name);
        p.put("in", "query");
        p.putObject("schema").put("type", "string");
      }
    }
    op.putObject("responses").putObject("200").put("description", "OK");
    return op;
  }

  /** The OpenAPI document at {@code path}, if it is one. */
  Optional<byte[]> document(String path) {
    if (path.equals("/openapi/v3") || path.equals("/openapi/v3/")) {
      return Optional.of(root);
    }
    return Optional.ofNullable(documents.get(path));
  }
}
