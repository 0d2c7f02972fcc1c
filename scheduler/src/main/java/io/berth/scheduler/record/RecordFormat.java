package io.berth.scheduler.record;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The recording's line format, JSON Lines: one event per line,
 * {@code {"t":<epoch ms>,"type":"ADDED|MODIFIED|DELETED","kind":"Pod","apiVersion":"v1","object":{...}}}.
 * The object is kept whole except {@code metadata.managedFields} (server-side apply bookkeeping, which
 * no scheduling decision reads and which is often most of an object's size). A file whose name ends in
 * {@code .gz} is gzip'd. Stateless and thread-safe (fabric8's serialization is).
 */
public final class RecordFormat {
  /** The kinds the reader decodes into typed objects; others become GenericKubernetesResource. */
  static final Map<String, Class<? extends HasMetadata>> TYPED = Map.ofEntries(
      Map.entry("Pod", Pod.class),
      Map.entry("Node", Node.class),
      Map.entry("PersistentVolume", PersistentVolume.class),
      Map.entry("PersistentVolumeClaim", PersistentVolumeClaim.class),
      Map.entry("StorageClass", StorageClass.class),
      Map.entry("CSINode", CSINode.class),
      Map.entry("Namespace", io.fabric8.kubernetes.api.model.Namespace.class),
      Map.entry("Service", io.fabric8.kubernetes.api.model.Service.class),
      Map.entry("ReplicationController", io.fabric8.kubernetes.api.model.ReplicationController.class),
      Map.entry("ReplicaSet", io.fabric8.kubernetes.api.model.apps.ReplicaSet.class),
      Map.entry("StatefulSet", io.fabric8.kubernetes.api.model.apps.StatefulSet.class),
      Map.entry("PodDisruptionBudget", io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class));

  private final KubernetesSerialization serialization = new KubernetesSerialization();

  /** Encodes one event as a line, without the trailing newline. */
  @SuppressWarnings("unchecked")
  public String encode(RecordedEvent event) {
    Map<String, Object> object = serialization.convertValue(event.object(), Map.class);
    if (object.get("metadata") instanceof Map<?, ?> metadata) {
      ((Map<String, Object>) metadata).remove("managedFields");
    }
    object.putIfAbsent("apiVersion", event.apiVersion());
    object.putIfAbsent("kind", event.kind());
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("t", event.epochMillis());
    line.put("type", event.type().name());
    line.put("kind", event.kind());
    line.put("apiVersion", event.apiVersion());
    line.put("object", object);
    return serialization.asJson(line);
  }

  /**
   * Decodes one line; throws {@link IllegalArgumentException} naming the field that is missing or
   * wrong (the caller adds the file and line number).
   */
  public RecordedEvent decode(String line) {
    Map<?, ?> map;
    try {
      map = serialization.unmarshal(line, Map.class);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
    }
    if (map == null) {
      throw new IllegalArgumentException("not a JSON object");
    }
    if (!(map.get("t") instanceof Number t)) {
      throw new IllegalArgumentException("field \"t\" must be a number (epoch milliseconds)");
    }
    RecordedEvent.Type type;
    try {
      type = RecordedEvent.Type.valueOf(String.valueOf(map.get("type")));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("field \"type\" must be ADDED, MODIFIED or DELETED, got "
          + map.get("type"), e);
    }
    if (!(map.get("kind") instanceof String kind) || kind.isEmpty()) {
      throw new IllegalArgumentException("field \"kind\" must be a non-empty string");
    }
    String apiVersion = map.get("apiVersion") instanceof String s ? s : "v1";
    if (!(map.get("object") instanceof Map<?, ?> object)) {
      throw new IllegalArgumentException("field \"object\" must be an object");
    }
    HasMetadata decoded;
    try {
      decoded = serialization.convertValue(object, TYPED.getOrDefault(kind,
          GenericKubernetesResource.class));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("field \"object\" is not a valid " + kind + ": "
          + e.getMessage(), e);
    }
    if (decoded.getMetadata() == null || decoded.getMetadata().getName() == null) {
      throw new IllegalArgumentException("field \"object.metadata.name\" is required");
    }
    return new RecordedEvent(t.longValue(), type, kind, apiVersion, decoded);
  }
}
