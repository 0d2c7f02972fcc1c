package io.berth.framework;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * A pod's hard node constraints: {@code spec.nodeSelector} (all pairs) and
 * {@code requiredDuringSchedulingIgnoredDuringExecution} node affinity (any term), as upstream's
 * {@code GetRequiredNodeAffinity}. Immutable and thread-safe. {@link #of} raises
 * {@link IllegalArgumentException} naming the invalid field.
 */
public final class RequiredNodeAffinity {
  private final Map<String, String> nodeSelector;
  private final NodeSelectorMatcher required;

  private RequiredNodeAffinity(Map<String, String> nodeSelector, NodeSelectorMatcher required) {
    this.nodeSelector = nodeSelector;
    this.required = required;
  }

  public static RequiredNodeAffinity of(Pod pod) {
    Map<String, String> selector = pod.getSpec() == null || pod.getSpec().getNodeSelector() == null
        ? Map.of() : Map.copyOf(pod.getSpec().getNodeSelector());
    NodeSelector ns = null;
    if (pod.getSpec() != null && pod.getSpec().getAffinity() != null
        && pod.getSpec().getAffinity().getNodeAffinity() != null) {
      ns = pod.getSpec().getAffinity().getNodeAffinity()
          .getRequiredDuringSchedulingIgnoredDuringExecution();
    }
    NodeSelectorMatcher matcher = ns == null ? null : NodeSelectorMatcher.compile(ns,
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
    return new RequiredNodeAffinity(selector, matcher);
  }

  /** Whether the node satisfies the nodeSelector and the required terms. */
  public boolean matches(Node node) {
    Map<String, String> labels = NodeSelectorMatcher.labelsOf(node);
    for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return required == null || required.matches(node);
  }

  /** Whether the pod has any hard node constraint at all. */
  public boolean isEmpty() {
    return nodeSelector.isEmpty() && required == null;
  }
}
