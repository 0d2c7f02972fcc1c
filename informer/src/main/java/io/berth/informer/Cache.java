package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;

/**
 * Key and index functions shared by stores, the DeltaFIFO and listers: the store key of an object
 * is {@code namespace/name} for namespaced objects and {@code name} for cluster-scoped ones, as in
 * client-go's {@code MetaNamespaceKeyFunc}. Stateless and thread-safe.
 */
public final class Cache {

  private Cache() {}

  /**
   * The store key of {@code obj}: {@code namespace/name}, or {@code name} when the object has no
   * namespace.
   *
   * @throws IllegalArgumentException if the object has no metadata or no name
   */
  public static String metaNamespaceKey(HasMetadata obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      throw new IllegalArgumentException("object has no metadata.name: " + obj.getKind());
    }
    String namespace = meta.getNamespace();
    if (namespace == null || namespace.isEmpty()) {
      return meta.getName();
    }
    return namespace + "/" + meta.getName();
  }

  /** The store key for a namespace (may be empty or null for cluster-scoped) and a name. */
  public static String metaNamespaceKey(String namespace, String name) {
    if (namespace == null || namespace.isEmpty()) {
      return name;
    }
    return namespace + "/" + name;
  }

  /**
   * Splits a store key into {@code [namespace, name]}; the namespace is {@code ""} for a
   * cluster-scoped key.
   *
   * @throws IllegalArgumentException if the key has more than one {@code /}
   */
  public static String[] splitMetaNamespaceKey(String key) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      return new String[] {"", key};
    }
    if (key.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("unexpected key format: " + key);
    }
    return new String[] {key.substring(0, slash), key.substring(slash + 1)};
  }

  /**
   * The built-in {@link Indexer#NAMESPACE_INDEX} function: one value, the namespace, for
   * namespaced objects; {@code ""} for cluster-scoped ones (matching client-go's
   * {@code MetaNamespaceIndexFunc}).
   */
  public static List<String> metaNamespaceIndex(HasMetadata obj) {
    String namespace = obj.getMetadata() == null ? null : obj.getMetadata().getNamespace();
    return List.of(namespace == null ? "" : namespace);
  }

  /** The resourceVersion of {@code obj}, or {@code ""} when it has none. */
  static String resourceVersion(HasMetadata obj) {
    ObjectMeta meta = obj.getMetadata();
    String rv = meta == null ? null : meta.getResourceVersion();
    return rv == null ? "" : rv;
  }
}
