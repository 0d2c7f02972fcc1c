package io.berth.plugins.defaultbinder;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Handle;
import io.berth.framework.Plugin;
import io.berth.framework.Status;
import io.berth.framework.runtime.StatusOnlyCall;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * Bind: POSTs a {@code v1.Binding} to the pod's {@code binding} subresource, as kube-scheduler's
 * DefaultBinder does. Any answer but 2xx is an Error status carrying the API server's message (the
 * scheduler then forgets the assumed pod and retries it). The answer's body is read only when the
 * server refused ({@link StatusOnlyCall}): a bound pod's {@code Status} is never decoded. With
 * {@code SchedulerAsyncAPICalls} (the Handle has an {@link io.berth.framework.ApiCacher}) the POST is
 * queued in the scheduler's API dispatcher, which orders it after the pod's status patches in flight
 * and drops the pending ones, and the binding thread still waits for its result. Thread-safe:
 * stateless apart from the shared client; called from binding threads.
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

  /**
   * The {@code v1.Binding} as the API server reads it, written directly: this is the only request
   * body of a pod's binding cycle, and a builder plus a generic serializer cost more than the rest of
   * the call on the client side.
   */
  static String bindingJson(String namespace, String name, String uid, String nodeName) {
    StringBuilder json = new StringBuilder(160)
        .append("{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":");
    quote(json, name).append(",\"namespace\":");
    quote(json, namespace);
    if (uid != null) {
      quote(json.append(",\"uid\":"), uid);
    }
    json.append("},\"target\":{\"kind\":\"Node\",\"name\":");
    return quote(json, nodeName).append("}}").toString();
  }

  /** Appends {@code s} as a JSON string (RFC 8259 escapes). */
  private static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"');
  }

  @Override
  public Status bind(CycleState state, Pod pod, String nodeName) {
    var cacher = handle.apiCacher();
    if (cacher.isPresent()) {
      return cacher.get().waitOnFinish(cacher.get().bindPod(pod, nodeName, () -> post(pod, nodeName)));
    }
    return post(pod, nodeName);
  }

  /** The binding request itself. */
  private Status post(Pod pod, String nodeName) {
    KubernetesClient client = handle.client();
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String base = client.getMasterUrl().toString();
    URI uri = URI.create((base.endsWith("/") ? base : base + "/") + "api/v1/namespaces/" + ns
        + "/pods/" + name + "/binding");
    HttpClient http = client.getHttpClient();
    HttpRequest request = http.newHttpRequestBuilder().uri(uri)
        .post("application/json", bindingJson(ns, name, pod.getMetadata().getUid(), nodeName)).build();
    try {
      StatusOnlyCall.Answer answer = StatusOnlyCall.send(http, request).get();
      if (answer.successful()) {
        return Status.SUCCESS;
      }
      return Status.error("binding pod " + ns + "/" + name + " to node " + nodeName + ": HTTP "
          + answer.code() + ": " + answer.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.error("binding pod " + ns + "/" + name + ": interrupted");
    } catch (ExecutionException e) {
      return Status.asError(e.getCause());
    }
  }
}
