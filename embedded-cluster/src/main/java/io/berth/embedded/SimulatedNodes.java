package io.berth.embedded;

import io.berth.embedded.server.ApiException;
import io.berth.embedded.server.DeleteOptions;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoredObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Creates and changes the embedded cluster's simulated nodes at run time: add (with capacity, labels, taints, a
 * Ready condition and, optionally, GPUs published as a DRA ResourceSlice), change the published GPUs, cordon and uncordon, taint and untaint, make NotReady and Ready again, remove. Every change is a
 * normal API write, so informers see it. A Ready node's pods are run by the cluster's simulated kubelet.
 *
 * <p>Thread-safe: each call is one atomic store operation.
 */
public final class SimulatedNodes {

  /** The taint the node lifecycle controller puts on a node whose Ready condition is not True. */
  public static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";

  private final ResourceOperations ops;
  private final AtomicInteger addresses = new AtomicInteger();

  SimulatedNodes(ResourceOperations ops) {
    this.ops = ops;
  }

  /**
   * Adds a Ready node; fails with 409 when one of that name exists. A node with GPUs also publishes its
   * ResourceSlice and, if missing, creates the DeviceClass {@value SimulatedGpus#DEVICE_CLASS} (see
   * {@link SimulatedGpus}).
   */
  public StoredObject add(NodeSpec spec) {
    StoredObject node = ops.create(ResourceTypes.NODES, "", tree(spec));
    if (spec.gpus().count() > 0) {
      publishGpus(node, spec.gpus());
    }
    return node;
  }

  /**
   * Replaces the GPUs the node publishes (the slice's pool generation goes up, as a driver's republication does);
   * a count of 0 withdraws the slice. Fails with 404 when the node does not exist.
   */
  public void publishGpus(String nodeName, GpuSpec gpus) {
    StoredObject node = ops.get(ResourceTypes.NODES, "", nodeName);
    if (gpus.count() == 0) {
      deleteIfPresent(ResourceTypes.RESOURCE_SLICES, SimulatedGpus.sliceName(nodeName));
      return;
    }
    publishGpus(node, gpus);
  }

  private void publishGpus(StoredObject node, GpuSpec gpus) {
    if (ops.store().get(ResourceTypes.DEVICE_CLASSES, "", SimulatedGpus.DEVICE_CLASS).isEmpty()) {
      try {
        ops.create(ResourceTypes.DEVICE_CLASSES, "", SimulatedGpus.deviceClass());
      } catch (ApiException e) {
        if (e.code() != 409) {
          throw e;
        }
      }
    }
    ObjectNode slice = SimulatedGpus.slice(node, gpus);
    String name = SimulatedGpus.sliceName(node.name());
    ops.store().write(() -> {
      var current = ops.store().get(ResourceTypes.RESOURCE_SLICES, "", name);
      if (current.isEmpty()) {
        return ops.create(ResourceTypes.RESOURCE_SLICES, "", slice);
      }
      long generation = current.get().tree().path("spec").path("pool").path("generation").asLong(0);
      Json.objectAt(Json.objectAt(slice, "spec"), "pool").put("generation", generation + 1);
      return ops.update(ResourceTypes.RESOURCE_SLICES, "", name, slice, false);
    });
  }

  private void deleteIfPresent(io.berth.embedded.server.ResourceType type, String name) {
    try {
      ops.delete(type, "", name, DeleteOptions.DEFAULT);
    } catch (ApiException e) {
      if (e.code() != 404) {
        throw e;
      }
    }
  }

  /**
   * Adds Ready nodes in one atomic store write (the same objects, defaults, validation and ADDED events as
   * {@link #add} for each, in order), for simulations that stand up thousands of nodes at once. All or nothing: when
   * one is refused (a name that exists or repeats, an invalid field) none is added, and the {@link ApiException}
   * names the node and the field. Nodes with GPUs then publish their ResourceSlices as {@link #add} does (one
   * write per node, after the nodes are in).
   */
  public List<StoredObject> addAll(Collection<NodeSpec> specs) {
    List<ObjectNode> trees = new ArrayList<>(specs.size());
    List<NodeSpec> ordered = new ArrayList<>(specs);
    for (NodeSpec spec : ordered) {
      trees.add(tree(spec));
    }
    List<StoredObject> nodes = ops.createAll(ResourceTypes.NODES, "", trees);
    for (int i = 0; i < nodes.size(); i++) {
      if (ordered.get(i).gpus().count() > 0) {
        publishGpus(nodes.get(i), ordered.get(i).gpus());
      }
    }
    return nodes;
  }

  private ObjectNode tree(NodeSpec spec) {
    ObjectNode node = Json.object();
    node.put("apiVersion", "v1");
    node.put("kind", "Node");
    ObjectNode meta = node.putObject("metadata");
    meta.put("name", spec.name());
    ObjectNode labels = meta.putObject("labels");
    labels.put("kubernetes.io/hostname", spec.name());
    labels.put("kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.put("beta.kubernetes.io/os", "linux");
    labels.put("beta.kubernetes.io/arch", "amd64");
    if (spec.zone() != null) {
      labels.put("topology.kubernetes.io/zone", spec.zone());
    }
    if (spec.region() != null) {
      labels.put("topology.kubernetes.io/region", spec.region());
    }
    spec.labels().forEach(labels::put);
    ObjectNode nodeSpec = node.putObject("spec");
    if (!spec.taints().isEmpty()) {
      ArrayNode taints = nodeSpec.putArray("taints");
      for (NodeSpec.Taint t : spec.taints()) {
        ObjectNode taint = taints.addObject();
        taint.put("key", t.key());
        if (t.value() != null) {
          taint.put("value", t.value());
        }
        taint.put("effect", t.effect());
      }
    }
    ObjectNode status = node.putObject("status");
    ObjectNode capacity = status.putObject("capacity");
    capacity.put("cpu", spec.cpu());
    capacity.put("memory", spec.memory());
    capacity.put("pods", Integer.toString(spec.pods()));
    capacity.put("ephemeral-storage", spec.ephemeralStorage());
    spec.extended().forEach(capacity::put);
    status.set("allocatable", capacity.deepCopy());
    String now = ops.now();
    ArrayNode conditions = status.putArray("conditions");
    condition(conditions, "MemoryPressure", "False", "KubeletHasSufficientMemory", now);
    condition(conditions, "DiskPressure", "False", "KubeletHasNoDiskPressure", now);
    condition(conditions, "PIDPressure", "False", "KubeletHasSufficientPID", now);
    condition(conditions, "Ready", "True", "KubeletReady", now);
    int n = addresses.incrementAndGet();
    ArrayNode addrs = status.putArray("addresses");
    ObjectNode ip = addrs.addObject();
    ip.put("type", "InternalIP");
    ip.put("address", "10.0." + ((n >> 8) & 0xff) + "." + (n & 0xff));
    ObjectNode host = addrs.addObject();
    host.put("type", "Hostname");
    host.put("address", spec.name());
    ObjectNode info = status.putObject("nodeInfo");
    info.put("kubeletVersion", "v1.32.0");
    info.put("kubeProxyVersion", "v1.32.0");
    info.put("containerRuntimeVersion", "containerd://1.7.24");
    info.put("operatingSystem", "linux");
    info.put("architecture", "amd64");
    info.put("osImage", "Berth simulated node");
    info.put("kernelVersion", "6.1.0");
    info.put("machineID", spec.name());
    info.put("systemUUID", spec.name());
    info.put("bootID", spec.name());
    if (!spec.images().isEmpty()) {
      ArrayNode images = status.putArray("images");
      for (Map.Entry<String, Long> e : spec.images().entrySet()) {
        ObjectNode image = images.addObject();
        image.putArray("names").add(e.getKey());
        image.put("sizeBytes", e.getValue());
      }
    }
    status.putObject("daemonEndpoints").putObject("kubeletEndpoint").put("Port", 10250);
    return node;
  }

  private static void condition(ArrayNode conditions, String type, String status, String reason, String now) {
    ObjectNode c = conditions.addObject();
    c.put("type", type);
    c.put("status", status);
    c.put("lastHeartbeatTime", now);
    c.put("lastTransitionTime", now);
    c.put("reason", reason);
    c.put("message", reason);
  }

  /** Marks the node unschedulable ({@code kubectl cordon}). */
  public StoredObject cordon(String name) {
    return change(name, node -> Json.objectAt(node, "spec").put("unschedulable", true), false);
  }

  /** Makes the node schedulable again. */
  public StoredObject uncordon(String name) {
    return change(name, node -> Json.objectAt(node, "spec").remove("unschedulable"), false);
  }

  /** Adds (or replaces, by key and effect) a taint. */
  public StoredObject taint(String name, NodeSpec.Taint taint) {
    return change(name, node -> {
      ArrayNode taints = taints(node);
      removeTaint(taints, taint.key(), taint.effect());
      ObjectNode t = taints.addObject();
      t.put("key", taint.key());
      if (taint.value() != null) {
        t.put("value", taint.value());
      }
      t.put("effect", taint.effect());
    }, false);
  }

  /** Removes every taint with {@code key}. */
  public StoredObject untaint(String name, String key) {
    return change(name, node -> removeTaint(taints(node), key, null), false);
  }

  /**
   * Makes the node Ready or NotReady. NotReady stops its kubelet (pods there neither start nor finish terminating)
   * and adds the {@code node.kubernetes.io/not-ready} NoSchedule and NoExecute taints as the node lifecycle
   * controller does; Ready removes them.
   */
  public StoredObject setReady(String name, boolean ready) {
    String now = ops.now();
    change(name, node -> {
      JsonNode conditions = Json.at(node, "status", "conditions");
      if (conditions != null) {
        for (JsonNode c : conditions.values()) {
          if ("Ready".equals(Json.text(c, "type")) && c instanceof ObjectNode o) {
            o.put("status", ready ? "True" : "False");
            o.put("reason", ready ? "KubeletReady" : "KubeletNotReady");
            o.put("message", ready ? "kubelet is posting ready status" : "simulated node is not ready");
            o.put("lastTransitionTime", now);
            o.put("lastHeartbeatTime", now);
          }
        }
      }
    }, true);
    return change(name, node -> {
      ArrayNode taints = taints(node);
      removeTaint(taints, NOT_READY_TAINT, null);
      if (!ready) {
        for (String effect : new String[] {"NoSchedule", "NoExecute"}) {
          ObjectNode t = taints.addObject();
          t.put("key", NOT_READY_TAINT);
          t.put("effect", effect);
          t.put("timeAdded", now);
        }
      }
    }, false);
  }

  /**
   * Deletes the node and the ResourceSlice of its GPUs; pods bound to it are removed by the pod garbage collection
   * of the simulated kubelet.
   */
  public void remove(String name) {
    ops.delete(ResourceTypes.NODES, "", name, DeleteOptions.DEFAULT);
    deleteIfPresent(ResourceTypes.RESOURCE_SLICES, SimulatedGpus.sliceName(name));
  }

  private StoredObject change(String name, java.util.function.Consumer<ObjectNode> change, boolean status) {
    return ops.mutate(ResourceTypes.NODES, "", name, node -> {
      change.accept(node);
      return node;
    }, status).orElseThrow(() -> ApiException.notFound(ResourceTypes.NODES, name));
  }

  private static ArrayNode taints(ObjectNode node) {
    ObjectNode spec = Json.objectAt(node, "spec");
    JsonNode taints = spec.get("taints");
    return taints instanceof ArrayNode a ? a : spec.putArray("taints");
  }

  private static void removeTaint(ArrayNode taints, String key, String effect) {
    for (int i = taints.size() - 1; i >= 0; i--) {
      JsonNode t = taints.get(i);
      if (key.equals(Json.text(t, "key")) && (effect == null || effect.equals(Json.text(t, "effect")))) {
        taints.remove(i);
      }
    }
  }
}
