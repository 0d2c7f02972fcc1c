package io.berth.simulator.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Finds the fields of a scenario manifest that its kind does not have (a typo such as
 * {@code imagePullPolice}, a field at the wrong level), as {@code kubectl apply --validate=strict}
 * rejects them, and reports each with its line in the file: the manifest is read into fabric8's
 * model class of its kind, and a field the model kept aside as an additional property is unknown.
 * Kinds without a model class here (PodGroup) are not checked. Stateless and thread-safe (the
 * per-class field tables are cached in a concurrent map).
 */
final class UnknownFields {
  private static final Map<String, Class<?>> MODELS = Map.ofEntries(
      Map.entry("Namespace", Namespace.class), Map.entry("Pod", Pod.class),
      Map.entry("ConfigMap", ConfigMap.class), Map.entry("Service", Service.class),
      Map.entry("PersistentVolume", PersistentVolume.class),
      Map.entry("PersistentVolumeClaim", PersistentVolumeClaim.class),
      Map.entry("ResourceQuota", ResourceQuota.class), Map.entry("Deployment", Deployment.class),
      Map.entry("ReplicaSet", ReplicaSet.class), Map.entry("PriorityClass", PriorityClass.class),
      Map.entry("PodDisruptionBudget", PodDisruptionBudget.class),
      Map.entry("StorageClass", StorageClass.class),
      Map.entry("CustomResourceDefinition", CustomResourceDefinition.class));
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Map<Class<?>, Map<String, Field>> FIELDS = new ConcurrentHashMap<>();

  private UnknownFields() {
  }

  /**
   * Reports every unknown field of {@code object} (a document of kind {@code kind}, already
   * checked to be a known kind) to {@code problems}, with its line: {@code lines} maps a field's
   * JSON pointer to its line in the file. A document the model cannot read at all is left to
   * the other checks.
   */
  static void check(JsonNode object, String kind, Supplier<Map<String, Integer>> lines,
      Problems problems) {
    Class<?> model = MODELS.get(kind);
    if (model == null) {
      return;
    }
    Object typed;
    try {
      typed = SERIALIZATION.unmarshal(object.toString(), model);
    } catch (RuntimeException e) {
      return;
    }
    walk(typed, object, "", "", new Lines(lines), problems);
  }

  private static void walk(Object value, JsonNode node, String path, String pointer,
      Lines lines, Problems problems) {
    if (value == null || !node.isObject() || !value.getClass().getName().startsWith("io.fabric8.")) {
      return;
    }
    Map<String, Field> fields = FIELDS.computeIfAbsent(value.getClass(), UnknownFields::fieldsOf);
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String name = e.getKey();
      String childPath = path.isEmpty() ? name : path + "." + name;
      String childPointer = pointer + "/" + name.replace("~", "~0").replace("/", "~1");
      Field f = fields.get(name);
      if (f == null) {
        problems.unknown(lines.get().getOrDefault(childPointer, 0), childPath);
        continue;
      }
      Object child;
      try {
        child = f.get(value);
      } catch (IllegalAccessException ex) {
        continue;
      }
      JsonNode childNode = e.getValue();
      if (child instanceof List<?> list && childNode.isArray()) {
        for (int i = 0; i < list.size() && i < childNode.size(); i++) {
          walk(list.get(i), childNode.get(i), childPath + "[" + i + "]", childPointer + "/" + i,
              lines, problems);
        }
      } else if (child instanceof Map<?, ?> map && childNode.isObject()) {
        for (Map.Entry<String, JsonNode> m : childNode.properties()) {
          walk(map.get(m.getKey()), m.getValue(), childPath + "[" + m.getKey() + "]",
              childPointer + "/" + m.getKey().replace("~", "~0").replace("/", "~1"), lines,
              problems);
        }
      } else {
        walk(child, childNode, childPath, childPointer, lines, problems);
      }
    }
  }

  /** The line table, read from the document only once an unknown field is found. */
  private static final class Lines {
    private final Supplier<Map<String, Integer>> source;
    private Map<String, Integer> lines;

    Lines(Supplier<Map<String, Integer>> source) {
      this.source = source;
    }

    Map<String, Integer> get() {
      if (lines == null) {
        lines = source.get();
      }
      return lines;
    }
  }

  /** A model class's JSON property names and their fields (additional properties excluded). */
  private static Map<String, Field> fieldsOf(Class<?> type) {
    Map<String, Field> out = new HashMap<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        JsonProperty p = f.getAnnotation(JsonProperty.class);
        if (p != null && !out.containsKey(p.value())) {
          f.setAccessible(true);
          out.put(p.value(), f);
        }
      }
    }
    return out;
  }

  /**
   * The line in the file of each field of a YAML document, by JSON pointer;
   * {@code firstLine} is the document's first line in the file.
   */
  static Map<String, Integer> lines(ObjectMapper yaml, String document, int firstLine) {
    Map<String, Integer> out = new HashMap<>();
    try (JsonParser p = yaml.createParser(document)) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t == JsonToken.PROPERTY_NAME) {
          out.putIfAbsent(p.streamReadContext().pathAsPointer().toString(),
              firstLine - 1 + p.currentTokenLocation().getLineNr());
        }
      }
    } catch (RuntimeException e) {
      // not YAML: reported by the loader
    }
    return out;
  }
}
