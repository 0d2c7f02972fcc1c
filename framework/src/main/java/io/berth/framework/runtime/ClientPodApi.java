package io.berth.framework.runtime;

import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * {@link PodApi} over the API server: a status change is one strategic merge patch of the
 * {@code status} subresource (conditions merge by type; a {@code null} nomination removes the
 * field), a deletion is a DELETE with fabric8's default options (background propagation) that
 * keeps the pod's grace period. A 404 means the pod is gone (false); any other answer but 2xx is
 * thrown as a {@link KubernetesClientException} with the server's code and message. Both calls go
 * through the client's HTTP client (its transport, authentication and rate limiting) and read only
 * the answer's status code ({@link StatusOnlyCall}: a refusal's body for its message): the scheduler
 * never uses the pod the server returns, which fabric8's DSL would decode (a DELETE's answer twice:
 * into a tree, then into a Pod). Thread-safe: stateless
 * apart from the shared client.
 */
public final class ClientPodApi implements PodApi {
  private static final String STRATEGIC_MERGE = "application/strategic-merge-patch+json";
  private static final String DELETE_OPTIONS =
      "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"propagationPolicy\":\"Background\"}";

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
    HttpClient http = client.getHttpClient();
    return send(http.newHttpRequestBuilder().uri(podUri(pod, "/status"))
        .patch(STRATEGIC_MERGE, json).build(), "patch the status of", pod);
  }

  @Override
  public boolean delete(Pod pod) {
    HttpClient http = client.getHttpClient();
    return send(http.newHttpRequestBuilder().uri(podUri(pod, ""))
        .delete("application/json", DELETE_OPTIONS).build(), "delete", pod);
  }

  private URI podUri(Pod pod, String subresource) {
    String base = client.getMasterUrl().toString();
    return URI.create((base.endsWith("/") ? base : base + "/") + "api/v1/namespaces/"
        + pod.getMetadata().getNamespace() + "/pods/" + pod.getMetadata().getName() + subresource);
  }

  /** True on 2xx, false on 404; throws on any other answer or when the call fails. */
  private boolean send(HttpRequest request, String what, Pod pod) {
    StatusOnlyCall.Answer response;
    try {
      response = StatusOnlyCall.send(client.getHttpClient(), request).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted trying to " + what + " pod "
          + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof KubernetesClientException k) {
        throw k;
      }
      throw new KubernetesClientException("failed to " + what + " pod "
          + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + ": " + cause, cause);
    }
    if (response.successful()) {
      return true;
    }
    if (response.code() == 404) {
      return false;
    }
    throw new KubernetesClientException("failed to " + what + " pod "
        + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + ": HTTP "
        + response.code() + ": " + response.body(), response.code(), null);
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
