package io.berth.plugins.defaultbinder;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Handle;
import io.berth.framework.Plugin;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * Bind: POSTs a {@code v1.Binding} to the pod's {@code binding} subresource, as kube-scheduler's
 * DefaultBinder does. Any answer but 2xx is an Error status carrying the API server's message (the
 * scheduler then forgets the assumed pod and retries it). Thread-safe: stateless apart from the
 * shared client; called from binding threads.
 */
public final class DefaultBinder implements BindPlugin {
  public static final String NAME = "DefaultBinder";

  private final Handle handle;

  private DefaultBinder(Handle handle) {
    this.handle = handle;
  }

  public static Plugin create(Map<String, Object> args, Handle handle) {
    if (!args.isEmpty()) {
      throw new IllegalArgumentException("DefaultBinder takes no args, got " + args.keySet());
    }
    return new DefaultBinder(handle);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status bind(CycleState state, Pod pod, String nodeName) {
    KubernetesClient client = handle.client();
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Binding binding = new BindingBuilder()
        .withNewMetadata().withNamespace(ns).withName(name).withUid(pod.getMetadata().getUid())
        .endMetadata()
        .withNewTarget().withKind("Node").withName(nodeName).endTarget()
        .build();
    String base = client.getMasterUrl().toString();
    URI uri = URI.create((base.endsWith("/") ? base : base + "/") + "api/v1/namespaces/" + ns
        + "/pods/" + name + "/binding");
    HttpClient http = client.getHttpClient();
    HttpRequest request = http.newHttpRequestBuilder().uri(uri)
        .post("application/json", client.getKubernetesSerialization().asJson(binding)).build();
    try {
      HttpResponse<String> response = http.sendAsync(request, String.class).get();
      if (response.isSuccessful()) {
        return Status.SUCCESS;
      }
      return Status.error("binding pod " + ns + "/" + name + " to node " + nodeName + ": HTTP "
          + response.code() + ": " + response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.error("binding pod " + ns + "/" + name + ": interrupted");
    } catch (ExecutionException e) {
      return Status.asError(e.getCause());
    }
  }
}
