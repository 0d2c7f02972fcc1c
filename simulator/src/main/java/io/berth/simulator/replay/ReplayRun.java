package io.berth.simulator.replay;

import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.Framework;
import io.berth.framework.PodInfo;
import io.berth.framework.runtime.Registry;
import io.berth.informer.ResourceEventHandler;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.queue.SchedulingQueue;
import io.berth.scheduler.record.RecordedEvent;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays a recording through one configuration: Berth's real scheduler (queue, cache, snapshot,
 * the configuration's plugins) in process against a {@link ReplayStore}, on a {@link SimulatedClock}.
 *
 * <p>What is replayed. Every recorded object is applied in file order, each at its recorded time.
 * A pod first seen without {@code spec.nodeName} whose {@code schedulerName} one of the
 * configuration's profiles has is the replay's to place: its later recorded versions are applied
 * only when something but its placement and status changed (labels, annotations, spec, deletion, a
 * terminal phase), keeping the replay's own {@code nodeName}, conditions and nomination. Every other
 * pod (already bound when first seen, or another scheduler's) is applied as recorded, so it takes
 * the capacity it took in the recorded cluster. A recorded deletion deletes, including a victim the
 * recorded scheduler preempted. Nodes, PVs, PVCs and the other kinds are applied as recorded; PodGroups (both
 * APIs) and ElasticQuotas go to {@link ReplayGroups}, which the gang and quota plugins read instead of informers.
 *
 * <p>Determinism. This thread drives the scheduling loop itself: after each event it schedules
 * while the queue has a pod to give and waits for each binding cycle to end (or to park in Permit)
 * before the next; the scheduler's own writes come back as watch events at those quiet points. Time
 * moves only between events: to each recorded time, stopping at every backoff flush (each second)
 * and leftover flush (every 30 s) while pods wait. The tie-break among equal scores is seeded;
 * Filter runs with parallelism 1 (so percentageOfNodesToScore samples the same nodes); preemption is
 * synchronous and OpportunisticBatching off (its window is wall-clock time). Not thread-safe: one run,
 * one thread.
 */
final class ReplayRun {
  private static final Logger LOG = LoggerFactory.getLogger(ReplayRun.class);
  /** After the last event the clock runs on this long, so leftover flushes retry waiting pods. */
  static final Duration TAIL = SchedulingQueue.DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
      .plusSeconds(30);
  private static final long MAX_CYCLES_PER_DRAIN = 1_000_000;
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
  private static final Map<EventResource, Class<? extends HasMetadata>> OTHER = Map.of(
      EventResource.PERSISTENT_VOLUME, io.fabric8.kubernetes.api.model.PersistentVolume.class,
      EventResource.PERSISTENT_VOLUME_CLAIM, io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
      EventResource.STORAGE_CLASS, io.fabric8.kubernetes.api.model.storage.StorageClass.class,
      EventResource.CSI_NODE, io.fabric8.kubernetes.api.model.storage.CSINode.class);

  /** What became of one pod the replay placed or left pending. */
  record PodOutcome(String key, String uid, Optional<String> recordedNode, Optional<String> node,
      long arrivedMillis, Optional<Long> boundMillis, Optional<String> pendingReason) {}

  /** One configuration's result. */
  record Result(String config, List<PodOutcome> pods, Latency latency, Packing.Report packing,
      int events, long cycles) {
    List<PodOutcome> pending() {
      return pods.stream().filter(p -> p.pendingReason().isPresent()).toList();
    }
  }

  private final ReplayStore store = new ReplayStore();
  private final ReplayGroups groups = new ReplayGroups();
  private final SimulatedClock clock;
  private final SchedulerAssembly assembly;
  private final SchedulingQueue queue;
  private final Map<Class<?>, ResourceEventHandler<HasMetadata>> otherHandlers = new HashMap<>();
  private final long startMillis;
  // confined to this thread but for the two maps the binder writes (concurrent)
  private final Map<String, String> boundNode = new ConcurrentHashMap<>();
  private final Map<String, Long> boundAt = new ConcurrentHashMap<>();
  private final Map<String, Boolean> owned = new HashMap<>();
  private final Map<String, Long> arrived = new HashMap<>();
  private final Map<String, String> recordedNode = new HashMap<>();
  private final Map<String, String> keyOfUid = new LinkedHashMap<>();
  private long nextBackoffFlush;
  private long nextLeftoverFlush;
  private long cycles;

  private ReplayRun(SchedulerConfiguration config, Registry base, long seed, long startMillis) {
    this.startMillis = startMillis;
    this.clock = new SimulatedClock(startMillis);
    Registry registry = new Registry();
    for (String name : base.names()) {
      if (name.equals(io.berth.plugins.defaultbinder.DefaultBinder.NAME)) {
        registry.register(name, (args, handle) -> {
          if (!args.isEmpty()) {
            throw new IllegalArgumentException("DefaultBinder takes no args, got " + args.keySet());
          }
          return new ReplayBinder(store, (pod, node) -> {
            boundNode.putIfAbsent(pod.getMetadata().getUid(), node);
            boundAt.putIfAbsent(pod.getMetadata().getUid(), clock.millis());
          });
        });
      } else if (name.equals(io.berth.plugins.coscheduling.Coscheduling.NAME)) {
        // the gang plugins read the recorded groups instead of watching an API server
        registry.register(name, (args, handle) -> io.berth.plugins.coscheduling.Coscheduling.withGroups(args,
            handle, groups.resolver()));
      } else if (name.equals(io.berth.plugins.topologyplacement.TopologyPlacement.NAME)) {
        registry.register(name, (args, handle) -> io.berth.plugins.topologyplacement.TopologyPlacement.create(
            args, handle, groups.resolver()));
      } else if (name.equals(io.berth.plugins.capacityscheduling.CapacityScheduling.NAME)) {
        registry.register(name, (args, handle) -> {
          io.berth.plugins.capacityscheduling.CapacityScheduling plugin =
              io.berth.plugins.capacityscheduling.CapacityScheduling.fed(args, handle, groups.resolver());
          groups.addQuotaPlugin(plugin);
          return plugin;
        });
      } else {
        registry.register(name, base.get(name).orElseThrow());
      }
    }
    SchedulerConfiguration sequential = new SchedulerConfiguration(1,
        config.percentageOfNodesToScore(), config.podInitialBackoffSeconds(),
        config.podMaxBackoffSeconds(), config.leaderElection(), config.clientConnection(),
        config.delayCacheUntilActive(), config.profiles());
    this.assembly = SchedulerAssembly.builder(sequential, registry)
        .podApi(store)
        .listers(store)
        .featureGates(FeatureGates.parse(FeatureGates.SCHEDULER_ASYNC_PREEMPTION + "=false,"
            + FeatureGates.OPPORTUNISTIC_BATCHING + "=false"))
        .clock(clock)
        .random(new SplittableRandom(seed))
        .informerPod(p -> store.get(Pod.class, ReplayStore.key(p)).map(Pod.class::cast))
        .build();
    this.queue = assembly.queue();
    for (EventResource r : assembly.otherResourcesOfInterest()) {
      Class<? extends HasMetadata> type = OTHER.get(r);
      if (type != null) {
        otherHandlers.put(type, assembly.otherHandler(r));
      }
    }
    // the daemon's flusher: backoffQ at whole seconds, leftovers every 30 s from the start
    this.nextBackoffFlush = (startMillis / 1000 + 1) * 1000;
    this.nextLeftoverFlush = startMillis + 30_000;
  }

  /** Replays {@code events} through {@code config}. */
  static Result run(String name, SchedulerConfiguration config, Registry registry,
      List<RecordedEvent> events, long seed) throws InterruptedException {
    long start = events.isEmpty() ? 0 : events.get(0).epochMillis();
    ReplayRun run = new ReplayRun(config, registry, seed, start);
    try {
      return run.replay(name, events);
    } finally {
      run.assembly.stop(Duration.ofSeconds(5));
    }
  }

  private Result replay(String name, List<RecordedEvent> events) throws InterruptedException {
    long last = startMillis;
    for (RecordedEvent e : events) {
      last = Math.max(last, e.epochMillis());
      advanceTo(last);
      apply(e);
      drain();
    }
    advanceTo(last + TAIL.toMillis());
    drain();
    return result(name, events.size());
  }

  // ------------------------------------------------------------------ applying recorded events

  private void apply(RecordedEvent e) {
    HasMetadata obj = e.object();
    if (obj instanceof io.fabric8.kubernetes.api.model.GenericKubernetesResource g
        && ReplayGroups.handles(e.apiVersion(), e.kind())) {
      groups.apply(e.apiVersion(), e.kind(), g, e.type() == RecordedEvent.Type.DELETED);
    } else if (obj instanceof Pod pod) {
      applyPod(e.type(), pod);
    } else if (obj instanceof Node node) {
      applyNode(e.type(), node);
    } else {
      applyOther(e.type(), obj);
    }
  }

  private void applyPod(RecordedEvent.Type type, Pod rec) {
    String uid = String.valueOf(rec.getMetadata().getUid());
    String key = ReplayStore.key(rec);
    Optional<Pod> cur = store.get(Pod.class, key).map(Pod.class::cast);
    if (cur.isPresent() && !Objects.equals(cur.get().getMetadata().getUid(), rec.getMetadata().getUid())) {
      // a pod of the same name replaced one whose deletion the recording missed
      store.remove(Pod.class, key);
      podDeleted(cur.get(), true);
      cur = Optional.empty();
    }
    if (type == RecordedEvent.Type.DELETED) {
      if (cur.isPresent()) {
        store.remove(Pod.class, key);
        podDeleted(cur.get(), false);
      }
      return;
    }
    boolean firstSight = !owned.containsKey(uid);
    if (cur.isEmpty() && !firstSight) {
      return; // the replay deleted this pod (a preemption victim); it stays deleted
    }
    if (firstSight) {
      boolean ours = !assigned(rec) && assembly.frameworks().containsKey(schedulerName(rec));
      owned.put(uid, ours);
      arrived.put(uid, clock.millis());
      keyOfUid.put(uid, key);
    }
    if (assigned(rec)) {
      recordedNode.put(uid, rec.getSpec().getNodeName());
    }
    Pod input;
    if (owned.get(uid)) {
      if (cur.isPresent() && !inputChanged(cur.get(), rec)) {
        return;
      }
      input = asInput(rec, cur);
    } else {
      input = new PodBuilder(rec).editMetadata().withResourceVersion(store.nextResourceVersion())
          .endMetadata().build();
    }
    store.put(input);
    if (cur.isEmpty()) {
      podAdded(input);
    } else {
      podUpdated(cur.get(), input);
    }
  }

  /** The recorded pod with the replay's own placement, nomination and conditions. */
  private Pod asInput(Pod rec, Optional<Pod> cur) {
    PodBuilder b = new PodBuilder(rec).editMetadata()
        .withResourceVersion(store.nextResourceVersion()).endMetadata();
    String node = cur.map(p -> p.getSpec() == null ? null : p.getSpec().getNodeName()).orElse(null);
    b.editOrNewSpec().withNodeName(node).endSpec();
    String phase = terminal(rec) ? rec.getStatus().getPhase() : "Pending";
    PodStatus status = cur.map(Pod::getStatus).orElse(null);
    if (status == null) {
      b.withNewStatus().withPhase(phase).endStatus();
    } else {
      b.withStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder(status)
          .withPhase(terminal(rec) ? phase : status.getPhase()).build());
    }
    return b.build();
  }

  /** Whether the recorded pod differs from the replay's in anything but placement and status. */
  private static boolean inputChanged(Pod cur, Pod rec) {
    if (terminal(rec) != terminal(cur)) {
      return true;
    }
    if (!Objects.equals(cur.getMetadata().getLabels(), rec.getMetadata().getLabels())
        || !Objects.equals(cur.getMetadata().getAnnotations(), rec.getMetadata().getAnnotations())
        || !Objects.equals(cur.getMetadata().getDeletionTimestamp(),
            rec.getMetadata().getDeletionTimestamp())) {
      return true;
    }
    return !Objects.equals(specWithoutNode(cur), specWithoutNode(rec));
  }

  private static PodSpec specWithoutNode(Pod pod) {
    return pod.getSpec() == null ? null
        : new io.fabric8.kubernetes.api.model.PodSpecBuilder(pod.getSpec()).withNodeName(null).build();
  }

  private void applyNode(RecordedEvent.Type type, Node node) {
    Optional<HasMetadata> cur = store.get(Node.class, ReplayStore.key(node));
    if (type == RecordedEvent.Type.DELETED) {
      if (cur.isPresent()) {
        store.remove(Node.class, ReplayStore.key(node));
        assembly.nodeHandler().onDelete((Node) cur.get(), false);
      }
      return;
    }
    store.put(node);
    if (cur.isEmpty()) {
      assembly.nodeHandler().onAdd(node, false);
    } else {
      assembly.nodeHandler().onUpdate((Node) cur.get(), node);
    }
  }

  private void applyOther(RecordedEvent.Type type, HasMetadata obj) {
    Optional<HasMetadata> cur = store.get(obj.getClass(), ReplayStore.key(obj));
    ResourceEventHandler<HasMetadata> handler = otherHandlers.get(obj.getClass());
    if (type == RecordedEvent.Type.DELETED) {
      if (cur.isPresent()) {
        store.remove(obj.getClass(), ReplayStore.key(obj));
        if (handler != null) {
          handler.onDelete(cur.get(), false);
        }
      }
      return;
    }
    store.put(obj);
    if (handler != null) {
      if (cur.isEmpty()) {
        handler.onAdd(obj, false);
      } else {
        handler.onUpdate(cur.get(), obj);
      }
    }
  }

  // the scheduler's pod handler first (as its informer's handler is registered first), then the plugins'
  private void podAdded(Pod pod) {
    assembly.podHandler().onAdd(pod, false);
    store.podHandlers().forEach(h -> h.onAdd(pod));
  }

  private void podUpdated(Pod old, Pod pod) {
    assembly.podHandler().onUpdate(old, pod);
    store.podHandlers().forEach(h -> h.onUpdate(old, pod));
  }

  private void podDeleted(Pod pod, boolean finalStateUnknown) {
    assembly.podHandler().onDelete(pod, finalStateUnknown);
    store.podHandlers().forEach(h -> h.onDelete(pod));
  }

  // ------------------------------------------------------------------ driving the scheduler

  /** Moves the clock to {@code target}, running the queue's periodic flushes due on the way. */
  private void advanceTo(long target) throws InterruptedException {
    while (true) {
      long next = Math.min(nextBackoffFlush, nextLeftoverFlush);
      if (next > target) {
        break;
      }
      if (queue.backoffSize() == 0 && queue.unschedulableSize() == 0) {
        // nothing waits: the flushes due until target would move nothing
        while (nextBackoffFlush <= target) {
          nextBackoffFlush += Math.max(1000, (target - nextBackoffFlush) / 1000 * 1000);
        }
        while (nextLeftoverFlush <= target) {
          nextLeftoverFlush += Math.max(30_000, (target - nextLeftoverFlush) / 30_000 * 30_000);
        }
        break;
      }
      clock.advanceTo(next);
      if (next == nextBackoffFlush) {
        queue.flushBackoffQCompleted();
        nextBackoffFlush += 1000;
      }
      if (next == nextLeftoverFlush) {
        queue.flushUnschedulablePodsLeftover();
        nextLeftoverFlush += 30_000;
      }
      drain();
    }
    clock.advanceTo(target);
  }

  /** Schedules until the queue has nothing to give, delivering the scheduler's own writes. */
  private void drain() throws InterruptedException {
    long n = 0;
    while (true) {
      deliverWatchEvents();
      if (!queue.hasPoppable()) {
        return;
      }
      if (++n > MAX_CYCLES_PER_DRAIN) {
        LOG.warn("more than {} scheduling cycles without the clock moving; going on",
            MAX_CYCLES_PER_DRAIN);
        return;
      }
      assembly.scheduler().scheduleOne();
      cycles++;
      settle();
    }
  }

  /** Waits until every pod in flight has ended its binding cycle or waits in Permit. */
  private void settle() throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    while (queue.inFlightSize() > waitingPods()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("a binding cycle did not end within " + SETTLE_TIMEOUT);
      }
      LockSupport.parkNanos(20_000);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private int waitingPods() {
    int[] n = {0};
    for (Framework fw : assembly.frameworks().values()) {
      fw.iterateOverWaitingPods(w -> n[0]++);
    }
    return n[0];
  }

  private void deliverWatchEvents() {
    for (ReplayStore.WatchEvent w : store.takeWatchEvents()) {
      if (w.newPod() == null) {
        podDeleted(w.oldPod(), false);
      } else {
        podUpdated(w.oldPod(), w.newPod());
      }
    }
  }

  // ------------------------------------------------------------------ results

  private Result result(String name, int eventCount) {
    List<PodOutcome> pods = new ArrayList<>();
    List<Long> latencies = new ArrayList<>();
    List<Map<String, Long>> pendingRequests = new ArrayList<>();
    List<Map<String, Long>> scheduledRequests = new ArrayList<>();
    for (Map.Entry<String, String> e : keyOfUid.entrySet()) {
      String uid = e.getKey();
      if (!owned.get(uid)) {
        continue;
      }
      Optional<Pod> now = store.get(Pod.class, e.getValue()).map(Pod.class::cast)
          .filter(p -> uid.equals(p.getMetadata().getUid()));
      Optional<String> node = Optional.ofNullable(boundNode.get(uid));
      Optional<Long> at = Optional.ofNullable(boundAt.get(uid));
      at.ifPresent(t -> latencies.add(t - arrived.get(uid)));
      Optional<String> reason = Optional.empty();
      if (node.isEmpty() && now.isPresent() && !terminal(now.get())) {
        reason = Optional.of(pendingReason(now.get()));
        pendingRequests.add(Resources.toMap(PodInfo.of(now.get()).requests()));
      }
      if (node.isPresent() && now.isPresent()) {
        scheduledRequests.add(Resources.toMap(PodInfo.of(now.get()).requests()));
      }
      pods.add(new PodOutcome(e.getValue(), uid, Optional.ofNullable(recordedNode.get(uid)), node,
          arrived.get(uid) - startMillis, at.map(t -> t - startMillis), reason));
    }
    return new Result(name, pods, Latency.of(latencies),
        Packing.of(nodeUsage(), pendingRequests, scheduledRequests), eventCount, cycles);
  }

  private String pendingReason(Pod pod) {
    if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())
            && c.getMessage() != null) {
          return c.getMessage();
        }
      }
    }
    return queue.getPod(pod.getMetadata().getNamespace(), pod.getMetadata().getName())
        .flatMap(q -> q.gatingPlugin()).map(p -> "gated by PreEnqueue plugin " + p)
        .orElse("not attempted");
  }

  private List<Packing.NodeUsage> nodeUsage() {
    Map<String, List<Pod>> byNode = new HashMap<>();
    for (Pod p : store.list(Pod.class)) {
      if (assigned(p) && !terminal(p)) {
        byNode.computeIfAbsent(p.getSpec().getNodeName(), k -> new ArrayList<>()).add(p);
      }
    }
    List<Packing.NodeUsage> out = new ArrayList<>();
    for (Node node : store.list(Node.class)) {
      List<Pod> pods = byNode.getOrDefault(node.getMetadata().getName(), List.of());
      io.berth.framework.NodeInfo info = io.berth.framework.NodeInfo.of(node, pods.toArray(Pod[]::new));
      Map<String, Long> requested = Resources.toMap(info.requested());
      requested.put(Packing.PODS, (long) pods.size()); // the framework counts pods apart
      out.add(new Packing.NodeUsage(node.getMetadata().getName(), Resources.toMap(info.allocatable()),
          requested, pods.size()));
    }
    return out;
  }

  static boolean assigned(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty();
  }

  static boolean terminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  static String schedulerName(Pod pod) {
    String name = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
    return name == null || name.isEmpty() ? "default-scheduler" : name;
  }
}
