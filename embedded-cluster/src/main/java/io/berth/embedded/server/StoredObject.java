package io.berth.embedded.server;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * One version of one object as the store holds it: its serialized JSON and the few fields the server matches on
 * (namespace, name, uid, labels, whether it is terminating, a pod's node and phase). The object tree is not kept:
 * {@link #tree()} parses the JSON again when no recent parse is still alive (the tree a version was built from stays
 * reachable through a weak reference, so the listeners and the request that wrote it reuse it). This keeps a stored
 * pod at about the size of its JSON instead of a Jackson tree's several times that (see BENCHMARKS.md, "Heap per
 * stored pod").
 *
 * <p>Immutable and thread-safe: the tree {@link #tree()} returns may be shared with other callers and must never
 * be mutated (build a new version from {@link #copy()}), so a version can be shared by lists, watch events and
 * history without copying. The weak tree cache is a benign race: two threads may parse the same bytes at once.
 */
public final class StoredObject {

  private final ResourceType type;
  private final String namespace;
  private final String name;
  private final String key;
  private final String uid;
  private final long resourceVersion;
  private final byte[] json;
  private final Map<String, String> labels;
  private final boolean terminating;
  // a pod's spec.nodeName and status.phase (the fields its field selectors and the kubelet read), else null
  private final String nodeName;
  private final String phase;
  // a parse of json that may still be alive; replaced (never mutated) by tree()
  private volatile WeakReference<ObjectNode> recentTree;

  StoredObject(ResourceType type, ObjectNode tree, long resourceVersion) {
    this.type = type;
    this.resourceVersion = resourceVersion;
    this.namespace = StoredStrings.intern(Json.text(tree, "metadata", "namespace"), "");
    String n = Json.text(tree, "metadata", "name");
    this.name = n;
    this.key = keyOf(namespace, n);
    this.uid = Json.text(tree, "metadata", "uid");
    this.labels = StoredStrings.labels(tree);
    this.terminating = Json.at(tree, "metadata", "deletionTimestamp") != null;
    boolean pod = type == ResourceTypes.PODS;
    this.nodeName = pod ? StoredStrings.intern(Json.text(tree, "spec", "nodeName"), null) : null;
    this.phase = pod ? StoredStrings.intern(Json.text(tree, "status", "phase"), null) : null;
    this.json = Json.bytes(tree);
    this.recentTree = new WeakReference<>(tree);
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
    return key;
  }

  /**
   * The object tree; shared and read-only: never mutate it. Cheap while a recent parse is alive, otherwise one parse
   * of {@link #json()}: callers that read many fields keep the result in a local variable.
   */
  public ObjectNode tree() {
    ObjectNode tree = recentTree.get();
    if (tree == null) {
      tree = (ObjectNode) Json.parse(json);
      recentTree = new WeakReference<>(tree);
    }
    return tree;
  }

  /** A mutable deep copy of the tree, to build the next version from. */
  public ObjectNode copy() {
    ObjectNode tree = recentTree.get();
    return tree != null ? tree.deepCopy() : (ObjectNode) Json.parse(json);
  }

  /** The serialized object; shared and read-only. */
  public byte[] json() {
    return json;
  }

  /** {@code metadata.labels}; immutable. */
  public Map<String, String> labels() {
    return labels;
  }

  /** Whether {@code metadata.deletionTimestamp} is set. */
  public boolean terminating() {
    return terminating;
  }

  /** A pod's {@code spec.nodeName}; empty when unbound or not a pod. */
  public Optional<String> nodeName() {
    return Optional.ofNullable(nodeName);
  }

  /** A pod's {@code status.phase}; empty when unset or not a pod. */
  public Optional<String> phase() {
    return Optional.ofNullable(phase);
  }

  static String keyOf(String namespace, String name) {
    return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
  }

  @Override
  public String toString() {
    return type.resource() + "/" + key + "@" + resourceVersion;
  }
}
