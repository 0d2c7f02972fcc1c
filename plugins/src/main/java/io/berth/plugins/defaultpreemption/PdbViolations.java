package io.berth.plugins.defaultpreemption;

import io.berth.framework.LabelMatcher;
import io.berth.framework.LabelSelectors;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Splits potential victims into those whose eviction would break a PodDisruptionBudget and those
 * whose would not, as upstream's {@code filterPodsWithPDBViolation}: walking the pods in order,
 * each matching budget in the pod's namespace loses one allowed disruption (unless the pod is
 * already among its {@code disruptedPods}), and a pod violates when some budget goes below zero.
 * A budget with a missing, empty or invalid selector matches nothing; a pod without labels matches
 * no budget. Stable: both groups keep the input order. Stateless.
 */
final class PdbViolations {
  /** The two groups, each in input order. */
  record Split(List<PodInfo> violating, List<PodInfo> nonViolating) {}

  private PdbViolations() {}

  static Split split(List<PodInfo> pods, List<PodDisruptionBudget> pdbs) {
    int[] allowed = new int[pdbs.size()];
    LabelMatcher[] selectors = new LabelMatcher[pdbs.size()];
    for (int i = 0; i < pdbs.size(); i++) {
      PodDisruptionBudget pdb = pdbs.get(i);
      allowed[i] = pdb.getStatus() == null || pdb.getStatus().getDisruptionsAllowed() == null
          ? 0 : pdb.getStatus().getDisruptionsAllowed();
      selectors[i] = selectorOf(pdb);
    }
    List<PodInfo> violating = new ArrayList<>();
    List<PodInfo> nonViolating = new ArrayList<>();
    for (PodInfo podInfo : pods) {
      Map<String, String> labels = podInfo.pod().getMetadata().getLabels();
      boolean violated = false;
      if (labels != null && !labels.isEmpty()) {
        for (int i = 0; i < pdbs.size(); i++) {
          PodDisruptionBudget pdb = pdbs.get(i);
          if (!Objects.equals(namespaceOf(pdb), podInfo.namespace())
              || !selectors[i].matches(labels)) {
            continue;
          }
          // A pod the API server already counted as disrupted does not consume the budget again.
          Map<String, String> disrupted = pdb.getStatus() == null ? null
              : pdb.getStatus().getDisruptedPods();
          if (disrupted != null && disrupted.containsKey(podInfo.name())) {
            continue;
          }
          allowed[i]--;
          if (allowed[i] < 0) {
            violated = true;
          }
        }
      }
      (violated ? violating : nonViolating).add(podInfo);
    }
    return new Split(violating, nonViolating);
  }

  private static LabelMatcher selectorOf(PodDisruptionBudget pdb) {
    LabelSelector selector = pdb.getSpec() == null ? null : pdb.getSpec().getSelector();
    boolean empty = selector == null
        || ((selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())
            && (selector.getMatchExpressions() == null
                || selector.getMatchExpressions().isEmpty()));
    if (empty) {
      return LabelMatcher.NOTHING;
    }
    try {
      return LabelSelectors.compile(selector, "spec.selector");
    } catch (IllegalArgumentException e) {
      return LabelMatcher.NOTHING; // an invalid selector matches no pod, as upstream
    }
  }

  private static String namespaceOf(PodDisruptionBudget pdb) {
    String ns = pdb.getMetadata() == null ? null : pdb.getMetadata().getNamespace();
    return ns == null ? "" : ns;
  }
}
