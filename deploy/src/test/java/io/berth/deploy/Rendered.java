package io.berth.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The documents of one render, as JSON trees in output order (empty documents dropped). Immutable. */
public record Rendered(List<JsonNode> documents) {
  private static final ObjectMapper YAML = YAMLMapper.builder().build();
  static final ObjectMapper JSON = JsonMapper.builder().build();

  /** The kinds that have no namespace. */
  static final Set<String> CLUSTER_SCOPED = Set.of("ClusterRole", "ClusterRoleBinding", "PriorityClass",
      "Namespace", "StorageClass", "CustomResourceDefinition");

  static Rendered parse(String yaml) {
    List<JsonNode> docs = new ArrayList<>();
    for (JsonNode doc : YAML.readValues(YAML.createParser(yaml), JsonNode.class).readAll()) {
      if (doc != null && !doc.isNull() && !doc.isMissingNode() && !doc.isEmpty()) {
        docs.add(doc);
      }
    }
    return new Rendered(List.copyOf(docs));
  }

  public List<JsonNode> ofKind(String kind) {
    return documents.stream().filter(d -> kind.equals(kind(d))).toList();
  }

  public Optional<JsonNode> find(String kind, String name) {
    return ofKind(kind).stream().filter(d -> name.equals(name(d))).findFirst();
  }

  public JsonNode get(String kind, String name) {
    return find(kind, name).orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + ids()));
  }

  List<JsonNode> clusterScoped() {
    return documents.stream().filter(d -> CLUSTER_SCOPED.contains(kind(d))).toList();
  }

  /** "Kind/name" of every document, for messages. */
  List<String> ids() {
    return documents.stream().map(Rendered::id).collect(Collectors.toList());
  }

  public static String kind(JsonNode doc) {
    return doc.path("kind").asString("");
  }

  public static String name(JsonNode doc) {
    return doc.path("metadata").path("name").asString("");
  }

  static String id(JsonNode doc) {
    return kind(doc) + "/" + name(doc);
  }
}
