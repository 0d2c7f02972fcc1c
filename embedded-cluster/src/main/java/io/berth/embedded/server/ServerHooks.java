package io.berth.embedded.server;

import java.util.function.Predicate;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pluggable API machinery the server's operations call: defaulting, patch application and selector parsing.
 * Implementations are stateless and thread-safe.
 */
public interface ServerHooks {

  /**
   * Returns {@code obj} with the API defaults of its type set where absent and admission applied (PriorityClass);
   * {@code previous} is the stored object an update replaces, null on create. May mutate {@code obj}.
   */
  ObjectNode applyDefaults(ResourceType type, ObjectNode obj, tools.jackson.databind.JsonNode previous,
      ObjectStore store);

  /** The result of applying a patch of {@code contentType} to {@code current} (which must not be mutated). */
  ObjectNode applyPatch(ResourceType type, String contentType, ObjectNode current, byte[] body);

  /** A predicate for a {@code labelSelector} query value; 400 (ApiException) when malformed. */
  Predicate<StoredObject> labelSelector(String selector);

  /** A predicate for a {@code fieldSelector} query value on {@code type}; 400 when malformed or unsupported. */
  Predicate<StoredObject> fieldSelector(ResourceType type, String selector);

  /**
   * A predicate over label maps for a {@code metav1.LabelSelector} object ({@code matchLabels} and
   * {@code matchExpressions}); a null or empty selector selects everything, as for PodDisruptionBudgets.
   */
  Predicate<java.util.Map<String, String>> labelSelectorObject(tools.jackson.databind.JsonNode selector);

  /** A new name for {@code generateName}. */
  String generateName(String base);
}
