package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.AnyNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link ListerWatcher} over a fabric8 client, optionally restricted to one namespace and by label
 * and field selectors: lists through {@code client.resources(type)}, watches through a WebSocket on
 * the client's HTTP client ({@link WebSocketWatchStream}), so fabric8's watch machinery (its
 * reconnects, its per-watch executor and its two-pass decoding of each event) is not involved.
 *
 * <p>Reconnection belongs to the {@link Reflector}: a fabric8 watch would silently reconnect from
 * the last resourceVersion it saw, so a dropped watch would never surface; this one never
 * reconnects, and every end of a watch reaches the stream as a terminal event. The caller's client
 * is shared, never closed here.
 *
 * <p>{@link #withoutManagedFields()} drops {@code metadata.managedFields} from every object it hands
 * out, as the informer transform of kube-scheduler and kube-controller-manager does: watch events
 * skip the field while they are parsed, list items have it emptied after decoding.
 *
 * <p>Immutable and thread-safe; the {@code with...} methods return new instances.
 */
public final class Fabric8ListerWatcher<T extends HasMetadata> implements ListerWatcher<T> {

  private final KubernetesClient client;
  private final Class<T> type;
  private final String namespace;
  private final String labelSelector;
  private final String fieldSelector;
  private final boolean dropManagedFields;

  private Fabric8ListerWatcher(KubernetesClient client, Class<T> type, String namespace,
      String labelSelector, String fieldSelector, boolean dropManagedFields) {
    this.client = client;
    this.type = type;
    this.namespace = namespace;
    this.labelSelector = labelSelector;
    this.fieldSelector = fieldSelector;
    this.dropManagedFields = dropManagedFields;
  }

  /** Lists and watches every object of {@code type} in all namespaces (or cluster-scoped). */
  public static <T extends HasMetadata> Fabric8ListerWatcher<T> of(KubernetesClient client, Class<T> type) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(type, "type");
    return new Fabric8ListerWatcher<>(client, type, null, null, null, false);
  }

  /** The same, restricted to {@code namespace} (null or empty: all namespaces). */
  public Fabric8ListerWatcher<T> inNamespace(String namespace) {
    String ns = namespace == null || namespace.isEmpty() ? null : namespace;
    return new Fabric8ListerWatcher<>(client, type, ns, labelSelector, fieldSelector, dropManagedFields);
  }

  /** The same, restricted by a label selector such as {@code app=web,tier!=db}. */
  public Fabric8ListerWatcher<T> withLabelSelector(String selector) {
    return new Fabric8ListerWatcher<>(client, type, namespace, emptyToNull(selector), fieldSelector,
        dropManagedFields);
  }

  /** The same, restricted by a field selector such as {@code spec.nodeName=node-1}. */
  public Fabric8ListerWatcher<T> withFieldSelector(String selector) {
    return new Fabric8ListerWatcher<>(client, type, namespace, labelSelector, emptyToNull(selector),
        dropManagedFields);
  }

  /**
   * The same, handing out objects without {@code metadata.managedFields} (an empty list): the
   * server-side apply bookkeeping, often the largest part of an object, that an informer's users
   * do not read.
   */
  public Fabric8ListerWatcher<T> withoutManagedFields() {
    return new Fabric8ListerWatcher<>(client, type, namespace, labelSelector, fieldSelector, true);
  }

  /** Whether objects are handed out without {@code metadata.managedFields}. */
  public boolean dropsManagedFields() {
    return dropManagedFields;
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
    if (dropManagedFields) {
      for (T item : items) {
        var itemMeta = item.getMetadata();
        if (itemMeta != null && itemMeta.getManagedFields() != null
            && !itemMeta.getManagedFields().isEmpty()) {
          itemMeta.setManagedFields(new java.util.ArrayList<>());
        }
      }
    }
    return new ListPage<>(items, resourceVersion, continueToken);
  }

  /**
   * Opens a WebSocket watch of the collection from {@code request}'s resourceVersion, with bookmarks
   * and the request's server timeout, through {@link WebSocketWatchStream} (which decodes each event
   * in one pass on the reflector's thread); the query is the one fabric8's own watch sends.
   */
  @Override
  public WatchStream<T> watch(WatchRequest request) {
    java.util.Map<String, String> query = new java.util.TreeMap<>();
    query.put("allowWatchBookmarks", "true");
    query.put("timeoutSeconds", Long.toString(request.timeoutSeconds()));
    query.put("watch", "true");
    if (!request.resourceVersion().isEmpty()) {
      query.put("resourceVersion", request.resourceVersion());
    }
    if (labelSelector != null) {
      query.put("labelSelector", labelSelector);
    }
    if (fieldSelector != null) {
      query.put("fieldSelector", fieldSelector);
    }
    StringBuilder uri = new StringBuilder(collectionUrl()).append('?');
    query.forEach((k, v) -> uri.append(k).append('=')
        .append(java.net.URLEncoder.encode(v, java.nio.charset.StandardCharsets.UTF_8)).append('&'));
    uri.setLength(uri.length() - 1);
    var config = client.getConfiguration();
    long timeoutMillis = Math.max(1, config.getConnectionTimeout()) + Math.max(0, config.getRequestTimeout());
    return WebSocketWatchStream.open(client.getHttpClient(), java.net.URI.create(uri.toString()), type,
        ClientSerialization.of(client), dropManagedFields, description(), timeoutMillis);
  }

  /** The collection's URL: {@code .../api/v1[/namespaces/ns]/pods} or {@code .../apis/group/version/...}. */
  private String collectionUrl() {
    String base = client.getMasterUrl().toString();
    StringBuilder url = new StringBuilder(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
    String group = HasMetadata.getGroup(type);
    url.append(group == null || group.isEmpty() ? "/api/" : "/apis/" + group + "/").append(HasMetadata.getVersion(type));
    if (namespace != null && io.fabric8.kubernetes.api.model.Namespaced.class.isAssignableFrom(type)) {
      url.append("/namespaces/").append(namespace);
    }
    return url.append('/').append(HasMetadata.getPlural(type)).toString();
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

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
