package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * A canonical JSON form of a pod template: the basis of {@link PodTemplateHash} and of template equality.
 *
 * <p>The form depends only on the template's content, never on object identity, field order, map insertion
 * order or JVM: object keys are sorted; nulls, empty arrays, empty strings and empty maps are dropped (Go's
 * Semantic.DeepEqual treats nil and empty slices and maps alike, and an empty string is Go's unset string);
 * resource quantities are rewritten to their plain decimal value, so "1000m" and "1" are the same, as
 * upstream's semantic quantity comparison holds. An empty struct (e.g. {@code securityContext: {}}) is kept,
 * since a pointer to an empty struct is not nil in Go.
 *
 * <p>Stateless; the shared mappers are thread-safe and immutable after construction. Model objects go to a
 * tree through fabric8's own {@link KubernetesSerialization}, so its custom (de)serializers (IntOrString,
 * Quantity, additional properties) apply.
 */
final class CanonicalTemplate {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper TREE_WRITER = JsonMapper.builder().build();
  private static final List<String> CONTAINER_LISTS = List.of("containers", "initContainers",
      "ephemeralContainers");

  private CanonicalTemplate() {
  }

  /** The canonical tree; {@code dropLabel} (may be null) is removed from metadata.labels first. */
  static JsonNode tree(PodTemplateSpec template, String dropLabel) {
    JsonNode raw = template == null
        ? JsonNodeFactory.instance.objectNode()
        : SERIALIZATION.convertValue(template, JsonNode.class);
    if (dropLabel != null && raw.path("metadata") instanceof ObjectNode metadata
        && metadata.path("labels") instanceof ObjectNode labels) {
      labels.remove(dropLabel);
      if (labels.isEmpty()) {
        metadata.remove("labels"); // an emptied map equals an absent one, as in Go
      }
    }
    normalizeQuantities(raw);
    JsonNode canonical = canonicalize(raw);
    return canonical == null ? JsonNodeFactory.instance.objectNode() : canonical;
  }

  static byte[] bytes(PodTemplateSpec template) {
    return TREE_WRITER.writeValueAsBytes(tree(template, null));
  }

  /** Sorted keys, empties dropped; returns null when the node itself is empty and should be dropped. */
  private static JsonNode canonicalize(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isObject()) {
      List<String> names = new ArrayList<>(node.propertyNames());
      names.sort(String::compareTo);
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (String name : names) {
        JsonNode child = canonicalize(node.get(name));
        if (child != null) {
          out.set(name, child);
        }
      }
      return out;
    }
    if (node.isArray()) {
      if (node.isEmpty()) {
        return null;
      }
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (JsonNode element : node) {
        JsonNode child = canonicalize(element);
        out.add(child == null ? JsonNodeFactory.instance.nullNode() : child);
      }
      return out;
    }
    if (node.isString() && node.asString().isEmpty()) {
      return null;
    }
    return node;
  }

  /*
   * Maps in Go (labels, annotations, nodeSelector, resource lists) are dropped when empty by fabric8's own
   * serialization (NON_EMPTY); an object that is empty only after canonicalization came from a struct and is
   * kept. Quantities live in a few well-known places of a pod spec; each value becomes its plain decimal.
   */
  private static void normalizeQuantities(JsonNode template) {
    JsonNode spec = template.path("spec");
    for (String list : CONTAINER_LISTS) {
      for (JsonNode container : spec.path(list)) {
        JsonNode resources = container.path("resources");
        normalizeResourceList(resources.path("limits"));
        normalizeResourceList(resources.path("requests"));
      }
    }
    normalizeResourceList(spec.path("overhead"));
    normalizeResourceList(spec.path("resources").path("limits"));
    normalizeResourceList(spec.path("resources").path("requests"));
    for (JsonNode volume : spec.path("volumes")) {
      if (volume.path("emptyDir") instanceof ObjectNode emptyDir && emptyDir.hasNonNull("sizeLimit")) {
        emptyDir.set("sizeLimit", canonicalQuantity(emptyDir.get("sizeLimit")));
      }
    }
  }

  private static void normalizeResourceList(JsonNode list) {
    if (!(list instanceof ObjectNode obj)) {
      return;
    }
    List<Map.Entry<String, JsonNode>> entries = new ArrayList<>(obj.properties());
    for (Map.Entry<String, JsonNode> e : entries) {
      obj.set(e.getKey(), canonicalQuantity(e.getValue()));
    }
  }

  private static JsonNode canonicalQuantity(JsonNode value) {
    if (!value.isString() && !value.isNumber()) {
      return value;
    }
    try {
      BigDecimal amount = Quantity.getAmountInBytes(new Quantity(value.asString()));
      return StringNode.valueOf(amount.stripTrailingZeros().toPlainString());
    } catch (RuntimeException e) {
      return value; // not a quantity we understand: compare it verbatim
    }
  }
}
