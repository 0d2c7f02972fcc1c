package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.PodKeys.describe;
import static io.berth.scheduler.cache.PodKeys.nodeName;
import static io.berth.scheduler.cache.PodKeys.requireNodeName;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's cache of nodes and the pods on them (kube-scheduler's backend/cache): the
 * node and pod informers' handlers feed it assigned pods and nodes, the scheduling cycle
 * <em>assumes</em> a pod on its chosen node so the next cycle already counts it, and the binding
 * cycle either confirms it (the informer's add of the bound pod) or forgets it (binding failed).
 * Each cycle starts with {@link #updateSnapshot}, which copies only the NodeInfos changed since the
 * previous snapshot.
 *
 * <p>Pods are keyed by UID. A pod's lifecycle here: assumed ({@link #assumePod}), binding finished
 * ({@link #finishBinding}, which starts the expiry deadline of now + ttl), then added (the
 * informer's {@link #addPod} confirms it) or forgotten ({@link #forgetPod}) or expired
 * ({@link #cleanupAssumedPods}, run every second after {@link #start}). A ttl of zero means
 * assumed pods never expire, which is what kube-scheduler has used since kubernetes#106361
 * (expiry racing slow binds double-counted resources).
 *
 * <p>Thread-safe: every method takes the one {@code lock}; the informer threads, the scheduling
 * thread, the binding threads and the cleanup thread call it concurrently. Misuse (assuming a pod
 * already here, forgetting a pod that is not assumed, updating or removing an unknown pod) throws
 * {@link IllegalStateException} with upstream's message and leaves the cache unchanged; a pod
 * without UID throws {@link IllegalArgumentException}. Where upstream exits the process because the
 * cache is corrupted (an assigned pod changing nodes), this throws and the caller decides.
 */
public final class SchedulerCache implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerCache.class);
  /** How often {@link #start} runs {@link #cleanupAssumedPods} (upstream's cleanAssumedPeriod). */
  public static final Duration CLEANUP_PERIOD = Duration.ofSeconds(1);

  /** An entry of podStates: immutable, replaced on change. deadline is null until bound. */
  private record PodState(Pod pod, boolean bindingFinished, Instant deadline) {}

  private final Duration ttl;
  private final InstantSource clock;
  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock, like every field below: NodeInfos by node name, most recently changed first.
  private final CachedNodeInfos nodes = new CachedNodeInfos();
  // Guarded by lock: names of the nodes that have a Node object, by zone.
  private final NodeTree nodeTree = new NodeTree();
  // Guarded by lock: image name -> size and nodes, across the nodes of nodeTree.
  private final ImageStates imageStates = new ImageStates();
  // Guarded by lock: UID -> state of every pod in the cache, assumed or added.
  private final Map<String, PodState> podStates = new HashMap<>();
  // Guarded by lock: UIDs of the assumed pods; always a subset of podStates' keys.
  private final Set<String> assumedPods = new HashSet<>();
  // Guarded by lock: the cleanup thread's executor while started.
  private ScheduledExecutorService cleaner;

  /**
   * A cache whose assumed pods expire {@code ttl} after their binding finished ({@link
   * Duration#ZERO}: never), reading time from {@code clock}.
   */
  public SchedulerCache(Duration ttl, InstantSource clock) {
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must not be negative: " + ttl);
    }
    this.ttl = ttl;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A cache with the system clock. */
  public SchedulerCache(Duration ttl) {
    this(ttl, InstantSource.system());
  }

  /** Starts expiring assumed pods every {@link #CLEANUP_PERIOD} on a daemon thread. */
  public void start() {
    lock.lock();
    try {
      if (cleaner != null) {
        return;
      }
      cleaner = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "scheduler-cache-cleanup");
        t.setDaemon(true);
        return t;
      });
      long period = CLEANUP_PERIOD.toMillis();
      cleaner.scheduleWithFixedDelay(this::cleanupLoggingFailures, period, period,
          TimeUnit.MILLISECONDS);
    } finally {
      lock.unlock();
    }
  }

  /** Stops the cleanup thread. The cache stays usable; assumed pods just no longer expire. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (cleaner != null) {
        cleaner.shutdownNow();
        cleaner = null;
      }
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- assumed pods

  /**
   * Adds a pod the scheduling cycle placed on {@code spec.nodeName}, before it is bound, so that
   * later cycles count it. Throws if the pod (by UID) is already in the cache.
   */
  public void assumePod(Pod pod) {
    assumePod(PodInfo.of(pod));
  }

  /** As {@link #assumePod(Pod)}, with the pod's derived data at hand. */
  public void assumePod(PodInfo podInfo) {
    Pod pod = podInfo.pod();
    String key = PodKeys.key(pod);
    requireNodeName(pod);
    lock.lock();
    try {
      if (podStates.containsKey(key)) {
        throw new IllegalStateException(
            "pod " + key + "(" + describe(pod) + ") is in the cache, so can't be assumed");
      }
      addPodLocked(key, podInfo, true);
    } finally {
      lock.unlock();
    }
  }

  /**
   * As {@link #assumePod(PodInfo)} for each of {@code pods}, in one hold of the lock and all or
   * none (a group scheduling cycle commits its members together): throws, assuming none of them,
   * if one has no node or is already in the cache (or listed twice).
   */
  public void assumePods(List<PodInfo> pods) {
    List<String> keys = new ArrayList<>(pods.size());
    for (PodInfo p : pods) {
      keys.add(PodKeys.key(p.pod()));
      requireNodeName(p.pod());
    }
    lock.lock();
    try {
      Set<String> seen = new HashSet<>(keys.size() * 2);
      for (int i = 0; i < keys.size(); i++) {
        String key = keys.get(i);
        if (podStates.containsKey(key) || !seen.add(key)) {
          Pod pod = pods.get(i).pod();
          throw new IllegalStateException(
              "pod " + key + "(" + describe(pod) + ") is in the cache, so can't be assumed");
        }
      }
      for (int i = 0; i < keys.size(); i++) {
        addPodLocked(keys.get(i), pods.get(i), true);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Marks an assumed pod's binding as finished, starting its expiry deadline (now + ttl). Does
   * nothing for a pod that is not assumed.
   */
  public void finishBinding(Pod pod) {
    String key = PodKeys.key(pod);
    Instant now = clock.instant();
    lock.lock();
    try {
      PodState state = podStates.get(key);
      if (state != null && assumedPods.contains(key)) {
        Instant deadline = ttl.isZero() ? null : now.plus(ttl);
        podStates.put(key, new PodState(state.pod(), true, deadline));
        LOG.debug("Finished binding for pod {}, can be expired", describe(pod));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Undoes {@link #assumePod}: removes the assumed pod and frees its node's resources. Throws if
   * the pod is not assumed, or was assumed on another node than {@code pod}'s.
   */
  public void forgetPod(Pod pod) {
    String key = PodKeys.key(pod);
    lock.lock();
    try {
      PodState state = podStates.get(key);
      if (state != null && !nodeName(state.pod()).equals(nodeName(pod))) {
        throw new IllegalStateException("pod " + key + "(" + describe(pod) + ") was assumed on "
            + nodeName(pod) + " but assigned to " + nodeName(state.pod()));
      }
      if (state == null || !assumedPods.contains(key)) {
        throw new IllegalStateException(
            "pod " + key + "(" + describe(pod) + ") wasn't assumed so cannot be forgotten");
      }
      removePodLocked(key, state.pod());
    } finally {
      lock.unlock();
    }
  }

  public boolean isAssumedPod(Pod pod) {
    String key = PodKeys.key(pod);
    lock.lock();
    try {
      return assumedPods.contains(key);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The UIDs of those of {@code pods} that are assumed, as {@link #isAssumedPod} for each of them
   * in one hold of the lock (a group scheduling cycle asks for all its members at once).
   */
  public Set<String> assumedUids(Collection<Pod> pods) {
    Set<String> out = new HashSet<>();
    lock.lock();
    try {
      for (Pod pod : pods) {
        String key = PodKeys.key(pod);
        if (assumedPods.contains(key)) {
          out.add(key);
        }
      }
    } finally {
      lock.unlock();
    }
    return out;
  }

  /** The cache's version of the pod (same UID), even if its node was deleted. */
  public Optional<Pod> getPod(Pod pod) {
    String key = PodKeys.key(pod);
    lock.lock();
    try {
      PodState state = podStates.get(key);
      return state == null ? Optional.empty() : Optional.of(state.pod());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Expires the assumed pods whose binding finished and whose deadline has passed, as if they
   * had been forgotten, logging a warning for each: the informer never confirmed them. Pods
   * still binding never expire. Returns how many expired.
   */
  public int cleanupAssumedPods() {
    Instant now = clock.instant();
    lock.lock();
    try {
      List<String> expired = new ArrayList<>();
      for (String key : assumedPods) {
        PodState state = podStates.get(key);
        if (state == null) {
          LOG.error("Pod {} found in the assumed set but not in podStates", key);
          continue;
        }
        if (state.bindingFinished() && state.deadline() != null && now.isAfter(state.deadline())) {
          expired.add(key);
        }
      }
      for (String key : expired) {
        Pod pod = podStates.get(key).pod();
        LOG.warn("Pod {} ({}) expired: assumed on node {} but not added by the informer within {}",
            describe(pod), key, nodeName(pod), ttl);
        removePodLocked(key, pod);
      }
      return expired.size();
    } finally {
      lock.unlock();
    }
  }

  private void cleanupLoggingFailures() {
    try {
      cleanupAssumedPods();
    } catch (RuntimeException e) {
      // an exception would cancel the periodic task: log and keep running
      LOG.error("Expiring assumed pods failed", e);
    }
  }

  // ---------------------------------------------------------------- pods from the informer

  /**
   * Adds an assigned pod seen by the informer. If the pod was assumed this confirms it: the
   * assumed copy is replaced by this one (moved if it landed on another node) and it no longer
   * expires. A pod on a node the cache does not know yet goes to a NodeInfo without node, which
   * snapshots skip until the node arrives. Throws if the pod was already added.
   */
  public void addPod(Pod pod) {
    String key = PodKeys.key(pod);
    requireNodeName(pod);
    PodInfo podInfo = PodInfo.of(pod);
    lock.lock();
    try {
      PodState state = podStates.get(key);
      if (state != null && assumedPods.contains(key)) {
        removePodLocked(key, state.pod());
        addPodLocked(key, podInfo, false);
        if (!nodeName(state.pod()).equals(nodeName(pod))) {
          LOG.info("Pod {} was added to a different node than it was assumed: assumed on {}, "
              + "added on {}", describe(pod), nodeName(state.pod()), nodeName(pod));
        }
      } else if (state == null) {
        addPodLocked(key, podInfo, false);
      } else {
        throw new IllegalStateException(
            "pod " + key + "(" + describe(pod) + ") was already in added state");
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces an added pod by its new version (same node). Throws for a pod not in the cache, an
   * assumed pod (it must be added first), or a pod whose node changed (upstream calls the cache
   * corrupted and exits).
   */
  public void updatePod(Pod pod) {
    String key = PodKeys.key(pod);
    PodInfo podInfo = PodInfo.of(pod);
    lock.lock();
    try {
      PodState state = podStates.get(key);
      if (state == null) {
        throw new IllegalStateException("pod " + key + "(" + describe(pod)
            + ") is not added to scheduler cache, so cannot be updated");
      }
      if (assumedPods.contains(key)) {
        throw new IllegalStateException(
            "assumed pod " + key + "(" + describe(pod) + ") should not be updated");
      }
      if (!nodeName(state.pod()).equals(nodeName(pod))) {
        LOG.error("Pod {} updated on a different node ({}) than previously added to ({})",
            describe(pod), nodeName(pod), nodeName(state.pod()));
        throw new IllegalStateException("pod " + key + "(" + describe(pod) + ") updated on node "
            + nodeName(pod) + " but was added to " + nodeName(state.pod())
            + ": scheduler cache is corrupted");
      }
      removePodLocked(key, state.pod());
      addPodLocked(key, podInfo, false);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes a pod (added or assumed) that the informer saw deleted. {@code pod} may be the
   * last known state with an empty spec.nodeName (a missed delete); any other node than the
   * cache's throws (upstream exits: the cache is corrupted).
   */
  public void removePod(Pod pod) {
    String key = PodKeys.key(pod);
    lock.lock();
    try {
      PodState state = podStates.get(key);
      if (state == null) {
        throw new IllegalStateException("pod " + key + "(" + describe(pod)
            + ") is not found in scheduler cache, so cannot be removed from it");
      }
      String cached = nodeName(state.pod());
      if (!cached.equals(nodeName(pod)) && !nodeName(pod).isEmpty()) {
        LOG.error("Pod {} removed from node {} but the cache has it on {}", describe(pod),
            nodeName(pod), cached);
        throw new IllegalStateException("pod " + key + "(" + describe(pod) + ") removed from node "
            + nodeName(pod) + " but was on " + cached + ": scheduler cache is corrupted");
      }
      removePodLocked(key, state.pod());
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- nodes from the informer

  /**
   * Adds the node, or replaces it if already known (moving it to its new zone if its zone labels
   * changed). Throws {@link IllegalArgumentException} naming the field for an unparsable
   * allocatable quantity, leaving the cache unchanged.
   */
  public void addNode(Node node) {
    lock.lock();
    try {
      setNodeLocked(node);
    } finally {
      lock.unlock();
    }
  }

  /** Replaces the node by its new version; the same as {@link #addNode}, for the update event. */
  public void updateNode(Node node) {
    addNode(node);
  }

  /**
   * Removes the node. Its pods stay (their deletions come through the pod informer, possibly
   * later) on a NodeInfo without node, which snapshots skip and which goes once its last pod
   * does. Throws if the node is not in the cache.
   */
  public void removeNode(Node node) {
    String name = node.getMetadata().getName();
    lock.lock();
    try {
      NodeInfo info = nodes.get(name);
      Node cached = info == null ? null : info.node().orElse(null);
      if (cached == null) {
        throw new IllegalStateException("node " + name + " is not found");
      }
      info.removeNode();
      if (info.pods().isEmpty()) {
        nodes.remove(name);
      } else {
        nodes.moveToHead(name);
      }
      // the cached object put the node in its zone and registered its images
      nodeTree.removeNode(cached);
      imageStates.removeNode(cached);
    } finally {
      lock.unlock();
    }
  }

  private void setNodeLocked(Node node) {
    String name = node.getMetadata().getName();
    NodeInfo info = nodes.get(name);
    boolean created = info == null;
    if (created) {
      info = nodes.getOrCreate(name);
    }
    Node previous = info.node().orElse(null);
    try {
      info.setNode(node);
    } catch (IllegalArgumentException e) {
      if (created) {
        nodes.remove(name);
      }
      throw e;
    }
    if (previous == null) {
      nodeTree.addNode(node);
    } else {
      imageStates.removeNode(previous);
      nodeTree.updateNode(previous, node);
    }
    info.setImageStates(imageStates.addNode(node));
    nodes.moveToHead(name);
  }

  // ---------------------------------------------------------------- snapshot

  /**
   * Brings {@code snapshot} up to date, as upstream's UpdateSnapshot: walks the NodeInfos from the
   * most recently changed while their generation is above the snapshot's and puts a fresh copy of
   * each (that has a node) into the snapshot; the others stay the same objects. The node list is
   * rebuilt, in zone-interleaved order, only when nodes were added or deleted; the affinity lists
   * and the used-PVC set only when a node gained or lost (anti-)affinity pods or PVCs. Call from
   * the scheduling thread between cycles. Throws {@link IllegalStateException} if the snapshot
   * turns out inconsistent with the cache (after repairing it for the next call).
   */
  public void updateSnapshot(Snapshot snapshot) {
    lock.lock();
    try {
      SnapshotUpdater.update(nodes, nodeTree, snapshot);
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- introspection

  /** Number of NodeInfos, including deleted nodes whose pods remain. For tests and debugging. */
  public int nodeCount() {
    lock.lock();
    try {
      return nodes.size();
    } finally {
      lock.unlock();
    }
  }

  /** Number of pods (assumed and added), including those on deleted nodes. */
  public int podCount() {
    lock.lock();
    try {
      int count = 0;
      for (NodeInfo info : nodes.all()) {
        count += info.pods().size();
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  /** Copies of every NodeInfo and the assumed pods' UIDs; expensive, for debugging only. */
  public CacheDump dump() {
    lock.lock();
    try {
      Map<String, NodeInfo> copies = new HashMap<>();
      nodes.byName().forEach((name, info) -> copies.put(name, info.snapshot()));
      return new CacheDump(copies, assumedPods);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return "SchedulerCache{nodes=" + nodes.size() + ", pods=" + podStates.size()
          + ", assumedPods=" + assumedPods.size() + ", images=" + imageStates.size() + "}";
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- internals, under lock

  private void addPodLocked(String key, PodInfo podInfo, boolean assumed) {
    String name = nodeName(podInfo.pod());
    NodeInfo info = nodes.getOrCreate(name);
    info.addPod(podInfo);
    touched(name, info);
    podStates.put(key, new PodState(podInfo.pod(), false, null));
    if (assumed) {
      assumedPods.add(key);
    }
  }

  private void removePodLocked(String key, Pod pod) {
    String name = nodeName(pod);
    NodeInfo info = nodes.get(name);
    if (info == null) {
      LOG.error("Node {} not found when trying to remove pod {}", name, describe(pod));
    } else {
      if (!info.removePod(pod)) {
        LOG.error("Pod {} not found on node {} when trying to remove it", describe(pod), name);
      }
      if (info.pods().isEmpty() && info.node().isEmpty()) {
        nodes.remove(name);
      } else {
        touched(name, info);
      }
    }
    podStates.remove(key);
    assumedPods.remove(key);
  }

  /**
   * After a change to a node's pods: moves it to the head of the recency list and refreshes its
   * image summaries' node counts if other nodes gained or lost those images meanwhile (upstream
   * counts them whenever it snapshots a changed NodeInfo; this is the same moment, earlier).
   */
  private void touched(String name, NodeInfo info) {
    if (info.node().isPresent() && !imageStates.upToDate(info.imageStates())) {
      info.setImageStates(imageStates.summaries(info.getNode()));
    }
    nodes.moveToHead(name);
  }
}
