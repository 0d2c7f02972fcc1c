package io.berth.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a pod's constraints come from: its own {@code spec.topologySpreadConstraints} when it has
 * any, otherwise the configured default constraints counting with the {@link DefaultSelector}
 * (none when no Service or controller selects the pod). Immutable after construction;
 * thread-safe.
 */
final class ConstraintSource {
  static final String POD_FIELD = "spec.topologySpreadConstraints";

  private final List<TopologySpreadConstraint> defaultConstraints;
  private final Optional<DefaultSelector> defaultSelector;

  ConstraintSource(List<TopologySpreadConstraint> defaultConstraints,
      Optional<DefaultSelector> defaultSelector) {
    this.defaultConstraints = List.copyOf(defaultConstraints);
    this.defaultSelector = defaultSelector;
  }

  static boolean hasOwnConstraints(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getTopologySpreadConstraints() != null
        && !pod.getSpec().getTopologySpreadConstraints().isEmpty();
  }

  /**
   * The pod's constraints for {@code action} (DoNotSchedule or ScheduleAnyway). Throws
   * {@link IllegalArgumentException} naming the field when one of the pod's constraints is invalid.
   */
  List<SpreadConstraint> forPod(Pod pod, String action) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (hasOwnConstraints(pod)) {
      return ConstraintCompiler.compile(pod.getSpec().getTopologySpreadConstraints(), labels,
          action, POD_FIELD);
    }
    if (defaultConstraints.isEmpty() || defaultSelector.isEmpty()) {
      return List.of();
    }
    List<SpreadConstraint> defaults = ConstraintCompiler.compile(defaultConstraints, labels,
        action, "defaultConstraints");
    if (defaults.isEmpty()) {
      return List.of();
    }
    Optional<DefaultSelector.Selector> selector = defaultSelector.get().forPod(pod);
    if (selector.isEmpty()) {
      return List.of();
    }
    List<SpreadConstraint> result = new ArrayList<>(defaults.size());
    for (SpreadConstraint c : defaults) {
      result.add(c.withSelector(selector.get().matcher(), selector.get().key()));
    }
    return List.copyOf(result);
  }
}
