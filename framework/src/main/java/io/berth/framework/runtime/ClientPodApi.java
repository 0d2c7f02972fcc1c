package io.berth.framework.runtime;

import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link PodApi} over the API server: a status change is one strategic merge patch of the
 * {@code status} subresource (conditions merge by type; a {@code null} nomination removes the
 * field), a deletion is a plain DELETE that keeps the pod's grace period. A 404 means the pod is
 * gone (false). Thread-safe: stateless apart from the shared client.
 */
public final class ClientPodApi implements PodApi {
  private final KubernetesClient client;

  public ClientPodApi(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public boolean patchStatus(Pod pod, PodStatusPatch patch) {
    Map<String, Object> status = new LinkedHashMap<>();
    patch.condition().ifPresent(c -> status.put("conditions", List.of(asMap(c))));
    patch.nominatedNodeName().ifPresent(n -> status.put("nominatedNodeName",
        n.isEmpty() ? null : n));
    String json = client.getKubernetesSerialization().asJson(Map.of("status", status));
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName()).subresource("status")
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), json);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public boolean delete(Pod pod) {
    try {
      return !client.pods().inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName()).delete().isEmpty();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** The condition as upstream sends it: absent times are explicit nulls. */
  private static Map<String, Object> asMap(PodCondition c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", c.getType());
    m.put("status", c.getStatus());
    m.put("reason", c.getReason());
    m.put("message", c.getMessage());
    m.put("lastProbeTime", c.getLastProbeTime());
    m.put("lastTransitionTime", c.getLastTransitionTime());
    return m;
  }
}
