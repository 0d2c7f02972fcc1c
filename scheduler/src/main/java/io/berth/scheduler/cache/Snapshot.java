package io.berth.scheduler.cache;

import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling cycle's view of the cluster: a copy of every cached node that has a Node object,
 * in zone-interleaved order, the nodes with (anti-)affinity pods, and the PVCs in use. Brought up
 * to date at the start of each cycle by {@link SchedulerCache#updateSnapshot}, which copies only
 * the NodeInfos changed since the snapshot's {@link #generation()}; unchanged NodeInfos stay the
 * very same objects from cycle to cycle, and a NodeInfo, once in a snapshot, is never mutated by
 * the cache again (a change brings a new copy).
 *
 * <p>Not thread-safe. Confined to the scheduling thread while {@code updateSnapshot} runs; during a
 * cycle it is only read, so plugins may read it from the parallel filter and score workers (they
 * start after the update, which orders the writes before their reads). Plugins must not mutate
 * the NodeInfos; preemption works on its own copies ({@link NodeInfo#snapshot()}).
 */
public final class Snapshot implements NodeInfoLister {
  private static final Logger LOG = LoggerFactory.getLogger(Snapshot.class);

  // All fields confined as the class doc says. nodeInfoMap holds every snapshotted node by name
  // (entries without a Node object only in snapshots built by of()); the three lists are views
  // over its values.
  private final Map<String, NodeInfo> nodeInfoMap = new HashMap<>();
  private final IndexedNodeInfoList nodeInfoList = new IndexedNodeInfoList();
  private final IndexedNodeInfoList havePodsWithAffinity = new IndexedNodeInfoList();
  private final IndexedNodeInfoList havePodsWithRequiredAntiAffinity = new IndexedNodeInfoList();
  // Keys namespace/claimName of the PVCs used by a pod on a node of nodeInfoList.
  private Set<String> usedPvcSet = new HashSet<>();
  // The largest NodeInfo generation this snapshot has seen from the cache.
  private long generation;
  // See version(): bumped by every update that changed something and by every what-if removal.
  private long version;

  /** An empty snapshot, to be filled by {@link SchedulerCache#updateSnapshot}. */
  public Snapshot() {}

  /**
   * A snapshot built directly from pods and nodes, for tests and benchmarks. Pods without
   * spec.nodeName are ignored; pods on a node not in {@code nodes} are kept on a NodeInfo without
   * node, which {@link #get} and the lists skip. Nodes are listed in the order given.
   */
  public static Snapshot of(List<Pod> pods, List<Node> nodes) {
    Snapshot snapshot = new Snapshot();
    Map<String, NodeInfo> infos = new LinkedHashMap<>();
    for (Pod pod : pods) {
      String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (nodeName == null || nodeName.isEmpty()) {
        continue;
      }
      infos.computeIfAbsent(nodeName, n -> new NodeInfo()).addPod(PodInfo.of(pod));
      if (pod.getSpec().getVolumes() != null) {
        for (Volume v : pod.getSpec().getVolumes()) {
          if (v.getPersistentVolumeClaim() != null) {
            snapshot.usedPvcSet.add(pod.getMetadata().getNamespace() + "/"
                + v.getPersistentVolumeClaim().getClaimName());
          }
        }
      }
    }
    ImageStates images = new ImageStates();
    nodes.forEach(images::addNode);
    for (Node node : nodes) {
      NodeInfo info = infos.computeIfAbsent(node.getMetadata().getName(), n -> new NodeInfo());
      info.setNode(node);
      info.setImageStates(images.summaries(node));
    }
    snapshot.nodeInfoMap.putAll(infos);
    Set<String> listed = new HashSet<>();
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      if (listed.add(name)) {
        snapshot.addToLists(infos.get(name));
      }
    }
    return snapshot;
  }

  /**
   * The nodes in zone-interleaved order; every element has a node. A read-only live view: stable
   * during a cycle, changed by the next {@link SchedulerCache#updateSnapshot}.
   */
  @Override
  public List<NodeInfo> list() {
    return nodeInfoList.view();
  }

  @Override
  public List<NodeInfo> havePodsWithAffinityList() {
    return havePodsWithAffinity.view();
  }

  @Override
  public List<NodeInfo> havePodsWithRequiredAntiAffinityList() {
    return havePodsWithRequiredAntiAffinity.view();
  }

  /** The node's NodeInfo; empty for an unknown node or one that was deleted. */
  @Override
  public Optional<NodeInfo> get(String nodeName) {
    NodeInfo info = nodeInfoMap.get(nodeName);
    return info != null && info.node().isPresent() ? Optional.of(info) : Optional.empty();
  }

  /** Whether a pod on one of the snapshot's nodes uses the PVC {@code namespace/claimName}. */
  @Override
  public boolean isPvcUsedByPods(String key) {
    return usedPvcSet.contains(key);
  }

  public int numNodes() {
    return nodeInfoList.size();
  }

  /**
   * Changes whenever the snapshot's nodes or pods change (an update from the cache, a
   * {@link SnapshotAmendment#remove} or its revert), but not for a group cycle's tentative
   * placements of the group's own members ({@link SnapshotAmendment#assume}).
   */
  @Override
  public long version() {
    return version;
  }

  void bumpVersion() {
    version++;
  }

  /** The generation of the newest cache change this snapshot reflects; 0 when never updated. */
  public long generation() {
    return generation;
  }

  @Override
  public String toString() {
    return "Snapshot{nodes=" + nodeInfoList.size() + ", generation=" + generation + "}";
  }

  // ---- used by SchedulerCache.updateSnapshot, under the cache's lock, on the scheduling thread

  void setGeneration(long generation) {
    this.generation = generation;
  }

  int nodeInfoMapSize() {
    return nodeInfoMap.size();
  }

  Set<String> nodeNames() {
    return nodeInfoMap.keySet();
  }

  /**
   * Puts a node's new copy in place of the old one, in the map, the node list and the affinity
   * lists (joining or leaving them as its pods require; the used-PVC set is rebuilt by the caller
   * when the node's PVCs changed). Returns the old copy, or null for a node new to the snapshot.
   */
  NodeInfo put(NodeInfo info) {
    NodeInfo previous = nodeInfoMap.put(info.nodeName(), info);
    if (previous != null) {
      nodeInfoList.replace(info);
      // a node gaining or losing (anti-)affinity pods joins or leaves that list in O(1) instead
      // of a rebuild over every node: placing pods with anti-affinity changes one node per cycle
      updateMembership(havePodsWithAffinity, info, !info.podsWithAffinity().isEmpty());
      updateMembership(havePodsWithRequiredAntiAffinity, info,
          !info.podsWithRequiredAntiAffinity().isEmpty());
    }
    return previous;
  }

  private static void updateMembership(IndexedNodeInfoList list, NodeInfo info, boolean member) {
    if (list.contains(info.nodeName())) {
      if (member) {
        list.replace(info);
      } else {
        list.remove(info.nodeName());
      }
    } else if (member) {
      list.add(info);
    }
  }

  /** Rebuilds every list, nodes in the given order (the cache's NodeTree). */
  void rebuildLists(List<String> nodeNamesInOrder) {
    nodeInfoList.clear();
    havePodsWithAffinity.clear();
    havePodsWithRequiredAntiAffinity.clear();
    usedPvcSet = new HashSet<>();
    for (String name : nodeNamesInOrder) {
      NodeInfo info = nodeInfoMap.get(name);
      if (info == null) {
        LOG.error("Node {} exists in the NodeTree but not in the snapshot's NodeInfo map", name);
        continue;
      }
      addToLists(info);
    }
  }

  /** Rebuilds the affinity lists and the used PVC set from the (unchanged) node list. */
  void rebuildDerivedLists() {
    havePodsWithAffinity.clear();
    havePodsWithRequiredAntiAffinity.clear();
    usedPvcSet = new HashSet<>();
    for (NodeInfo info : nodeInfoList.view()) {
      addToDerivedLists(info);
    }
  }

  void remove(String nodeName) {
    nodeInfoMap.remove(nodeName);
  }

  /**
   * Marks the PVC {@code namespace/claimName} as used (a {@link SnapshotAmendment} placing a pod
   * that mounts it); true when it was not used before, so that the amendment can take it back.
   */
  boolean markPvcUsed(String key) {
    return usedPvcSet.add(key);
  }

  /** Takes back a {@link #markPvcUsed} that returned true. */
  void unmarkPvcUsed(String key) {
    usedPvcSet.remove(key);
  }

  private void addToLists(NodeInfo info) {
    nodeInfoList.add(info);
    addToDerivedLists(info);
  }

  private void addToDerivedLists(NodeInfo info) {
    if (!info.podsWithAffinity().isEmpty()) {
      havePodsWithAffinity.add(info);
    }
    if (!info.podsWithRequiredAntiAffinity().isEmpty()) {
      havePodsWithRequiredAntiAffinity.add(info);
    }
    usedPvcSet.addAll(info.pvcRefCounts().keySet());
  }
}
