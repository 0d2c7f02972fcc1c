package io.berth.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * PreFilter's per-node counts kept from one cycle to the next, so that a cycle only recounts the
 * nodes whose {@link io.berth.framework.NodeInfo#generation()} changed. A generation comes from a
 * global counter bumped by every NodeInfo mutation and is kept by copies, so two NodeInfos with
 * the same generation hold the same node and pods: a node's counts for a given {@link Key} can be
 * reused as long as its generation is unchanged. Keeps the {@link Tally} of the last few keys.
 *
 * <p>Thread-safe: one plugin instance holds it; {@link #acquire} hands a tally to one PreFilter
 * call at a time (guarded by {@code lock}); a PreFilter finding it busy (PreFilter normally runs
 * on the single scheduling thread) counts with a throwaway tally instead.
 */
final class CountingMemo {
  private static final int MAX_KEYS = 4;

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock; least recently used first
  private final LinkedHashMap<Key, Tally> tallies = new LinkedHashMap<>(8, 0.75f, true);

  /**
   * What the per-node counts of a pod's own hard constraints depend on besides the node: the
   * namespace, the constraints as written, the pod's values of their matchLabelKeys, and the pod's
   * node selector, required node affinity and tolerations where a policy honors them. Pods are
   * immutable, so the spec objects held are too.
   */
  record Key(String namespace, List<TopologySpreadConstraint> constraints,
      Map<String, String> matchLabelValues, Object nodeSelector, Object nodeAffinity,
      Object tolerations) {}

  /** The key for a pod with its own constraints; empty for default constraints (not memoized). */
  static Optional<Key> keyOf(Pod pod, List<SpreadConstraint> compiled) {
    if (!ConstraintSource.hasOwnConstraints(pod)) {
      return Optional.empty();
    }
    PodSpec spec = pod.getSpec();
    List<TopologySpreadConstraint> own = spec.getTopologySpreadConstraints();
    Map<String, String> podLabels = pod.getMetadata().getLabels();
    Map<String, String> matchLabelValues = new LinkedHashMap<>();
    for (TopologySpreadConstraint c : own) {
      if (c.getMatchLabelKeys() != null && podLabels != null) {
        for (String k : c.getMatchLabelKeys()) {
          matchLabelValues.put(k, podLabels.get(k));
        }
      }
    }
    boolean affinity = false;
    boolean taints = false;
    for (SpreadConstraint c : compiled) {
      affinity |= c.honorNodeAffinity();
      taints |= c.honorNodeTaints();
    }
    Object nodeSelector = null;
    Object nodeAffinity = null;
    if (affinity) {
      nodeSelector = spec.getNodeSelector();
      Affinity a = spec.getAffinity();
      nodeAffinity = a == null ? null : a.getNodeAffinity();
    }
    Object tolerations = taints ? spec.getTolerations() : null;
    return Optional.of(new Key(pod.getMetadata().getNamespace(), List.copyOf(own),
        matchLabelValues, nodeSelector, nodeAffinity, tolerations));
  }

  /**
   * The tally for {@code key} (a fresh one for a new key), to be handed back with
   * {@link #release}; or a throwaway tally when {@code key} is empty or another PreFilter holds
   * the memo.
   */
  Tally acquire(Optional<Key> key, int constraintCount) {
    if (key.isEmpty() || !lock.tryLock()) {
      return new Tally(constraintCount);
    }
    Tally t = tallies.get(key.get());
    if (t == null) {
      t = new Tally(constraintCount);
      tallies.put(key.get(), t);
      if (tallies.size() > MAX_KEYS) {
        tallies.remove(tallies.keySet().iterator().next());
      }
    }
    t.memoized = true;
    return t;
  }

  /** Hands back a tally from {@link #acquire}. */
  void release(Tally tally) {
    if (tally.memoized) {
      tally.memoized = false;
      lock.unlock();
    }
  }
}
