package io.berth.scheduler.debug;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Resource;
import io.berth.scheduler.cache.CacheDump;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.queue.QueueName;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /debug/snapshot}: the cache as the scheduler sees it (each node with allocatable and
 * requested resources and its pods, the assumed pods, the nominated pods, the queues) and a
 * comparison of the cache and queue with the informers', as kube-scheduler's cache debugger logs
 * on SIGUSR2: nodes the informer has and the cache lacks ("missingNodes") or the other way round
 * ("redundantNodes"); pods the informer has that neither the cache (assigned pods) nor the queue
 * (pending pods this scheduler is responsible for) holds ("missingPods"), and pods the cache or
 * queue hold that the informer no longer has ("redundantPods"). Thread-safe: reads the cache's
 * dump (under its lock), the queue (under its lock) and the informers' listers.
 */
public final class SnapshotReport {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final SchedulerCache cache;
  private final SchedulingQueue queue;
  private final Supplier<List<Node>> informerNodes;
  private final Supplier<List<Pod>> informerPods;
  private final Predicate<Pod> responsibleFor;

  /**
   * @param informerNodes the nodes the informer holds now
   * @param informerPods the pods the informer holds now
   * @param responsibleFor whether this scheduler schedules a pod (its schedulerName)
   */
  public SnapshotReport(SchedulerCache cache, SchedulingQueue queue,
      Supplier<List<Node>> informerNodes, Supplier<List<Pod>> informerPods,
      Predicate<Pod> responsibleFor) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.queue = Objects.requireNonNull(queue, "queue");
    this.informerNodes = Objects.requireNonNull(informerNodes, "informerNodes");
    this.informerPods = Objects.requireNonNull(informerPods, "informerPods");
    this.responsibleFor = Objects.requireNonNull(responsibleFor, "responsibleFor");
  }

  /** The report as JSON. */
  public String render() {
    return MAPPER.writeValueAsString(tree());
  }

  /** The report as a Jackson tree. */
  public ObjectNode tree() {
    CacheDump dump = cache.dump();
    ObjectNode root = F.objectNode();
    ArrayNode nodes = root.putArray("nodes");
    Set<String> cachedNodes = new TreeSet<>();
    Set<String> cachedPodUids = new HashSet<>();
    java.util.Map<String, String> keyByUid = new java.util.HashMap<>();
    TreeMap<String, NodeInfo> sorted = new TreeMap<>(dump.nodes());
    ArrayNode nominated = F.arrayNode();
    for (var e : sorted.entrySet()) {
      NodeInfo info = e.getValue();
      ObjectNode n = nodes.addObject();
      n.put("name", e.getKey());
      if (info.node().isPresent()) {
        cachedNodes.add(e.getKey());
      } else {
        n.put("deleted", true);
      }
      n.set("allocatable", resources(info.allocatable(), true));
      n.set("requested", resources(info.requested(), false));
      n.put("podCount", info.pods().size());
      ArrayNode pods = n.putArray("pods");
      for (PodInfo p : info.pods()) {
        pods.add(key(p.pod()));
        cachedPodUids.add(p.uid());
        keyByUid.put(p.uid(), key(p.pod()));
      }
      for (PodInfo p : queue.nominatedPodsForNode(e.getKey())) {
        nominated.addObject().put("pod", key(p.pod())).put("node", e.getKey());
      }
    }
    ArrayNode assumed = root.putArray("assumedPods");
    List<String> assumedKeys = new ArrayList<>();
    for (String uid : dump.assumedPods()) {
      assumedKeys.add(keyByUid.getOrDefault(uid, uid));
    }
    assumedKeys.sort(null);
    assumedKeys.forEach(assumed::add);
    root.set("nominatedPods", nominated);
    ObjectNode queues = root.putObject("queues");
    for (QueueName q : QueueName.values()) {
      queues.putArray(q.label());
    }
    ArrayNode inFlight = queues.putArray("inFlight");
    Set<String> queuedUids = new HashSet<>();
    for (QueuedPodInfo p : queue.pendingPods()) {
      String k = p.key();
      queue.queueOf(p.pod().getMetadata().getNamespace(), p.pod().getMetadata().getName())
          .ifPresent(q -> ((ArrayNode) queues.get(q.label())).addObject().put("pod", k)
              .put("attempts", p.attempts()));
      queuedUids.add(p.pod().getMetadata().getUid());
    }
    for (Pod p : queue.inFlightPods()) {
      inFlight.add(key(p));
      queuedUids.add(p.getMetadata().getUid());
    }
    root.put("summary", queue.pendingPodsSummary());
    root.set("comparison", compare(cachedNodes, cachedPodUids, queuedUids));
    return root;
  }

  private ObjectNode compare(Set<String> cachedNodes, Set<String> cachedPodUids,
      Set<String> queuedUids) {
    Set<String> informerNodeNames = new TreeSet<>();
    for (Node n : informerNodes.get()) {
      informerNodeNames.add(n.getMetadata().getName());
    }
    ObjectNode out = F.objectNode();
    ArrayNode missingNodes = out.putArray("missingNodes");
    informerNodeNames.stream().filter(n -> !cachedNodes.contains(n)).forEach(missingNodes::add);
    ArrayNode redundantNodes = out.putArray("redundantNodes");
    cachedNodes.stream().filter(n -> !informerNodeNames.contains(n)).forEach(redundantNodes::add);
    Set<String> informerUids = new HashSet<>();
    List<String> missing = new ArrayList<>();
    for (Pod p : informerPods.get()) {
      String uid = p.getMetadata().getUid();
      informerUids.add(uid);
      boolean assigned = p.getSpec() != null && p.getSpec().getNodeName() != null
          && !p.getSpec().getNodeName().isEmpty();
      boolean terminal = p.getStatus() != null && ("Succeeded".equals(p.getStatus().getPhase())
          || "Failed".equals(p.getStatus().getPhase()));
      if (assigned ? !cachedPodUids.contains(uid) && !terminal
          : !terminal && responsibleFor.test(p) && !queuedUids.contains(uid)
              && !cachedPodUids.contains(uid)) {
        missing.add(key(p));
      }
    }
    missing.sort(null);
    ArrayNode missingPods = out.putArray("missingPods");
    missing.forEach(missingPods::add);
    ArrayNode redundantPods = out.putArray("redundantPods");
    List<String> redundant = new ArrayList<>();
    for (NodeInfo info : cache.dump().nodes().values()) {
      for (PodInfo p : info.pods()) {
        if (!informerUids.contains(p.uid())) {
          redundant.add(key(p.pod()));
        }
      }
    }
    for (QueuedPodInfo p : queue.pendingPods()) {
      if (!informerUids.contains(p.pod().getMetadata().getUid())) {
        redundant.add(p.key());
      }
    }
    redundant.sort(null);
    redundant.forEach(redundantPods::add);
    return out;
  }

  private static ObjectNode resources(Resource r, boolean withPods) {
    ObjectNode n = F.objectNode();
    n.put("cpu", r.milliCpu() % 1000 == 0 ? Long.toString(r.milliCpu() / 1000) : r.milliCpu() + "m");
    n.put("memory", Long.toString(r.memory()));
    if (r.ephemeralStorage() > 0) {
      n.put("ephemeral-storage", Long.toString(r.ephemeralStorage()));
    }
    if (withPods) {
      n.put("pods", Long.toString(r.allowedPodNumber()));
    }
    r.scalarResources().forEach((k, v) -> n.put(k, Long.toString(v)));
    return n;
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }
}
