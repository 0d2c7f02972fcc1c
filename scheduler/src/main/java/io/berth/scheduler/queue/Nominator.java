package io.berth.scheduler.queue;

import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Pods nominated to nodes (by preemption, or by {@code status.nominatedNodeName}) and not bound
 * yet, with their current {@link PodInfo}. Thread-safe: changes are made under its own
 * read-write lock, a leaf lock (the scheduling queue takes it under its own lock; it never calls
 * out); {@link #forNode} reads without any lock, since each node's list is an immutable list
 * replaced whole in a concurrent map, so Filter workers asking for every node of every cycle never
 * contend with each other or with the queue.
 *
 * <p>At most one entry per pod UID: every add first removes the pod wherever it was.
 */
final class Nominator {
  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  // written under lock's write lock; read lock-free: the values are immutable lists, replaced whole
  private final Map<String, List<PodInfo>> podsByNode = new ConcurrentHashMap<>();
  // guarded by lock
  private final Map<String, String> nodeByUid = new HashMap<>();
  // written under the write lock after every change; read without it so that Filter, which asks
  // for every node of every cycle, skips the lock while nothing is nominated (the common case)
  private volatile int nominatedCount;

  /**
   * Nominates the pod: OVERRIDE uses the given node (empty clears the nomination); NOOP or null
   * uses the pod's {@code status.nominatedNodeName}. A pod already bound is not nominated.
   */
  void add(PodInfo podInfo, NominatingInfo nominatingInfo) {
    lock.writeLock().lock();
    try {
      addLocked(podInfo, nominatingInfo);
    } finally {
      nominatedCount = nodeByUid.size();
      lock.writeLock().unlock();
    }
  }

  void delete(Pod pod) {
    lock.writeLock().lock();
    try {
      deleteLocked(InFlightPods.uid(pod));
    } finally {
      nominatedCount = nodeByUid.size();
      lock.writeLock().unlock();
    }
  }

  /** As {@link #delete} for each of {@code pods}, in one hold of the write lock. */
  void deleteAll(Collection<Pod> pods) {
    lock.writeLock().lock();
    try {
      for (Pod pod : pods) {
        deleteLocked(InFlightPods.uid(pod));
      }
    } finally {
      nominatedCount = nodeByUid.size();
      lock.writeLock().unlock();
    }
  }

  /**
   * Replaces the pod's PodInfo. When neither version carries a nominated node but the pod is
   * nominated in memory (preemption just chose it, the status write has not arrived yet), the
   * in-memory nomination is kept, as upstream's UpdateNominatedPod does.
   */
  void update(Pod oldPod, PodInfo newPodInfo) {
    lock.writeLock().lock();
    try {
      Pod old = oldPod == null ? newPodInfo.pod() : oldPod;
      NominatingInfo keep = null;
      if (nominatedNodeName(old).isEmpty() && nominatedNodeName(newPodInfo.pod()).isEmpty()) {
        String node = nodeByUid.get(InFlightPods.uid(old));
        if (node != null) {
          keep = NominatingInfo.override(node);
        }
      }
      deleteLocked(InFlightPods.uid(old));
      addLocked(newPodInfo, keep);
    } finally {
      nominatedCount = nodeByUid.size();
      lock.writeLock().unlock();
    }
  }

  /** The pods nominated to the node: an immutable list, as of the last change. */
  List<PodInfo> forNode(String nodeName) {
    if (nominatedCount == 0) {
      return List.of();
    }
    List<PodInfo> pods = podsByNode.get(nodeName);
    return pods == null ? List.of() : pods;
  }

  Optional<String> nodeOf(String uid) {
    lock.readLock().lock();
    try {
      return Optional.ofNullable(nodeByUid.get(uid));
    } finally {
      lock.readLock().unlock();
    }
  }

  private void addLocked(PodInfo podInfo, NominatingInfo nominatingInfo) {
    Pod pod = podInfo.pod();
    String uid = InFlightPods.uid(pod);
    deleteLocked(uid);
    String node;
    if (nominatingInfo != null && nominatingInfo.mode() == NominatingInfo.Mode.OVERRIDE) {
      node = nominatingInfo.nominatedNodeName() == null ? "" : nominatingInfo.nominatedNodeName();
    } else {
      node = nominatedNodeName(pod);
    }
    if (node.isEmpty()) {
      return;
    }
    if (pod.getSpec() != null && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty()) {
      return;
    }
    // interned, as NodeInfo interns its node's name: Filter looks up every node of every cycle in podsByNode, and
    // with the same instance as key a hit compares references instead of the bytes of two copies of the name
    node = node.intern();
    nodeByUid.put(uid, node);
    List<PodInfo> before = podsByNode.getOrDefault(node, List.of());
    List<PodInfo> after = new ArrayList<>(before.size() + 1);
    after.addAll(before);
    after.add(podInfo);
    podsByNode.put(node, List.copyOf(after));
  }

  private void deleteLocked(String uid) {
    String node = nodeByUid.remove(uid);
    if (node == null) {
      return;
    }
    List<PodInfo> pods = podsByNode.get(node);
    if (pods == null) {
      return;
    }
    List<PodInfo> rest = new ArrayList<>(pods.size());
    for (PodInfo p : pods) {
      if (!InFlightPods.uid(p.pod()).equals(uid)) {
        rest.add(p);
      }
    }
    if (rest.isEmpty()) {
      podsByNode.remove(node);
    } else {
      podsByNode.put(node, List.copyOf(rest));
    }
  }

  private static String nominatedNodeName(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getNominatedNodeName() == null) {
      return "";
    }
    return pod.getStatus().getNominatedNodeName();
  }
}
