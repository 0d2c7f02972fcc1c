package io.berth.embedded.server;

import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * One version of one object as the store holds it: its serialized JSON and the few fields the server matches on
 * (namespace, name, uid, labels, owner uids, whether it is terminating, a pod's node and phase). The object tree is
 * not kept: {@link #tree()} parses the JSON again when no recent parse is still alive (the tree a version was built from stays
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
  // the uids of metadata.ownerReferences (interned; owners are shared by many dependents)
  private final List<String> ownerUids;
  // a parse of json that may still be alive; replaced (never mutated) by tree()
  private volatile WeakReference<ObjectNode> recentTree;

  /** A version whose tree already carries {@code resourceVersion}; serializes it. */
  StoredObject(ResourceType type, ObjectNode tree, long resourceVersion) {
    this(type, tree, resourceVersion, Json.bytes(tree));
  }

  /** A version whose tree already carries {@code resourceVersion} and serializes to {@code json}. */
  StoredObject(ResourceType type, ObjectNode tree, long resourceVersion, byte[] json) {
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
    this.ownerUids = StoredStrings.ownerUids(tree);
    this.json = json;
    this.recentTree = new WeakReference<>(tree);
  }

  // the same object at another resourceVersion, serialized as json
  private StoredObject(StoredObject same, long resourceVersion, byte[] json) {
    this.type = same.type;
    this.namespace = same.namespace;
    this.name = same.name;
    this.key = same.key;
    this.uid = same.uid;
    this.resourceVersion = resourceVersion;
    this.json = json;
    this.labels = same.labels;
    this.terminating = same.terminating;
    this.nodeName = same.nodeName;
    this.phase = same.phase;
    this.ownerUids = same.ownerUids;
    this.recentTree = new WeakReference<>(null);
  }

  /**
   * This version's content at resourceVersion {@code rv} (a deletion's tombstone). Splices the new version into
   * the JSON when the current one occurs there exactly once (quoted, as {@code "resourceVersion":"N"}); otherwise
   * parses, stamps and serializes again.
   */
  StoredObject restamped(long rv) {
    byte[] field = ("\"resourceVersion\":\"" + resourceVersion + "\"").getBytes(StandardCharsets.US_ASCII);
    int at = ObjectDraft.onlyOccurrence(json, field);
    if (at < 0) {
      ObjectNode tree = copy();
      Json.metadata(tree).put("resourceVersion", Long.toString(rv));
      return new StoredObject(type, tree, rv);
    }
    byte[] replacement = ("\"resourceVersion\":\"" + rv + "\"").getBytes(StandardCharsets.US_ASCII);
    return new StoredObject(this, rv, ObjectDraft.splice(json, at, field.length, replacement));
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

  /**
   * A mutable copy of the tree to build the next version from, cheaper than {@link #copy()} when a write changes a
   * few top-level fields: the top level and {@code metadata} are new; each field in {@code deep} is a deep copy; each
   * object field in {@code shallow} is a new object whose own fields are shared; every other field is this
   * version's own node, shared. The caller may change the top level, {@code metadata}, the {@code deep} fields
   * anywhere and the {@code shallow} fields' own entries (put, remove, set), and must not change anything inside a
   * shared node (they belong to this version, which is read-only). Serializes exactly as {@link #copy()} does.
   */
  public ObjectNode copySharing(java.util.Set<String> deep, java.util.Set<String> shallow) {
    ObjectNode tree = recentTree.get();
    if (tree == null) {
      // a fresh parse is nobody else's: all of it may change
      return (ObjectNode) Json.parse(json);
    }
    ObjectNode out = Json.object();
    for (Map.Entry<String, tools.jackson.databind.JsonNode> e : tree.properties()) {
      String field = e.getKey();
      tools.jackson.databind.JsonNode value = e.getValue();
      if (field.equals("metadata") || deep.contains(field)) {
        out.set(field, value.deepCopy());
      } else if (shallow.contains(field) && value instanceof ObjectNode object) {
        ObjectNode level = Json.object();
        for (Map.Entry<String, tools.jackson.databind.JsonNode> inner : object.properties()) {
          level.set(inner.getKey(), inner.getValue());
        }
        out.set(field, level);
      } else {
        out.set(field, value);
      }
    }
    return out;
  }

  /** The serialized object; shared and read-only. */
  public byte[] json() {
    return json;
  }

  /** {@code metadata.labels}; immutable. */
  public Map<String, String> labels() {
    return labels;
  }

  /** The uids in {@code metadata.ownerReferences}, in order; immutable, empty when it has none. */
  public List<String> ownerUids() {
    return ownerUids;
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
