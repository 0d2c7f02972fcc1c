package io.berth.embedded.server;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pod subresources a scheduler and a drain depend on: {@code binding} (assign a node: sets
 * {@code spec.nodeName} and the {@code PodScheduled} condition and, as v1.36's API server with
 * ClearingNominatedNodeNameAfterBinding (on by default), clears {@code status.nominatedNodeName}; 409 when
 * already bound or being deleted) and {@code eviction} (a deletion that honours PodDisruptionBudgets, 429 when
 * it would violate one). Immutable; thread-safe: a binding is built from a lock-free read and stored under the
 * store's write lock only if that version is still current (retried otherwise); an eviction is one step under the
 * lock.
 */
final class PodSubresources {

  private static final java.util.Set<String> STATUS = java.util.Set.of("status");
  private static final java.util.Set<String> SPEC = java.util.Set.of("spec");

  private final ResourceOperations ops;
  /** The ClearingNominatedNodeNameAfterBinding feature gate of the API server. */
  private final boolean clearNominatedNodeNameAfterBinding;

  PodSubresources(ResourceOperations ops) {
    this(ops, true);
  }

  PodSubresources(ResourceOperations ops, boolean clearNominatedNodeNameAfterBinding) {
    this.ops = ops;
    this.clearNominatedNodeNameAfterBinding = clearNominatedNodeNameAfterBinding;
  }

  /** Binds pod {@code name} as {@code binding} (a v1 Binding) asks. */
  StoredObject bind(String namespace, String name, ObjectNode binding) {
    String targetKind = Json.text(binding, "target", "kind");
    String node = Json.text(binding, "target", "name");
    if (targetKind != null && !targetKind.isEmpty() && !targetKind.equals("Node")) {
      throw ApiException.invalid(ResourceTypes.PODS, name, "target.kind: Unsupported value: \"" + targetKind
          + "\": supported values: \"Node\"");
    }
    if (node == null || node.isEmpty()) {
      throw ApiException.invalid(ResourceTypes.PODS, name, "target.name: Required value");
    }
    String uid = Json.text(binding, "metadata", "uid");
    Map<String, String> annotations = Json.stringMap(binding, "metadata", "annotations");
    ObjectStore store = ops.store();
    // Optimistic: check and build the bound pod from a lock-free read, then store it only if that version is still
    // the current one (else start over); the write lock is held for the store step alone.
    while (true) {
      StoredObject pod = ops.get(ResourceTypes.PODS, namespace, name);
      ObjectDraft next = new ObjectDraft(ResourceTypes.PODS, bound(pod, name, node, uid, annotations));
      StoredObject stored = store.write(() -> {
        StoredObject current = ops.get(ResourceTypes.PODS, namespace, name);
        return current.resourceVersion() == pod.resourceVersion() ? store.put(next) : null;
      });
      if (stored != null) {
        return stored;
      }
    }
  }

  /** The next version of {@code pod} bound to {@code node}, or the 409 the binding registry answers. */
  private ObjectNode bound(StoredObject pod, String name, String node, String uid, Map<String, String> annotations) {
    if (uid != null && !uid.isEmpty() && !uid.equals(pod.uid())) {
      throw ApiException.conflict(ResourceTypes.PODS, name, "Precondition failed: UID in precondition: " + uid
          + ", UID in object meta: " + pod.uid());
    }
    if (pod.terminating()) {
      throw ApiException.conflict(ResourceTypes.PODS, name, "pod " + name
          + " is being deleted, cannot be assigned to a host");
    }
    String bound = pod.nodeName().orElse(null);
    if (bound != null && !bound.isEmpty()) {
      throw ApiException.conflict(ResourceTypes.PODS, name, "pod " + name + " is already assigned to node \""
          + bound + "\"");
    }
    // One write, as the binding registry does: node name, annotations and the PodScheduled condition together.
    // spec gets one new field; status's conditions change in place: copy those, share the rest of the pod
    ObjectNode next = pod.copySharing(STATUS, SPEC);
    Json.objectAt(next, "spec").put("nodeName", node);
    if (!annotations.isEmpty()) {
      ObjectNode ann = Json.objectAt(next, "metadata", "annotations");
      annotations.forEach(ann::put);
    }
    ObjectNode status = Json.objectAt(next, "status");
    Conditions.set(status, "PodScheduled", "True", null, null, ops.now());
    if (clearNominatedNodeNameAfterBinding) {
      status.remove("nominatedNodeName");
    }
    return next;
  }

  /** Evicts pod {@code name}: deletes it with {@code eviction}'s delete options unless a PDB forbids it. */
  void evict(String namespace, String name, ObjectNode eviction, RequestInfo request) {
    DeleteOptions options = DeleteOptions.from(Json.at(eviction, "deleteOptions"), request);
    ObjectStore store = ops.store();
    store.write(() -> {
      StoredObject pod = ops.get(ResourceTypes.PODS, namespace, name);
      if (!pod.terminating() && !canIgnoreBudgets(pod)) {
        checkBudgets(namespace, pod);
      }
      ops.delete(ResourceTypes.PODS, namespace, name, options);
      return null;
    });
  }

  private static boolean canIgnoreBudgets(StoredObject pod) {
    String phase = Json.text(pod.tree(), "status", "phase");
    return "Succeeded".equals(phase) || "Failed".equals(phase) || "Pending".equals(phase);
  }

  /**
   * Computes each matching budget's allowed disruptions from the pods it selects now (no disruption controller
   * runs here): healthy = Ready and not terminating pods; desired healthy from minAvailable, or from the number of
   * selected pods minus maxUnavailable (percentages rounded up, as upstream).
   */
  private void checkBudgets(String namespace, StoredObject pod) {
    ObjectStore store = ops.store();
    List<StoredObject> budgets = store.list(ResourceTypes.POD_DISRUPTION_BUDGETS, namespace,
        pdb -> matches(pdb.tree().get("spec"), pod.labels())).items();
    if (budgets.isEmpty()) {
      return;
    }
    if (budgets.size() > 1) {
      throw ApiException.internal("This pod has more than one PodDisruptionBudget, which the eviction subresource "
          + "does not support.");
    }
    JsonNode spec = budgets.get(0).tree().path("spec");
    Predicate<Map<String, String>> selects = ops.hooks().labelSelectorObject(Json.at(spec, "selector"));
    List<StoredObject> selected = store.list(ResourceTypes.PODS, namespace, p -> selects.test(p.labels())).items();
    int expected = selected.size();
    long healthy = selected.stream().filter(p -> !p.terminating() && isReady(p.tree())).count();
    long desired;
    JsonNode minAvailable = Json.at(spec, "minAvailable");
    JsonNode maxUnavailable = Json.at(spec, "maxUnavailable");
    if (minAvailable != null) {
      desired = scaled(minAvailable, expected);
    } else if (maxUnavailable != null) {
      desired = Math.max(0, expected - scaled(maxUnavailable, expected));
    } else {
      desired = 0;
    }
    long allowed = healthy - desired;
    boolean podHealthy = isReady(pod.tree());
    if ((podHealthy && allowed <= 0) || (!podHealthy && healthy < desired)) {
      throw new ApiException(429, "TooManyRequests",
          "Cannot evict pod as it would violate the pod's disruption budget.",
          new ApiException.StatusDetails(pod.name(), "", "pods"));
    }
  }

  private boolean matches(JsonNode pdbSpec, Map<String, String> labels) {
    return pdbSpec != null && ops.hooks().labelSelectorObject(Json.at(pdbSpec, "selector")).test(labels);
  }

  private static long scaled(JsonNode intOrPercent, int total) {
    if (intOrPercent.isNumber()) {
      return intOrPercent.asLong();
    }
    String s = intOrPercent.asString();
    if (s.endsWith("%")) {
      long pct = Long.parseLong(s.substring(0, s.length() - 1));
      return (pct * total + 99) / 100;
    }
    return Long.parseLong(s);
  }

  static boolean isReady(JsonNode pod) {
    JsonNode conditions = Json.at(pod, "status", "conditions");
    if (conditions == null || !conditions.isArray()) {
      return false;
    }
    for (JsonNode c : conditions.values()) {
      if ("Ready".equals(Json.text(c, "type"))) {
        return "True".equals(Json.text(c, "status"));
      }
    }
    return false;
  }
}
