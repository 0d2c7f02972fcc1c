package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.dsl.AnyNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link ListerWatcher} over fabric8's {@code client.resources(type)}, optionally restricted to
 * one namespace and by label and field selectors. fabric8 is used for nothing but these two calls.
 *
 * <p>Reconnection belongs to the {@link Reflector}: by default a fabric8 watch silently
 * reconnects from the last resourceVersion it saw, so a dropped watch would never surface. This
 * class therefore derives, from the caller's client, a client with {@code watchReconnectLimit = 0}
 * ({@code Client.newClient(RequestConfig)} shares the caller's HTTP client, configuration and
 * lifetime; it is never closed here) and its watcher reports {@code reconnecting() == false}.
 * Every remote end of a watch then reaches the stream as a terminal event.
 *
 * <p>Immutable and thread-safe; the {@code with...} methods return new instances.
 */
public final class Fabric8ListerWatcher<T extends HasMetadata> implements ListerWatcher<T> {

  private final KubernetesClient client;
  private final Class<T> type;
  private final String namespace;
  private final String labelSelector;
  private final String fieldSelector;

  private Fabric8ListerWatcher(
      KubernetesClient client, Class<T> type, String namespace, String labelSelector, String fieldSelector) {
    this.client = client;
    this.type = type;
    this.namespace = namespace;
    this.labelSelector = labelSelector;
    this.fieldSelector = fieldSelector;
  }

  /** Lists and watches every object of {@code type} in all namespaces (or cluster-scoped). */
  public static <T extends HasMetadata> Fabric8ListerWatcher<T> of(KubernetesClient client, Class<T> type) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(type, "type");
    return new Fabric8ListerWatcher<>(withoutWatchReconnect(client), type, null, null, null);
  }

  /** The same, restricted to {@code namespace} (null or empty: all namespaces). */
  public Fabric8ListerWatcher<T> inNamespace(String namespace) {
    String ns = namespace == null || namespace.isEmpty() ? null : namespace;
    return new Fabric8ListerWatcher<>(client, type, ns, labelSelector, fieldSelector);
  }

  /** The same, restricted by a label selector such as {@code app=web,tier!=db}. */
  public Fabric8ListerWatcher<T> withLabelSelector(String selector) {
    return new Fabric8ListerWatcher<>(client, type, namespace, emptyToNull(selector), fieldSelector);
  }

  /** The same, restricted by a field selector such as {@code spec.nodeName=node-1}. */
  public Fabric8ListerWatcher<T> withFieldSelector(String selector) {
    return new Fabric8ListerWatcher<>(client, type, namespace, labelSelector, emptyToNull(selector));
  }

  public Class<T> type() {
    return type;
  }

  /** The namespace, or empty for all namespaces. */
  public Optional<String> namespace() {
    return Optional.ofNullable(namespace);
  }

  @Override
  public ListPage<T> list(ListRequest request) {
    ListOptionsBuilder options = selectors(new ListOptionsBuilder());
    if (!request.resourceVersion().isEmpty()) {
      options.withResourceVersion(request.resourceVersion());
    }
    if (request.limit() > 0) {
      options.withLimit(request.limit());
    }
    if (!request.continueToken().isEmpty()) {
      options.withContinue(request.continueToken());
    }
    KubernetesResourceList<T> list = operation().list(options.build());
    ListMeta meta = list.getMetadata();
    String resourceVersion = meta == null || meta.getResourceVersion() == null ? "" : meta.getResourceVersion();
    String continueToken = meta == null || meta.getContinue() == null ? "" : meta.getContinue();
    List<T> items = list.getItems() == null ? List.of() : list.getItems();
    return new ListPage<>(items, resourceVersion, continueToken);
  }

  @Override
  public WatchStream<T> watch(WatchRequest request) {
    ListOptionsBuilder builder = selectors(new ListOptionsBuilder())
        .withAllowWatchBookmarks(true)
        .withTimeoutSeconds(request.timeoutSeconds());
    if (!request.resourceVersion().isEmpty()) {
      builder.withResourceVersion(request.resourceVersion());
    }
    ListOptions options = builder.build();
    Fabric8WatchStream<T> stream = new Fabric8WatchStream<>(description());
    Watch watch = operation().watch(options, stream);
    stream.attach(watch);
    return stream;
  }

  @Override
  public String description() {
    StringBuilder sb = new StringBuilder(type.getSimpleName());
    sb.append(namespace == null ? " (all namespaces)" : " in " + namespace);
    if (labelSelector != null) {
      sb.append(" labels=").append(labelSelector);
    }
    if (fieldSelector != null) {
      sb.append(" fields=").append(fieldSelector);
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "Fabric8ListerWatcher[" + description() + "]";
  }

  private ListOptionsBuilder selectors(ListOptionsBuilder builder) {
    if (labelSelector != null) {
      builder.withLabelSelector(labelSelector);
    }
    if (fieldSelector != null) {
      builder.withFieldSelector(fieldSelector);
    }
    return builder;
  }

  private AnyNamespaceOperation<T, KubernetesResourceList<T>, Resource<T>> operation() {
    MixedOperation<T, KubernetesResourceList<T>, Resource<T>> resources = client.resources(type);
    return namespace == null ? resources.inAnyNamespace() : resources.inNamespace(namespace);
  }

  private static KubernetesClient withoutWatchReconnect(KubernetesClient client) {
    RequestConfig config = new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
        .withWatchReconnectLimit(0)
        .build();
    return client.newClient(config).adapt(KubernetesClient.class);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
