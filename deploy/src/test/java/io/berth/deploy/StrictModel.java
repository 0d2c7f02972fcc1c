package io.berth.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Parses rendered documents into fabric8's model classes and rejects anything the model does not know. fabric8's
 * classes never fail on unknown fields: they keep them in {@code additionalProperties}. So a document is accepted
 * only when (1) its apiVersion and kind map to a model class listed here, (2) no object of the parsed graph holds
 * additional properties (unknown fields, or values of the wrong type that fabric8 keeps aside), and (3) writing the
 * parsed object back gives the same JSON tree (nothing dropped or coerced, e.g. a string where a number belongs).
 * Stateless apart from the thread-safe serialization.
 */
final class StrictModel {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** "apiVersion kind" of every kind the chart renders that fabric8 models. */
  private static final Map<String, Class<? extends KubernetesResource>> TYPES = Map.ofEntries(
      Map.entry("v1 ConfigMap", ConfigMap.class),
      Map.entry("v1 Service", Service.class),
      Map.entry("v1 ServiceAccount", ServiceAccount.class),
      Map.entry("apps/v1 Deployment", Deployment.class),
      Map.entry("policy/v1 PodDisruptionBudget", PodDisruptionBudget.class),
      Map.entry("rbac.authorization.k8s.io/v1 ClusterRole", ClusterRole.class),
      Map.entry("rbac.authorization.k8s.io/v1 ClusterRoleBinding", ClusterRoleBinding.class),
      Map.entry("rbac.authorization.k8s.io/v1 Role", Role.class),
      Map.entry("rbac.authorization.k8s.io/v1 RoleBinding", RoleBinding.class));

  private StrictModel() {}

  /** Whether fabric8 models this document's kind (ServiceMonitor, a CRD of the Prometheus Operator, is not). */
  static boolean isModelled(JsonNode doc) {
    return TYPES.containsKey(key(doc));
  }

  /** The document as its model class; throws AssertionError naming the document and the problem. */
  static <T extends KubernetesResource> T parse(JsonNode doc) {
    Class<? extends KubernetesResource> type = TYPES.get(key(doc));
    if (type == null) {
      throw new AssertionError(Rendered.id(doc) + ": no fabric8 model class for \"" + key(doc) + "\"");
    }
    String json = Rendered.JSON.writeValueAsString(doc);
    KubernetesResource parsed = SERIALIZATION.unmarshal(json, type);
    List<String> unknown = new ArrayList<>();
    collectAdditional(parsed, "", unknown, new IdentityHashMap<>());
    if (!unknown.isEmpty()) {
      throw new AssertionError(Rendered.id(doc) + ": fields unknown to " + type.getSimpleName() + ": " + unknown);
    }
    JsonNode back = Rendered.JSON.readTree(SERIALIZATION.asJson(parsed));
    if (!back.equals(doc)) {
      throw new AssertionError(Rendered.id(doc) + ": does not survive " + type.getSimpleName()
          + " unchanged\n rendered: " + doc + "\n parsed:   " + back);
    }
    @SuppressWarnings("unchecked")
    T result = (T) parsed;
    return result;
  }

  private static String key(JsonNode doc) {
    return doc.path("apiVersion").asString("") + " " + Rendered.kind(doc);
  }

  /** Walks the model graph through its public getters, collecting non-empty additionalProperties by path. */
  private static void collectAdditional(Object value, String path, List<String> out,
      IdentityHashMap<Object, Boolean> seen) {
    if (value == null || seen.put(value, Boolean.TRUE) != null) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        collectAdditional(item, path + "[" + i++ + "]", out, seen);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> collectAdditional(v, path + "." + k, out, seen));
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
      return;
    }
    for (Method m : value.getClass().getMethods()) {
      if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || !m.getName().startsWith("get")
          || m.getDeclaringClass() == Object.class) {
        continue;
      }
      Object child;
      try {
        child = m.invoke(value);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read " + path + " through " + m, e);
      }
      if (m.getName().equals("getAdditionalProperties")) {
        if (child instanceof Map<?, ?> extra && !extra.isEmpty()) {
          extra.keySet().forEach(k -> out.add((path.isEmpty() ? "" : path.substring(1) + ".") + k));
        }
        continue;
      }
      String field = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
      collectAdditional(child, path + "." + field, out, seen);
    }
  }
}
