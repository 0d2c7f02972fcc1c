package io.berth.plugins.podtopologyspread;

import io.berth.framework.LabelMatcher;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.RequiredNodeAffinity;
import io.berth.framework.Taints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * One topology spread constraint as the plugin uses it: the selector already compiled (and, for
 * matchLabelKeys, already narrowed by the pod's own label values), minDomains defaulted to 1, and
 * the node inclusion policies resolved (nodeAffinityPolicy Honor and nodeTaintsPolicy Ignore by
 * default). {@code selectorKey} is a value (with equals and hashCode) that determines the
 * selector: two constraints with equal keys select the same pods, which is what lets
 * {@link MatchCountMemo} reuse per-node counts across pods and cycles. Immutable.
 */
record SpreadConstraint(int maxSkew, String topologyKey, LabelMatcher selector,
    Object selectorKey, int minDomains, boolean honorNodeAffinity, boolean honorNodeTaints) {

  static final String LABEL_HOSTNAME = "kubernetes.io/hostname";
  static final String LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone";

  SpreadConstraint {
    Objects.requireNonNull(topologyKey, "topologyKey");
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(selectorKey, "selectorKey");
  }

  /** The same constraint counting the pods {@code newSelector} (determined by {@code key}) matches. */
  SpreadConstraint withSelector(LabelMatcher newSelector, Object key) {
    return new SpreadConstraint(maxSkew, topologyKey, newSelector, key, minDomains,
        honorNodeAffinity, honorNodeTaints);
  }

  boolean isHostname() {
    return LABEL_HOSTNAME.equals(topologyKey);
  }

  boolean selects(Map<String, String> podLabels) {
    return selector.matches(podLabels == null ? Map.of() : podLabels);
  }

  /**
   * Whether the node's domain takes part in this constraint's counting for {@code pod}: with
   * nodeAffinityPolicy Honor the node must pass the pod's required node affinity and nodeSelector;
   * with nodeTaintsPolicy Honor the pod must tolerate the node's NoSchedule/NoExecute taints.
   */
  boolean includesNode(Pod pod, Node node, Predicate<Node> requiredNodeAffinity) {
    if (honorNodeAffinity && !requiredNodeAffinity.test(node)) {
      return false;
    }
    if (honorNodeTaints) {
      List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
      List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
      return Taints.findUntolerated(taints, tolerations, SpreadConstraint::doNotSchedule).isEmpty();
    }
    return true;
  }

  /**
   * Whether {@link #includesNode} holds for every node, for a pod with no required node affinity
   * or nodeSelector when {@code noRequiredAffinity}: neither policy can then exclude a node.
   */
  boolean includesEveryNode(boolean noRequiredAffinity) {
    return !honorNodeTaints && (!honorNodeAffinity || noRequiredAffinity);
  }

  /**
   * Whether the pod has no nodeSelector and no required node affinity; false when its affinity
   * cannot be parsed (then {@link #requiredNodeAffinity} matches no node).
   */
  static boolean hasNoRequiredNodeAffinity(Pod pod) {
    try {
      return RequiredNodeAffinity.of(pod).isEmpty();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Pods on the node in {@code namespace} that the selector matches, terminating pods excluded. An empty
   * selector ({@code labelSelector: {}} with no matchLabelKeys values) counts no pod, as upstream's
   * {@code countPodsMatchSelector} returns 0 for {@code labels.Everything()}; the pod being scheduled still
   * matches it ({@link #selects}), and so do pods added or removed in a preemption simulation.
   */
  int countMatchingPods(NodeInfo nodeInfo, String namespace) {
    if (selector == LabelMatcher.EVERYTHING) {
      return 0;
    }
    int count = 0;
    for (PodInfo podInfo : nodeInfo.pods()) {
      Pod pod = podInfo.pod();
      if (pod.getMetadata().getDeletionTimestamp() != null
          || !Objects.equals(pod.getMetadata().getNamespace(), namespace)) {
        continue;
      }
      if (selects(pod.getMetadata().getLabels())) {
        count++;
      }
    }
    return count;
  }

  /** Whether the labels hold every constraint's topology key. */
  static boolean hasAllTopologyKeys(Map<String, String> nodeLabels,
      List<SpreadConstraint> constraints) {
    for (SpreadConstraint c : constraints) {
      if (!nodeLabels.containsKey(c.topologyKey())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The pod's required node affinity as a predicate. A pod whose affinity cannot be parsed matches
   * no node here (upstream ignores the parse error and reports no match); NodeAffinity rejects it.
   */
  static Predicate<Node> requiredNodeAffinity(Pod pod) {
    try {
      RequiredNodeAffinity affinity = RequiredNodeAffinity.of(pod);
      return affinity::matches;
    } catch (IllegalArgumentException e) {
      return node -> false;
    }
  }

  static Map<String, String> labelsOf(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private static boolean doNotSchedule(Taint taint) {
    return Taints.NO_SCHEDULE.equals(taint.getEffect())
        || Taints.NO_EXECUTE.equals(taint.getEffect());
  }
}
