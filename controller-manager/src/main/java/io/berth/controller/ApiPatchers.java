package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.lang.reflect.InvocationTargetException;

/**
 * Strategic merge patches by namespace and name, written as one PATCH request: fabric8's {@code withName(..).patch}
 * GETs the object first, so the patch goes through {@code resource(stub)} with a stub carrying only the name. The
 * {@link ControllerRefManager.Patcher}s for pods (ReplicaSet controller) and ReplicaSets (Deployment controller) are
 * built on it. Stateless; the client is thread-safe.
 */
public final class ApiPatchers {

  private ApiPatchers() {
  }

  /** Applies {@code patch} to the {@code type} object {@code namespace/name}; throws the API error. */
  public static <T extends HasMetadata> T strategicMerge(KubernetesClient client, Class<T> type, String namespace,
      String name, String patch) {
    T stub;
    try {
      stub = type.getDeclaredConstructor().newInstance();
    } catch (InstantiationException | IllegalAccessException | InvocationTargetException
             | NoSuchMethodException e) {
      throw new IllegalArgumentException("cannot make a stub of " + type.getName(), e);
    }
    stub.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    return client.resources(type).inNamespace(namespace).resource(stub)
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
  }

  /** Patches pods (adoption and release by a ReplicaSet). */
  public static ControllerRefManager.Patcher pods(KubernetesClient client) {
    return (namespace, name, patch) -> strategicMerge(client, Pod.class, namespace, name, patch);
  }

  /** Patches ReplicaSets (adoption and release by a Deployment). */
  public static ControllerRefManager.Patcher replicaSets(KubernetesClient client) {
    return (namespace, name, patch) -> strategicMerge(client, ReplicaSet.class, namespace, name, patch);
  }
}
