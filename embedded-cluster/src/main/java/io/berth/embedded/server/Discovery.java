package io.berth.embedded.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API discovery documents ({@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/<group>/<version>}) and
 * {@code /version}, built from {@link ResourceTypes}, in the legacy (unaggregated) format that kubectl and client-go
 * fall back to, plus the groups of the {@link CustomResourceTypes} served at the time of each request. Immutable
 * after construction (the custom types are read from their concurrent registry); thread-safe.
 */
final class Discovery {

  static final String GIT_VERSION = "v1.32.0-berth";

  private static final List<String> CRUD_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
  private static final Set<String> ALL_CATEGORY = Set.of("pods", "services", "deployments", "replicasets",
      "statefulsets", "daemonsets", "jobs", "replicationcontrollers");

  private final byte[] version;
  private final byte[] coreVersions;
  private final byte[] groups;
  private final ObjectNode groupListTemplate;
  private final CustomResourceTypes customTypes;
  private final Map<String, byte[]> resourceLists = new LinkedHashMap<>();

  Discovery(CustomResourceTypes customTypes) {
    this.customTypes = customTypes;
    ObjectNode v = Json.object();
    v.put("major", "1");
    v.put("minor", "32");
    v.put("gitVersion", GIT_VERSION);
    v.put("gitCommit", "0000000000000000000000000000000000000000");
    v.put("gitTreeState", "clean");
    v.put("buildDate", "2026-01-01T00:00:00Z");
    v.put("goVersion", "go1.23.0");
    v.put("compiler", "gc");
    v.put("platform", "linux/amd64");
    version = Json.bytes(v);

    ObjectNode api = Json.object();
    api.put("kind", "APIVersions");
    api.putArray("versions").add("v1");
    coreVersions = Json.bytes(api);

    Map<String, List<ResourceType>> byGroupVersion = new LinkedHashMap<>();
    for (ResourceType t : ResourceTypes.all()) {
      byGroupVersion.computeIfAbsent(t.apiVersion(), k -> new java.util.ArrayList<>()).add(t);
    }
    ObjectNode groupList = Json.object();
    groupList.put("kind", "APIGroupList");
    groupList.put("apiVersion", "v1");
    ArrayNode groupArray = groupList.putArray("groups");
    for (Map.Entry<String, List<ResourceType>> e : byGroupVersion.entrySet()) {
      ResourceType first = e.getValue().get(0);
      resourceLists.put(e.getKey(), Json.bytes(resourceList(e.getKey(), e.getValue())));
      if (first.group().isEmpty()) {
        continue;
      }
      ObjectNode g = groupArray.addObject();
      g.put("name", first.group());
      ObjectNode gv = Json.object();
      gv.put("groupVersion", e.getKey());
      gv.put("version", first.version());
      g.putArray("versions").add(gv);
      g.set("preferredVersion", gv.deepCopy());
    }
    Map<String, List<ReviewEndpoints.ReviewResource>> reviews = new LinkedHashMap<>();
    for (ReviewEndpoints.ReviewResource r : ReviewEndpoints.ALL) {
      reviews.computeIfAbsent(r.apiVersion(), k -> new java.util.ArrayList<>()).add(r);
    }
    for (Map.Entry<String, List<ReviewEndpoints.ReviewResource>> e : reviews.entrySet()) {
      ReviewEndpoints.ReviewResource first = e.getValue().get(0);
      resourceLists.put(e.getKey(), Json.bytes(reviewResourceList(e.getKey(), e.getValue())));
      ObjectNode g = groupArray.addObject();
      g.put("name", first.group());
      ObjectNode gv = Json.object();
      gv.put("groupVersion", e.getKey());
      gv.put("version", first.version());
      g.putArray("versions").add(gv);
      g.set("preferredVersion", gv.deepCopy());
    }
    groups = Json.bytes(groupList);
    groupListTemplate = groupList;
  }

  /** {@code /apis} with the groups of the custom types served now appended. */
  private byte[] groupsNow() {
    List<ResourceType> custom = customTypes.all();
    if (custom.isEmpty()) {
      return groups;
    }
    ObjectNode list = groupListTemplate.deepCopy();
    ArrayNode groupArray = (ArrayNode) list.get("groups");
    Map<String, java.util.Set<String>> versionsByGroup = new LinkedHashMap<>();
    custom.forEach(t -> versionsByGroup.computeIfAbsent(t.group(), g -> new java.util.TreeSet<>()).add(t.version()));
    for (Map.Entry<String, java.util.Set<String>> e : versionsByGroup.entrySet()) {
      if (resourceLists.keySet().stream().anyMatch(gv -> gv.startsWith(e.getKey() + "/"))) {
        continue;
      }
      ObjectNode g = groupArray.addObject();
      g.put("name", e.getKey());
      ArrayNode versions = g.putArray("versions");
      for (String v : e.getValue()) {
        ObjectNode gv = versions.addObject();
        gv.put("groupVersion", e.getKey() + "/" + v);
        gv.put("version", v);
      }
      g.set("preferredVersion", versions.get(0).deepCopy());
    }
    return Json.bytes(list);
  }

  /** The resource list of a group version that only custom types serve, if any do. */
  private Optional<byte[]> customResourceList(String groupVersion) {
    List<ResourceType> types = customTypes.all().stream().filter(t -> t.apiVersion().equals(groupVersion)).toList();
    return types.isEmpty() ? Optional.empty() : Optional.of(Json.bytes(resourceList(groupVersion, types)));
  }

  /** The resource list of a group version of create-only reviews. */
  private static ObjectNode reviewResourceList(String groupVersion, List<ReviewEndpoints.ReviewResource> reviews) {
    ObjectNode list = Json.object();
    list.put("kind", "APIResourceList");
    list.put("apiVersion", "v1");
    list.put("groupVersion", groupVersion);
    ArrayNode resources = list.putArray("resources");
    for (ReviewEndpoints.ReviewResource r : reviews) {
      ObjectNode o = resources.addObject();
      o.put("name", r.resource());
      o.put("singularName", r.kind().toLowerCase(java.util.Locale.ROOT));
      o.put("namespaced", r.namespaced());
      o.put("kind", r.kind());
      o.putArray("verbs").add("create");
    }
    return list;
  }

  private static ObjectNode resourceList(String groupVersion, List<ResourceType> types) {
    ObjectNode list = Json.object();
    list.put("kind", "APIResourceList");
    list.put("apiVersion", "v1");
    list.put("groupVersion", groupVersion);
    ArrayNode resources = list.putArray("resources");
    for (ResourceType t : types) {
      ObjectNode r = resources.addObject();
      r.put("name", t.resource());
      r.put("singularName", t.singularName());
      r.put("namespaced", t.namespaced());
      r.put("kind", t.kind());
      ArrayNode verbs = r.putArray("verbs");
      CRUD_VERBS.forEach(verbs::add);
      if (!t.shortNames().isEmpty()) {
        ArrayNode shortNames = r.putArray("shortNames");
        t.shortNames().forEach(shortNames::add);
      }
      if (ALL_CATEGORY.contains(t.resource())) {
        r.putArray("categories").add("all");
      }
      if (t.hasStatus()) {
        subresource(resources, t, "status", t.kind(), null, List.of("get", "patch", "update"));
      }
      if (t.hasScale()) {
        subresource(resources, t, "scale", "Scale", "autoscaling/v1", List.of("get", "patch", "update"));
      }
      if (t == ResourceTypes.PODS) {
        subresource(resources, t, "binding", "Binding", null, List.of("create"));
        subresource(resources, t, "eviction", "Eviction", "policy/v1", List.of("create"));
      }
    }
    if (groupVersion.equals("v1")) {
      ObjectNode b = resources.addObject();
      b.put("name", "bindings");
      b.put("singularName", "binding");
      b.put("namespaced", true);
      b.put("kind", "Binding");
      b.putArray("verbs").add("create");
    }
    return list;
  }

  private static void subresource(ArrayNode resources, ResourceType t, String sub, String kind, String groupVersion,
      List<String> verbs) {
    ObjectNode r = resources.addObject();
    r.put("name", t.resource() + "/" + sub);
    r.put("singularName", "");
    r.put("namespaced", t.namespaced());
    if (groupVersion != null) {
      String[] gv = groupVersion.split("/");
      r.put("group", gv[0]);
      r.put("version", gv[1]);
    }
    r.put("kind", kind);
    ArrayNode v = r.putArray("verbs");
    verbs.forEach(v::add);
  }

  /** The discovery or version document at {@code path}, if it is one. */
  Optional<byte[]> document(String path) {
    String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
    return switch (p) {
      case "/version" -> Optional.of(version);
      case "/api" -> Optional.of(coreVersions);
      case "/apis" -> Optional.of(groupsNow());
      case "/api/v1" -> Optional.of(resourceLists.get("v1"));
      default -> p.startsWith("/apis/") ? Optional.ofNullable(resourceLists.get(p.substring("/apis/".length())))
          .or(() -> customResourceList(p.substring("/apis/".length()))) : Optional.empty();
    };
  }
}
