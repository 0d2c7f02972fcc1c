package io.berth.simulator.dashboard;

import io.berth.scheduler.EventOccurrences;
import io.berth.framework.QueuedPodInfo;
import io.berth.informer.Lister;
import io.berth.scheduler.explain.ExplainJson;
import io.berth.scheduler.explain.ExplainText;
import io.berth.scheduler.explain.Explanation;
import io.berth.scheduler.queue.QueueName;
import io.berth.scheduler.queue.SchedulingQueue;
import io.berth.simulator.RunningCluster;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Builds what the dashboard's JSON API answers, from the in-process informers' caches and the scheduler's queue:
 * {@code /api/cluster} (nodes by zone with their pods and cpu/memory requested against allocatable, pending pods
 * with their queue and reason, Deployments with their rollout progress, PodGroups, queue depths),
 * {@code /api/queue} and {@code /api/pods/{ns}/{name}/explain}. Values are plain maps and lists for the JSON
 * writer. The counts over all pods come from {@link PodTotals}, kept from the pod informer's events, so a poll
 * costs O(nodes) at 100,000 pods. Thread-safe: it only reads thread-safe listers, {@link PodTotals}, the queue and
 * the API server.
 */
final class DashboardData {

  static final String ZONE_LABEL = "topology.kubernetes.io/zone";
  static final String NO_ZONE = "(no zone)";
  static final String POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group";
  /**
   * Above this many pods on nodes, {@code /api/cluster} gives each node its pod count ({@code podCount}) and no pod
   * list ({@code "podsListed": false}): a 100,000-pod answer per poll would stall the page and the simulator.
   */
  static final int POD_LIST_LIMIT = 2_000;
  /** At most this many pending pods are listed ({@code counts.pending} has them all). */
  static final int PENDING_LIST_LIMIT = 500;

  private final RunningCluster run;
  private final RunStatus status;
  private final Lister<Pod> pods;
  private final Lister<Node> nodes;
  private final Lister<Deployment> deployments;
  private final Lister<Event> events;
  private final PodTotals totals = new PodTotals();

  /** Registers its pod handler on {@code run}'s informers: construct before they start. */
  DashboardData(RunningCluster run, RunStatus status) {
    this.run = run;
    this.status = status;
    this.pods = run.informers().lister(Pod.class);
    this.nodes = run.informers().lister(Node.class);
    this.deployments = run.informers().lister(Deployment.class);
    this.events = run.informers().lister(Event.class);
    run.informers().informerFor(Pod.class).addEventHandler(totals);
  }

  Map<String, Object> cluster() {
    PodTotals.View totals = this.totals.view(PENDING_LIST_LIMIT);
    boolean listPods = totals.boundPods() <= POD_LIST_LIMIT;
    Map<String, List<Pod>> byNode = new TreeMap<>();
    if (listPods) {
      // few pods on nodes: list them (a pass over the cached pods, cheap at this size)
      for (Pod p : pods.list()) {
        if (p.getSpec().getNodeName() != null && !terminal(p)) {
          byNode.computeIfAbsent(p.getSpec().getNodeName(), n -> new ArrayList<>()).add(p);
        }
      }
    }
    Map<String, List<Map<String, Object>>> zones = new TreeMap<>();
    List<Node> nodeList = new ArrayList<>(nodes.list());
    nodeList.sort(Comparator.comparing(n -> n.getMetadata().getName()));
    for (Node n : nodeList) {
      String zone = Optional.ofNullable(n.getMetadata().getLabels()).map(l -> l.get(ZONE_LABEL)).orElse(NO_ZONE);
      String name = n.getMetadata().getName();
      zones.computeIfAbsent(zone, z -> new ArrayList<>()).add(node(n,
          totals.nodes().getOrDefault(name, PodTotals.NodeTotal.EMPTY), byNode.getOrDefault(name, List.of())));
    }
    List<Map<String, Object>> zoneList = new ArrayList<>();
    zones.forEach((zone, list) -> zoneList.add(map("name", zone, "nodes", list)));
    List<Map<String, Object>> pending = new ArrayList<>();
    for (String[] key : totals.pending()) {
      pods.get(key[0], key[1]).ifPresent(p -> pending.add(pendingPod(p)));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("scenario", map("name", status.scenario(), "description", status.description(),
        "status", status.status(), "done", status.done()));
    out.put("counts", map("nodes", nodeList.size(), "pods", totals.pods(), "running", totals.running(),
        "pending", totals.pendingCount()));
    out.put("podsListed", listPods);
    out.put("queue", depths());
    out.put("zones", zoneList);
    out.put("pending", pending);
    out.put("deployments", deployments());
    out.put("podGroups", podGroups(totals.groups()));
    return out;
  }

  Map<String, Object> queue() {
    Map<String, Object> out = new LinkedHashMap<>(depths());
    List<Map<String, Object>> list = new ArrayList<>();
    SchedulingQueue q = run.scheduler().queue();
    for (QueuedPodInfo info : q.pendingPods()) {
      Pod p = info.pod();
      String queue = q.queueOf(p.getMetadata().getNamespace(), p.getMetadata().getName()).map(QueueName::label)
          .orElse("inFlight");
      Map<String, Object> m = map("namespace", p.getMetadata().getNamespace(), "name", p.getMetadata().getName(),
          "queue", queue, "attempts", info.attempts(),
          "unschedulablePlugins", new java.util.TreeSet<>(info.unschedulablePlugins()));
      info.gatingPlugin().ifPresent(g -> m.put("gatingPlugin", g));
      list.add(m);
    }
    for (Pod p : q.inFlightPods()) {
      list.add(map("namespace", p.getMetadata().getNamespace(), "name", p.getMetadata().getName(),
          "queue", "inFlight"));
    }
    list.sort(Comparator.comparing((Map<String, Object> m) -> (String) m.get("namespace"))
        .thenComparing(m -> (String) m.get("name")));
    out.put("pods", list);
    return out;
  }

  /** The pod's explanation; empty when no such pod exists. */
  Optional<Map<String, Object>> explain(String namespace, String name) {
    Optional<Pod> found = pods.get(namespace, name);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Pod p = found.get();
    SchedulingQueue q = run.scheduler().queue();
    Map<String, Object> out = map("namespace", namespace, "name", name, "node", p.getSpec().getNodeName(),
        "phase", p.getStatus() == null ? null : p.getStatus().getPhase(),
        "nominatedNode", p.getStatus() == null ? null : p.getStatus().getNominatedNodeName(),
        "schedulerName", p.getSpec().getSchedulerName());
    Optional<QueuedPodInfo> queued = q.getPod(namespace, name);
    out.put("queue", q.queueOf(namespace, name).map(QueueName::label)
        .orElse(p.getSpec().getNodeName() != null ? null : "inFlight"));
    queued.ifPresent(info -> {
      out.put("attempts", info.attempts());
      out.put("unschedulablePlugins", new java.util.TreeSet<>(info.unschedulablePlugins()));
      info.gatingPlugin().ifPresent(g -> out.put("gatingPlugin", g));
      if (info.attempts() > 0) {
        out.put("backoffUntil", q.backoffExpiry(info).toString());
      }
    });
    Optional<PodCondition> scheduled = scheduledCondition(p);
    out.put("condition", scheduled.map(c -> map("type", c.getType(), "status", c.getStatus(),
        "reason", c.getReason(), "message", c.getMessage(), "lastTransitionTime", c.getLastTransitionTime()))
        .orElse(null));
    out.put("reason", reason(p, scheduled));
    List<Map<String, Object>> podEvents = new ArrayList<>();
    events.list(namespace).stream()
        .filter(e -> e.getInvolvedObject() != null && "Pod".equals(e.getInvolvedObject().getKind())
            && name.equals(e.getInvolvedObject().getName()))
        .sorted(Comparator.comparing(DashboardData::eventTime))
        .forEach(e -> podEvents.add(map("type", e.getType(), "reason", e.getReason(), "message", e.getMessage(),
            "count", EventOccurrences.count(e), "time", eventTime(e))));
    out.put("events", podEvents);
    Explanation recorded = run.scheduler().explainer().explain(namespace, name);
    if (!recorded.isEmpty()) {
      // the scheduler's own record of its attempts: per-node Filter verdicts, scores, preemption
      out.put("explain", ExplainJson.tree(recorded));
    }
    out.put("source", recorded.isEmpty() ? "the pod's PodScheduled condition, the scheduling queue and its Events"
        : "the scheduler's recorded attempts, the pod's PodScheduled condition, the scheduling queue and its Events");
    return Optional.of(out);
  }

  /** The scheduler's explanation as a table for a terminal (as {@code /debug/explain?format=text}); empty if none. */
  Optional<String> explainText(String namespace, String name) {
    if (pods.get(namespace, name).isEmpty()) {
      return Optional.empty();
    }
    Explanation recorded = run.scheduler().explainer().explain(namespace, name);
    return Optional.of(recorded.isEmpty() ? "no scheduling attempt of " + namespace + "/" + name + " recorded\n"
        : ExplainText.render(recorded));
  }

  private Map<String, Object> depths() {
    SchedulingQueue q = run.scheduler().queue();
    return map("active", q.activeSize(), "backoff", q.backoffSize(), "unschedulable", q.unschedulableSize(),
        "gated", q.gatedSize(), "inFlight", q.inFlightSize());
  }

  /** A node's box: its totals, and {@code listed} (its pods, when pods are listed at all). */
  private Map<String, Object> node(Node n, PodTotals.NodeTotal total, List<Pod> listed) {
    Map<String, io.fabric8.kubernetes.api.model.Quantity> alloc = n.getStatus() == null ? Map.of()
        : n.getStatus().getAllocatable();
    boolean ready = n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions()
        .stream().anyMatch((NodeCondition c) -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    List<String> taints = new ArrayList<>();
    if (n.getSpec().getTaints() != null) {
      n.getSpec().getTaints().forEach(t -> taints.add(t.getKey() + (t.getValue() == null || t.getValue().isEmpty()
          ? "" : "=" + t.getValue()) + ":" + t.getEffect()));
    }
    List<Map<String, Object>> podList = new ArrayList<>();
    listed.stream().sorted(Comparator.comparing(p -> p.getMetadata().getName())).forEach(p -> podList.add(map(
        "namespace", p.getMetadata().getNamespace(), "name", p.getMetadata().getName(),
        "phase", p.getStatus() == null ? "Pending" : p.getStatus().getPhase(),
        "terminating", p.getMetadata().getDeletionTimestamp() != null,
        "owner", owner(p), "priority", p.getSpec().getPriority(),
        "cpu", Resources.cpuMillis(p), "memory", Resources.memoryBytes(p))));
    return map("name", n.getMetadata().getName(),
        "zone", Optional.ofNullable(n.getMetadata().getLabels()).map(l -> l.get(ZONE_LABEL)).orElse(NO_ZONE),
        "ready", ready, "unschedulable", Boolean.TRUE.equals(n.getSpec().getUnschedulable()), "taints", taints,
        "cpu", map("allocatable", Resources.amount(alloc, "cpu", new BigDecimal(1000)), "requested",
            total.cpuMillis()),
        "memory", map("allocatable", Resources.amount(alloc, "memory", BigDecimal.ONE), "requested",
            total.memoryBytes()),
        "podCapacity", Resources.amount(alloc, "pods", BigDecimal.ONE), "podCount", total.pods(), "pods", podList);
  }

  private Map<String, Object> pendingPod(Pod p) {
    SchedulingQueue q = run.scheduler().queue();
    String ns = p.getMetadata().getNamespace();
    String name = p.getMetadata().getName();
    Optional<QueuedPodInfo> info = q.getPod(ns, name);
    return map("namespace", ns, "name", name, "owner", owner(p),
        "queue", q.queueOf(ns, name).map(QueueName::label).orElse("inFlight"),
        "attempts", info.map(QueuedPodInfo::attempts).orElse(0),
        "priority", p.getSpec().getPriority(),
        "nominatedNode", p.getStatus() == null ? null : p.getStatus().getNominatedNodeName(),
        "reason", reason(p, scheduledCondition(p)),
        "cpu", Resources.cpuMillis(p), "memory", Resources.memoryBytes(p));
  }

  /** Why the pod is not on a node, in one line: the PodScheduled condition's message, else what is known. */
  private String reason(Pod p, Optional<PodCondition> scheduled) {
    if (p.getSpec().getNodeName() != null) {
      return "bound to " + p.getSpec().getNodeName();
    }
    if (p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty()) {
      return "waiting for scheduling gates: " + String.join(", ", p.getSpec().getSchedulingGates().stream()
          .map(g -> g.getName()).toList());
    }
    if (scheduled.isPresent() && "False".equals(scheduled.get().getStatus())
        && scheduled.get().getMessage() != null) {
      return scheduled.get().getMessage();
    }
    if (!run.scheduler().frameworks().containsKey(p.getSpec().getSchedulerName())) {
      return "schedulerName " + p.getSpec().getSchedulerName() + " is not a profile of this scheduler";
    }
    return q(p).map(info -> info.gatingPlugin().map(g -> "held by " + g + " (PreEnqueue)")
        .orElse("waiting in the " + run.scheduler().queue().queueOf(p.getMetadata().getNamespace(),
            p.getMetadata().getName()).map(QueueName::label).orElse("scheduling") + " queue")).orElse("being scheduled");
  }

  private Optional<QueuedPodInfo> q(Pod p) {
    return run.scheduler().queue().getPod(p.getMetadata().getNamespace(), p.getMetadata().getName());
  }

  private List<Map<String, Object>> deployments() {
    List<Map<String, Object>> out = new ArrayList<>();
    List<Deployment> list = new ArrayList<>(deployments.list());
    list.sort(Comparator.comparing((Deployment d) -> d.getMetadata().getNamespace())
        .thenComparing(d -> d.getMetadata().getName()));
    for (Deployment d : list) {
      var st = d.getStatus();
      int desired = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
      String progressing = "";
      if (st != null && st.getConditions() != null) {
        progressing = st.getConditions().stream().filter((DeploymentCondition c) -> "Progressing".equals(c.getType()))
            .map(c -> c.getReason() == null ? c.getStatus() : c.getReason()).findFirst().orElse("");
      }
      boolean observed = st != null && st.getObservedGeneration() != null
          && st.getObservedGeneration() >= d.getMetadata().getGeneration();
      int updated = st == null || st.getUpdatedReplicas() == null ? 0 : st.getUpdatedReplicas();
      int available = st == null || st.getAvailableReplicas() == null ? 0 : st.getAvailableReplicas();
      int total = st == null || st.getReplicas() == null ? 0 : st.getReplicas();
      // status.replicas counts the pods of every ReplicaSet of the Deployment; the rest are old revisions'
      int oldPods = Math.max(0, total - updated);
      out.add(map("namespace", d.getMetadata().getNamespace(), "name", d.getMetadata().getName(),
          "replicas", desired, "updated", updated, "available", available, "current", total, "old", oldPods,
          "ready", st == null || st.getReadyReplicas() == null ? 0 : st.getReadyReplicas(),
          "images", d.getSpec().getTemplate().getSpec().getContainers().stream().map(c -> c.getImage()).toList(),
          "revision", d.getMetadata().getAnnotations() == null ? null
              : d.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"),
          "progressing", progressing,
          "complete", observed && updated == desired && available == desired && total == desired));
    }
    return out;
  }

  private Map<String, Object> podGroups(Map<String, PodTotals.GroupTotal> totals) {
    List<GenericKubernetesResource> groups;
    try {
      groups = run.client().genericKubernetesResources("scheduling.x-k8s.io/v1alpha1", "PodGroup").inAnyNamespace()
          .list().getItems();
    } catch (KubernetesClientException e) {
      // 404: the CRD is not installed
      return map("installed", false, "items", List.of());
    }
    List<Map<String, Object>> items = new ArrayList<>();
    groups.sort(Comparator.comparing((GenericKubernetesResource g) -> g.getMetadata().getNamespace())
        .thenComparing(g -> g.getMetadata().getName()));
    for (GenericKubernetesResource g : groups) {
      String ns = g.getMetadata().getNamespace();
      String name = g.getMetadata().getName();
      PodTotals.GroupTotal members = totals.getOrDefault(ns + "/" + name, PodTotals.GroupTotal.EMPTY);
      Object spec = g.getAdditionalProperties().get("spec");
      Object min = spec instanceof Map<?, ?> m ? m.get("minMember") : null;
      Object st = g.getAdditionalProperties().get("status");
      Object phase = st instanceof Map<?, ?> m ? m.get("phase") : null;
      items.add(map("namespace", ns, "name", name, "minMember", min, "phase", phase, "members", members.members(),
          "scheduled", members.scheduled(), "running", members.running()));
    }
    return map("installed", true, "items", items);
  }

  private static Optional<PodCondition> scheduledCondition(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType())).findFirst();
  }

  private static String owner(Pod p) {
    if (p.getMetadata().getLabels() != null && p.getMetadata().getLabels().get("app") != null) {
      return p.getMetadata().getLabels().get("app");
    }
    if (p.getMetadata().getLabels() != null && p.getMetadata().getLabels().get(POD_GROUP_LABEL) != null) {
      return p.getMetadata().getLabels().get(POD_GROUP_LABEL);
    }
    return p.getMetadata().getOwnerReferences() == null || p.getMetadata().getOwnerReferences().isEmpty()
        ? p.getMetadata().getName() : p.getMetadata().getOwnerReferences().get(0).getName();
  }

  static boolean terminal(Pod p) {
    return p.getStatus() != null && ("Succeeded".equals(p.getStatus().getPhase())
        || "Failed".equals(p.getStatus().getPhase()));
  }

  static String eventTime(Event e) {
    return EventOccurrences.lastObserved(e).orElse("");
  }

  /** An insertion-ordered map of alternating keys and values (values may be null). */
  static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

}
