package io.berth.framework;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the scheduler knows about one node: the Node object, the pods on it (bound and assumed),
 * the sums of their requests, the node's allocatable resources, the host ports in use, the images
 * present and the PVCs its pods use. Every change bumps {@link #generation()} from one global
 * counter, which is how the cache's incremental snapshot finds what changed.
 *
 * <p>Not thread-safe. The cache owns its NodeInfos and mutates them under its lock; the snapshot
 * holds copies ({@link #snapshot()}) that plugins only read during a cycle (preemption mutates its
 * own further copies).
 */
public final class NodeInfo {
  private static final AtomicLong NEXT_GENERATION = new AtomicLong();

  private Node node;
  // node.metadata.name, read once when the node is set: Filter asks for it on every node of every cycle, and the
  // two pointer hops through the Node to its ObjectMeta were a cache miss each at 5,000 nodes
  private String nodeName = "";
  // node.spec.unschedulable and node.spec.taints, read once when the node is set, for the same reason: NodeUnschedulable
  // and TaintToleration ask on every node of every cycle, and were the first to reach through the Node to its NodeSpec
  // (two dependent cache misses per node; 13% of the scheduling threads' samples at 5,000 nodes). The list is the
  // node's own (nodes are never mutated, as pods are not), List.of() when unset.
  private boolean unschedulable;
  private List<Taint> taints = List.of();
  private final List<PodInfo> pods;
  private final List<PodInfo> podsWithAffinity;
  private final List<PodInfo> podsWithRequiredAntiAffinity;
  private final HostPortInfo usedPorts;
  private final Resource requested;
  private final Resource nonZeroRequested;
  // replaced whole by setNode, never changed in place: copies share it
  private Resource allocatable;
  private Map<String, ImageStateSummary> imageStates;
  // Map.of() while no pod uses a PVC (most nodes): copies then share it instead of each allocating an empty
  // HashMap (preemption copies a NodeInfo for every node it simulates on); a HashMap of this NodeInfo's own
  // from the first reference on
  private Map<String, Integer> pvcRefCounts;
  private long generation;

  public NodeInfo() {
    this.pods = new ArrayList<>();
    this.podsWithAffinity = new ArrayList<>();
    this.podsWithRequiredAntiAffinity = new ArrayList<>();
    this.usedPorts = new HostPortInfo();
    this.requested = new Resource();
    this.nonZeroRequested = new Resource();
    this.allocatable = new Resource();
    this.imageStates = Map.of();
    this.pvcRefCounts = Map.of();
    this.generation = nextGeneration();
  }

  private NodeInfo(NodeInfo from) {
    // the two sums first, so that they sit right after this object in memory: Filter and Score read them on every
    // node they visit, and next to the NodeInfo they share its cache lines or the ones the CPU fetches beside them,
    // instead of lying past the pod lists' arrays
    this.requested = from.requested.copy();
    this.nonZeroRequested = from.nonZeroRequested.copy();
    this.node = from.node;
    this.nodeName = from.nodeName;
    this.unschedulable = from.unschedulable;
    this.taints = from.taints;
    // room for a few more: copies are made to add nominated pods or reprieved victims
    this.pods = copyWithRoom(from.pods);
    this.podsWithAffinity = copyWithRoom(from.podsWithAffinity);
    this.podsWithRequiredAntiAffinity = copyWithRoom(from.podsWithRequiredAntiAffinity);
    this.usedPorts = from.usedPorts.copy();
    this.allocatable = from.allocatable;
    this.imageStates = from.imageStates;
    this.pvcRefCounts = from.pvcRefCounts.isEmpty() ? Map.of() : new HashMap<>(from.pvcRefCounts);
    this.generation = from.generation;
  }

  private static List<PodInfo> copyWithRoom(List<PodInfo> from) {
    int n = from.size();
    if (n == 0) {
      // no array until the first add (most nodes have no pods with (anti-)affinity)
      return new ArrayList<>();
    }
    // element by element: addAll would first copy the source into an array of its own
    List<PodInfo> copy = new ArrayList<>(n + 4);
    for (int i = 0; i < n; i++) {
      copy.add(from.get(i));
    }
    return copy;
  }

  /** A NodeInfo for {@code node} holding {@code pods}; convenient for tests and simulations. */
  public static NodeInfo of(Node node, Pod... pods) {
    NodeInfo info = new NodeInfo();
    info.setNode(node);
    for (Pod pod : pods) {
      info.addPod(PodInfo.of(pod));
    }
    return info;
  }

  /** The next value of the global generation counter. */
  public static long nextGeneration() {
    return NEXT_GENERATION.incrementAndGet();
  }

  /** An independent copy (the pods themselves are shared, immutable). Keeps the generation. */
  public NodeInfo snapshot() {
    return new NodeInfo(this);
  }

  /** The node; empty when pods are known for a node that is not (or no longer) in the cache. */
  public Optional<Node> node() {
    return Optional.ofNullable(node);
  }

  /** The node, for callers that know it is present (every NodeInfo in a snapshot has one). */
  public Node getNode() {
    if (node == null) {
      throw new IllegalStateException("node not found");
    }
    return node;
  }

  /** The node's name, or "" when the node is unknown. */
  public String nodeName() {
    return nodeName;
  }

  /**
   * Whether {@code spec.unschedulable} is true (the node is cordoned), as read when the node was set; throws as
   * {@link #getNode()} does when the node is unknown.
   */
  public boolean unschedulable() {
    if (node == null) {
      throw new IllegalStateException("node not found");
    }
    return unschedulable;
  }

  /**
   * The node's {@code spec.taints} (an empty list when unset), as read when the node was set; callers must not
   * mutate it. Throws as {@link #getNode()} does when the node is unknown.
   */
  public List<Taint> taints() {
    if (node == null) {
      throw new IllegalStateException("node not found");
    }
    return taints;
  }

  public List<PodInfo> pods() {
    return java.util.Collections.unmodifiableList(pods);
  }

  /** The number of pods on the node, as {@code pods().size()} without the view (asked per node). */
  public int podCount() {
    return pods.size();
  }

  public List<PodInfo> podsWithAffinity() {
    return java.util.Collections.unmodifiableList(podsWithAffinity);
  }

  public List<PodInfo> podsWithRequiredAntiAffinity() {
    return java.util.Collections.unmodifiableList(podsWithRequiredAntiAffinity);
  }

  /** Sum of the pods' requests. Read-only for callers. */
  public Resource requested() {
    return requested;
  }

  /** Sum of the pods' non-zero requests (used by scoring). Read-only for callers. */
  public Resource nonZeroRequested() {
    return nonZeroRequested;
  }

  /** The node's allocatable resources. Read-only for callers. */
  public Resource allocatable() {
    return allocatable;
  }

  public HostPortInfo usedPorts() {
    return usedPorts;
  }

  /** Images on the node by name (every name and tag the node reports). */
  public Map<String, ImageStateSummary> imageStates() {
    return imageStates;
  }

  /** Number of pods on the node using each PVC, keyed {@code namespace/claimName}. */
  public Map<String, Integer> pvcRefCounts() {
    return java.util.Collections.unmodifiableMap(pvcRefCounts);
  }

  public long generation() {
    return generation;
  }

  /** Replaces the node (allocatable recomputed); throws naming the field on a bad quantity. */
  public void setNode(Node newNode) {
    Resource alloc = new Resource();
    if (newNode.getStatus() != null && newNode.getStatus().getAllocatable() != null) {
      for (Map.Entry<String, Quantity> e : newNode.getStatus().getAllocatable().entrySet()) {
        String field = "node " + newNode.getMetadata().getName() + ": status.allocatable." + e.getKey();
        alloc.set(e.getKey(), Quantities.forResource(e.getKey(), e.getValue(), field));
      }
    }
    this.node = newNode;
    // interned, as the nominator's keys are: a lookup by this name then finds its entry by identity instead of
    // comparing the bytes of two copies of the same name (Filter asks the nominator about every node)
    String name = newNode.getMetadata() == null ? "" : newNode.getMetadata().getName();
    this.nodeName = name == null ? null : name.intern();
    this.unschedulable = newNode.getSpec() != null && Boolean.TRUE.equals(newNode.getSpec().getUnschedulable());
    this.taints = newNode.getSpec() == null || newNode.getSpec().getTaints() == null ? List.of()
        : newNode.getSpec().getTaints();
    this.allocatable = alloc;
    this.generation = nextGeneration();
  }

  /** Forgets the node but keeps its pods (they may still be deleted later). */
  public void removeNode() {
    this.node = null;
    this.nodeName = "";
    this.unschedulable = false;
    this.taints = List.of();
    this.generation = nextGeneration();
  }

  /** Sets the image summaries (the cache computes node counts across the cluster). */
  public void setImageStates(Map<String, ImageStateSummary> states) {
    this.imageStates = Map.copyOf(states);
    this.generation = nextGeneration();
  }

  /** Adds a pod and its requests, ports and PVC references. */
  public void addPod(PodInfo podInfo) {
    pods.add(podInfo);
    if (podInfo.hasAffinity()) {
      podsWithAffinity.add(podInfo);
    }
    if (!podInfo.requiredAntiAffinityTerms().isEmpty()) {
      podsWithRequiredAntiAffinity.add(podInfo);
    }
    update(podInfo, +1);
  }

  /** Removes the pod with the same UID; returns whether it was there. */
  public boolean removePod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    PodInfo removed = removeByUid(pods, uid);
    if (removed == null) {
      return false;
    }
    removeByUid(podsWithAffinity, uid);
    removeByUid(podsWithRequiredAntiAffinity, uid);
    update(removed, -1);
    return true;
  }

  private static PodInfo removeByUid(List<PodInfo> list, String uid) {
    for (int i = 0; i < list.size(); i++) {
      if (Objects.equals(list.get(i).uid(), uid)) {
        // order does not matter: swap with the last element
        PodInfo found = list.get(i);
        int last = list.size() - 1;
        list.set(i, list.get(last));
        list.remove(last);
        return found;
      }
    }
    return null;
  }

  private void update(PodInfo podInfo, int sign) {
    if (sign > 0) {
      requested.add(podInfo.requests());
      nonZeroRequested.add(podInfo.nonZeroRequests());
    } else {
      requested.subtract(podInfo.requests());
      nonZeroRequested.subtract(podInfo.nonZeroRequests());
    }
    for (ContainerPort p : podInfo.containerPorts()) {
      int hostPort = p.getHostPort() == null ? 0 : p.getHostPort();
      if (sign > 0) {
        usedPorts.add(p.getHostIP(), p.getProtocol(), hostPort);
      } else {
        usedPorts.remove(p.getHostIP(), p.getProtocol(), hostPort);
      }
    }
    for (String key : podInfo.pvcKeys()) {
      if (!(pvcRefCounts instanceof HashMap)) {
        pvcRefCounts = new HashMap<>(pvcRefCounts);
      }
      pvcRefCounts.merge(key, sign, (a, b) -> a + b == 0 ? null : a + b);
    }
    generation = nextGeneration();
  }

  @Override
  public String toString() {
    return "NodeInfo{" + nodeName() + ", pods=" + pods.size() + ", requested=" + requested
        + ", allocatable=" + allocatable + ", generation=" + generation + "}";
  }
}
