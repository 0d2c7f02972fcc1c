package io.berth.embedded.patch;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The PATCH content types kube-apiserver accepts, each mapped to its applier. The embedded server reads
 * the request's {@code Content-Type} with {@link #fromContentType} (an unknown type is answered 415
 * Unsupported Media Type) and calls {@link #apply}.
 *
 * <p>{@link #APPLY_PATCH} (server-side apply) is an approximation: the YAML or JSON body, the object's
 * full intent, is applied to the live object (an empty object on create) as a strategic merge patch.
 * Field-manager ownership is not tracked: {@code metadata.managedFields} is not maintained, fields the
 * applier stopped sending are not removed, conflicts between managers are never reported and
 * {@code force} has no effect.
 *
 * <p>Immutable, thread-safe (the parsers are shared, and Jackson mappers are thread-safe once built).
 */
public enum PatchType {
  /** RFC 6902 JSON Patch. */
  JSON_PATCH("application/json-patch+json"),
  /** RFC 7386 JSON Merge Patch. */
  MERGE_PATCH("application/merge-patch+json"),
  /** Kubernetes strategic merge patch. */
  STRATEGIC_MERGE_PATCH("application/strategic-merge-patch+json"),
  /** Server-side apply, approximated as a strategic merge of the applied configuration. */
  APPLY_PATCH("application/apply-patch+yaml");

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final YAMLMapper YAML = YAMLMapper.builder().build();

  private final String contentType;

  PatchType(String contentType) {
    this.contentType = contentType;
  }

  /** The media type, e.g. {@code application/merge-patch+json}. */
  public String contentType() {
    return contentType;
  }

  /**
   * The patch type of a {@code Content-Type} header value; parameters such as {@code ; charset=utf-8}
   * and letter case are ignored.
   */
  public static Optional<PatchType> fromContentType(String contentTypeHeader) {
    if (contentTypeHeader == null) {
      return Optional.empty();
    }
    int semicolon = contentTypeHeader.indexOf(';');
    String mediaType = (semicolon < 0 ? contentTypeHeader : contentTypeHeader.substring(0, semicolon))
        .trim().toLowerCase(Locale.ROOT);
    for (PatchType type : values()) {
      if (type.contentType.equals(mediaType)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /**
   * Parses {@code body} as this type's document and applies it to a copy of {@code current}.
   *
   * @param group the object's API group ("" for core), used for strategic-merge metadata
   * @param kind the object's kind, e.g. {@code Deployment}
   * @param current the live object; for {@link #APPLY_PATCH} of an object that does not exist yet, an
   *     empty object
   * @param body the request body
   * @return the patched object, a new tree
   * @throws PatchException 400 if the body does not parse, otherwise as the applier reports
   */
  public ObjectNode apply(String group, String kind, ObjectNode current, String body) {
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(body, "body");
    JsonNode patch = parse(body);
    return switch (this) {
      case JSON_PATCH -> JsonPatch.apply(current, patch);
      case MERGE_PATCH -> JsonMergePatch.applyToObject(current, patch);
      case STRATEGIC_MERGE_PATCH, APPLY_PATCH -> StrategicMergePatch.forKind(group, kind).apply(current, patch);
    };
  }

  private JsonNode parse(String body) {
    if (body.isBlank()) {
      return this == JSON_PATCH ? JsonNodeFactory.instance.arrayNode() : JsonNodeFactory.instance.objectNode();
    }
    try {
      JsonNode parsed = this == APPLY_PATCH ? YAML.readTree(body) : JSON.readTree(body);
      if (parsed == null || parsed.isMissingNode()) {
        throw PatchException.badRequest("empty " + contentType + " body");
      }
      return parsed;
    } catch (JacksonException e) {
      throw new PatchException(PatchException.Status.BAD_REQUEST,
          "cannot parse " + contentType + " body: " + e.getOriginalMessage(), e);
    }
  }
}
