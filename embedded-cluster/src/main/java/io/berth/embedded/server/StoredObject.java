package io.berth.embedded.server;

import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * One version of one object as the store holds it: the tree, its serialized JSON and the fields the server
 * matches on. Immutable: the tree must never be mutated after construction (copy it with {@link #copy()} to build a
 * new version), so a version can be shared by lists, watch events and history without copying.
 */
public final class StoredObject {

  private final ResourceType type;
  private final String namespace;
  private final String name;
  private final String uid;
  private final long resourceVersion;
  private final ObjectNode tree;
  private final byte[] json;
  private final Map<String, String> labels;

  StoredObject(ResourceType type, ObjectNode tree, long resourceVersion) {
    this.type = type;
    this.tree = tree;
    this.resourceVersion = resourceVersion;
    String ns = Json.text(tree, "metadata", "namespace");
    this.namespace = ns == null ? "" : ns;
    this.name = Json.text(tree, "metadata", "name");
    this.uid = Json.text(tree, "metadata", "uid");
    this.labels = Json.stringMap(tree, "metadata", "labels");
    this.json = Json.bytes(tree);
  }

  public ResourceType type() {
    return type;
  }

  /** The namespace, empty for cluster-scoped objects. */
  public String namespace() {
    return namespace;
  }

  public String name() {
    return name;
  }

  public String uid() {
    return uid;
  }

  public long resourceVersion() {
    return resourceVersion;
  }

  /** The store key: {@code namespace/name}, or {@code name} for cluster-scoped objects. */
  public String key() {
    return keyOf(namespace, name);
  }

  /** The object tree; shared and read-only: never mutate it. */
  public ObjectNode tree() {
    return tree;
  }

  /** A mutable deep copy of the tree, to build the next version from. */
  public ObjectNode copy() {
    return tree.deepCopy();
  }

  /** The serialized object; shared and read-only. */
  public byte[] json() {
    return json;
  }

  public Map<String, String> labels() {
    return labels;
  }

  /** Whether {@code metadata.deletionTimestamp} is set. */
  public boolean terminating() {
    return Json.at(tree, "metadata", "deletionTimestamp") != null;
  }

  static String keyOf(String namespace, String name) {
    return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
  }

  @Override
  public String toString() {
    return type.resource() + "/" + key() + "@" + resourceVersion;
  }
}
