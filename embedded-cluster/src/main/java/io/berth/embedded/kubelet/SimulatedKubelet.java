package io.berth.embedded.kubelet;

import io.berth.embedded.server.ApiException;
import io.berth.embedded.server.Conditions;
import io.berth.embedded.server.DeleteOptions;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoreListener;
import io.berth.embedded.server.StoredObject;
import io.berth.embedded.server.WatchEvent;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One simulated kubelet for every node of the embedded cluster whose {@code Ready} condition is True. A pod bound
 * to such a node is admitted after {@link KubeletSettings#startupDelay()}: if its requests do not fit next to the
 * pods already running there it fails with an {@code OutOf<resource>} reason, as a kubelet's admission does;
 * otherwise it becomes Running with the {@code PodScheduled}, {@code PodReadyToStartContainers},
 * {@code Initialized}, {@code ContainersReady} and {@code Ready} conditions, a start time, IPs and container statuses
 * (containers of never-ready images run but stay unready). A deleting pod stops after its grace period (or the
 * configured termination delay) and is then removed. When a node is deleted, the pods bound to it are removed, as the
 * pod garbage collector does; pods bound to a node that never existed stay Pending.
 *
 * <p>Threading: {@link #onEvent} runs under the store lock and only updates {@code podsByNode} and schedules work;
 * one scheduler thread does the status writes: every pod sync that has come due is queued in {@code due} and the
 * queue is drained in order (at most {@value #BATCH} pods per drain task), each sync building its status write
 * before the store's write lock and holding the lock only to store it
 * ({@link ResourceOperations#mutateStatus}), so a burst of bindings never keeps the API server's writers waiting for more than one store step; syncs run one after
 * the other, so each admission sees the pods started before it. {@code podsByNode} is guarded by {@code this};
 * {@code due} is a concurrent queue drained only by the kubelet thread.
 */
public final class SimulatedKubelet implements StoreListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SimulatedKubelet.class);

  private final ResourceOperations ops;
  private final ObjectStore store;
  private volatile KubeletSettings settings;
  private final ScheduledExecutorService executor;
  // guarded by this: node name -> keys (namespace/name) of the pods bound to it
  private final Map<String, Set<String>> podsByNode = new HashMap<>();
  // guarded by this: key -> requests of each pod in podsByNode, taken when it was bound (while its tree is parsed),
  // so admission does not re-parse every other pod on the node
  private final Map<String, Map<String, BigDecimal>> requestsByPod = new HashMap<>();
  private final AtomicLong podIps = new AtomicLong();
  // node name -> what syncs read of the latest version they saw; filled by the kubelet thread, an entry dropped by
  // onEvent when its node is deleted
  private final Map<String, NodeFacts> nodeFacts = new java.util.concurrent.ConcurrentHashMap<>();
  /** Most pod syncs done by one drain task (then the task requeues itself behind other work). */
  static final int BATCH = 64;
  private final java.util.Queue<Runnable> due = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final java.util.concurrent.atomic.AtomicBoolean drainPending = new java.util.concurrent.atomic.AtomicBoolean();

  public SimulatedKubelet(ResourceOperations ops, KubeletSettings settings) {
    this.ops = ops;
    this.store = ops.store();
    this.settings = settings;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "embedded-kubelet");
      t.setDaemon(true);
      return t;
    });
    store.addListener(this);
  }

  public KubeletSettings settings() {
    return settings;
  }

  public void setSettings(KubeletSettings settings) {
    this.settings = settings;
  }

  @Override
  public void onEvent(WatchEvent event) {
    StoredObject obj = event.object();
    if (obj.type() == ResourceTypes.PODS) {
      trackPod(event);
      String node = obj.nodeName().orElse(null);
      if (node == null || node.isEmpty() || event.type() == WatchEvent.Type.DELETED) {
        return;
      }
      if (obj.terminating()) {
        schedule(obj.namespace(), obj.name(), stopDelay(obj));
      } else if (obj.phase().isEmpty() || "Pending".equals(obj.phase().get())) {
        schedule(obj.namespace(), obj.name(), settings.startupDelay());
      }
    } else if (obj.type() == ResourceTypes.NODES) {
      boolean wasReady = event.previous() != null && nodeReady(event.previous().tree());
      boolean gone = event.type() == WatchEvent.Type.DELETED;
      if (gone) {
        nodeFacts.remove(obj.name());
      }
      if (gone || (!wasReady && nodeReady(obj.tree()))) {
        for (String key : podsOn(obj.name())) {
          int slash = key.indexOf('/');
          schedule(key.substring(0, slash), key.substring(slash + 1), Duration.ZERO, gone);
        }
      }
    }
  }

  private void trackPod(WatchEvent event) {
    StoredObject obj = event.object();
    synchronized (this) {
      String before = event.previous() == null ? null : event.previous().nodeName().orElse(null);
      String node = obj.nodeName().orElse(null);
      boolean bound = event.type() != WatchEvent.Type.DELETED && node != null && !node.isEmpty();
      if (before != null && !(bound && before.equals(node))) {
        Set<String> keys = podsByNode.get(before);
        if (keys != null) {
          keys.remove(obj.key());
        }
        requestsByPod.remove(obj.key());
      }
      if (bound && podsByNode.computeIfAbsent(node, k -> new HashSet<>()).add(obj.key())) {
        requestsByPod.put(obj.key(), PodRequests.of(obj.tree()));
      }
    }
  }

  private synchronized Map<String, BigDecimal> requestsOf(StoredObject pod) {
    Map<String, BigDecimal> cached = requestsByPod.get(pod.key());
    return cached != null ? cached : PodRequests.of(pod.tree());
  }

  private synchronized List<String> podsOn(String node) {
    Set<String> keys = podsByNode.get(node);
    return keys == null ? List.of() : List.copyOf(keys);
  }

  private Duration stopDelay(StoredObject pod) {
    long grace = pod.tree().path("metadata").path("deletionGracePeriodSeconds").asLong(0);
    Duration graceDuration = Duration.ofSeconds(grace);
    return settings.terminationDelay().map(d -> d.compareTo(graceDuration) < 0 ? d : graceDuration)
        .orElse(graceDuration);
  }

  private void schedule(String namespace, String name, Duration delay) {
    schedule(namespace, name, delay, false);
  }

  private void schedule(String namespace, String name, Duration delay, boolean nodeDeleted) {
    Runnable sync = () -> {
      try {
        syncPod(namespace, name, nodeDeleted);
      } catch (ApiException e) {
        if (e.code() != 404 && e.code() != 409) {
          LOG.warn("kubelet could not sync pod {}/{}: {}", namespace, name, e.getMessage());
        }
      } catch (RuntimeException e) {
        LOG.warn("kubelet failed to sync pod {}/{}", namespace, name, e);
      }
    };
    try {
      executor.schedule(() -> {
        due.add(sync);
        requestDrain();
      }, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: nothing runs any more
    }
  }

  /** Queues a drain behind every sync already due, so that they are written together. */
  private void requestDrain() {
    if (drainPending.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        drainPending.set(false);
      }
    }
  }

  private void drain() {
    drainPending.set(false);
    for (int i = 0; i < BATCH; i++) {
      Runnable next = due.poll();
      if (next == null) {
        break;
      }
      next.run();
    }
    if (!due.isEmpty()) {
      requestDrain();
    }
  }

  private void syncPod(String namespace, String name, boolean nodeDeleted) {
    Optional<StoredObject> current = store.get(ResourceTypes.PODS, namespace, name);
    if (current.isEmpty()) {
      return;
    }
    StoredObject pod = current.get();
    String nodeName = pod.nodeName().orElse(null);
    if (nodeName == null || nodeName.isEmpty()) {
      return;
    }
    Optional<StoredObject> node = store.get(ResourceTypes.NODES, "", nodeName);
    if (pod.terminating()) {
      if (node.isEmpty() || facts(node.get()).ready()) {
        Instant due = Instant.parse(Json.text(pod.tree(), "metadata", "deletionTimestamp"));
        Duration early = Duration.between(ops.clock().instant(), due);
        if (settings.terminationDelay().isEmpty() && early.toMillis() > 1000) {
          schedule(namespace, name, early);
          return;
        }
        ops.delete(ResourceTypes.PODS, namespace, name, DeleteOptions.withGracePeriod(0));
      }
      return;
    }
    if (node.isEmpty()) {
      // No kubelet to run it; the pod garbage collector removes it only once its node was deleted.
      if (nodeDeleted) {
        ops.delete(ResourceTypes.PODS, namespace, name, DeleteOptions.withGracePeriod(0));
      }
      return;
    }
    NodeFacts nodeNow = facts(node.get());
    if (!nodeNow.ready()) {
      return;
    }
    String phase = pod.phase().orElse(null);
    if (phase != null && !"Pending".equals(phase)) {
      return;
    }
    Optional<String> rejection = admit(pod, node.get().name(), nodeNow.allocatable());
    String now = ops.now();
    if (rejection.isPresent()) {
      String[] reasonAndMessage = rejection.get().split("\n", 2);
      ops.mutateStatus(ResourceTypes.PODS, namespace, name, (obj, status) -> {
        status.put("phase", "Failed");
        status.put("reason", reasonAndMessage[0]);
        status.put("message", reasonAndMessage[1]);
        status.put("startTime", now);
      });
      return;
    }
    String hostIp = nodeNow.address();
    long ip = podIps.incrementAndGet();
    String podIp = "10.244." + ((ip >> 8) & 0xff) + "." + (ip & 0xff);
    boolean ready = containersReady(pod.tree());
    ops.mutateStatus(ResourceTypes.PODS, namespace, name,
        (obj, status) -> running(obj, status, now, hostIp, podIp, ready));
  }

  // sets a started pod's status; obj is the current pod, read only
  private void running(JsonNode obj, ObjectNode status, String now, String hostIp, String podIp, boolean ready) {
    status.put("phase", "Running");
    status.put("startTime", now);
    status.put("hostIP", hostIp);
    status.putArray("hostIPs").addObject().put("ip", hostIp);
    status.put("podIP", podIp);
    status.putArray("podIPs").addObject().put("ip", podIp);
    Conditions.set(status, "PodReadyToStartContainers", "True", null, null, now);
    Conditions.set(status, "Initialized", "True", null, null, now);
    Conditions.set(status, "ContainersReady", ready ? "True" : "False", ready ? null : "ContainersNotReady", null, now);
    Conditions.set(status, "Ready", ready ? "True" : "False", ready ? null : "ContainersNotReady", null, now);
    Conditions.set(status, "PodScheduled", "True", null, null, now);
    ArrayNode statuses = status.putArray("containerStatuses");
    JsonNode containers = Json.at(obj, "spec", "containers");
    if (containers != null) {
      for (JsonNode c : containers.values()) {
        String image = Json.text(c, "image");
        boolean containerReady = !settings.neverReadyImages().contains(image);
        ObjectNode cs = statuses.addObject();
        cs.put("name", Json.text(c, "name"));
        cs.put("image", image);
        cs.put("imageID", "docker.io/library/" + image + "@sha256:" + "0".repeat(64));
        cs.put("containerID", "containerd://" + Long.toHexString(System.nanoTime()));
        cs.put("ready", containerReady);
        cs.put("started", true);
        cs.put("restartCount", 0);
        cs.putObject("state").putObject("running").put("startedAt", now);
      }
    }
  }

  private boolean containersReady(JsonNode pod) {
    JsonNode containers = Json.at(pod, "spec", "containers");
    if (containers == null) {
      return true;
    }
    for (JsonNode c : containers.values()) {
      if (settings.neverReadyImages().contains(Json.text(c, "image"))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Kubelet admission: the pod must fit in the node's allocatable next to the running pods there. Returns
   * "reason\nmessage" when it does not.
   */
  private Optional<String> admit(StoredObject pod, String nodeName, Map<String, BigDecimal> allocatable) {
    Map<String, BigDecimal> used = new HashMap<>();
    int running = 0;
    for (String key : podsOn(nodeName)) {
      if (key.equals(pod.key())) {
        continue;
      }
      int slash = key.indexOf('/');
      Optional<StoredObject> other = store.get(ResourceTypes.PODS, key.substring(0, slash), key.substring(slash + 1));
      if (other.isEmpty() || !"Running".equals(other.get().phase().orElse(null))) {
        continue;
      }
      running++;
      requestsOf(other.get()).forEach((k, v) -> used.merge(k, v, BigDecimal::add));
    }
    BigDecimal maxPods = allocatable.get("pods");
    if (maxPods != null && BigDecimal.valueOf(running + 1L).compareTo(maxPods) > 0) {
      return Optional.of("OutOfpods\nPod was rejected: Node didn't have enough resource: pods, requested: 1, used: "
          + running + ", capacity: " + maxPods.toBigInteger());
    }
    for (Map.Entry<String, BigDecimal> request : requestsOf(pod).entrySet()) {
      String resource = request.getKey();
      BigDecimal capacity = allocatable.getOrDefault(resource, BigDecimal.ZERO);
      BigDecimal inUse = used.getOrDefault(resource, BigDecimal.ZERO);
      if (request.getValue().signum() > 0 && inUse.add(request.getValue()).compareTo(capacity) > 0) {
        return Optional.of("OutOf" + resource + "\nPod was rejected: Node didn't have enough resource: " + resource
            + ", requested: " + display(resource, request.getValue()) + ", used: " + display(resource, inUse)
            + ", capacity: " + display(resource, capacity));
      }
    }
    return Optional.empty();
  }

  /** What syncs read of one version of a node: whether it is Ready, its allocatable, its InternalIP. Immutable. */
  private record NodeFacts(StoredObject version, boolean ready, Map<String, BigDecimal> allocatable,
      String address) {
  }

  /** The facts of {@code node}, decoded once per stored version (called on the kubelet thread). */
  private NodeFacts facts(StoredObject node) {
    NodeFacts known = nodeFacts.get(node.name());
    if (known != null && known.version() == node) {
      return known;
    }
    JsonNode tree = node.tree();
    Map<String, BigDecimal> allocatable = new HashMap<>();
    JsonNode alloc = Json.at(tree, "status", "allocatable");
    if (alloc == null) {
      alloc = Json.at(tree, "status", "capacity");
    }
    if (alloc != null) {
      for (Map.Entry<String, JsonNode> e : alloc.properties()) {
        allocatable.put(e.getKey(), PodRequests.amount(e.getValue().asString()));
      }
    }
    NodeFacts decoded = new NodeFacts(node, nodeReady(tree), Map.copyOf(allocatable), nodeAddress(tree));
    nodeFacts.put(node.name(), decoded);
    return decoded;
  }

  private static String display(String resource, BigDecimal amount) {
    // The kubelet reports cpu in millicores and everything else in base units.
    BigDecimal v = resource.equals("cpu") ? amount.movePointRight(3) : amount;
    return v.setScale(0, java.math.RoundingMode.CEILING).toPlainString();
  }

  /** Whether a node tree's Ready condition is True. */
  public static boolean nodeReady(JsonNode node) {
    JsonNode conditions = Json.at(node, "status", "conditions");
    if (conditions == null) {
      return false;
    }
    for (JsonNode c : conditions.values()) {
      if ("Ready".equals(Json.text(c, "type"))) {
        return "True".equals(Json.text(c, "status"));
      }
    }
    return false;
  }

  private static String nodeAddress(JsonNode node) {
    JsonNode addresses = Json.at(node, "status", "addresses");
    if (addresses != null) {
      for (JsonNode a : addresses.values()) {
        if ("InternalIP".equals(Json.text(a, "type"))) {
          return Json.text(a, "address");
        }
      }
    }
    return "10.0.0.1";
  }

  @Override
  public void close() {
    store.removeListener(this);
    executor.shutdownNow();
  }
}
