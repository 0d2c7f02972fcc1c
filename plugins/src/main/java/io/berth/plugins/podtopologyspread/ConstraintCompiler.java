package io.berth.plugins.podtopologyspread;

import io.berth.framework.LabelMatcher;
import io.berth.framework.LabelSelectors;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns {@code v1.TopologySpreadConstraint}s into {@link SpreadConstraint}s for one
 * whenUnsatisfiable action, validating every constraint on the way (also those of the other
 * action) with the API server's messages, so that a malformed pod is rejected with the field named
 * rather than half-evaluated. matchLabelKeys are merged into the selector as {@code key In
 * [value]} for each key the pod carries, as upstream v1.32 does. Stateless and thread-safe.
 */
final class ConstraintCompiler {
  static final String DO_NOT_SCHEDULE = "DoNotSchedule";
  static final String SCHEDULE_ANYWAY = "ScheduleAnyway";
  static final String HONOR = "Honor";
  static final String IGNORE = "Ignore";

  private ConstraintCompiler() {}

  /**
   * The constraints whose whenUnsatisfiable is {@code action}, compiled for a pod with
   * {@code podLabels}. Throws {@link IllegalArgumentException} naming the first invalid field
   * under {@code fieldPrefix} (e.g. {@code spec.topologySpreadConstraints}).
   */
  static List<SpreadConstraint> compile(List<TopologySpreadConstraint> constraints,
      Map<String, String> podLabels, String action, String fieldPrefix) {
    List<SpreadConstraint> result = new ArrayList<>();
    for (int i = 0; i < constraints.size(); i++) {
      TopologySpreadConstraint c = constraints.get(i);
      String field = fieldPrefix + "[" + i + "]";
      SpreadConstraint compiled = compileOne(c, podLabels, field);
      if (action.equals(c.getWhenUnsatisfiable())) {
        result.add(compiled);
      }
    }
    return List.copyOf(result);
  }

  private static SpreadConstraint compileOne(TopologySpreadConstraint c,
      Map<String, String> podLabels, String field) {
    int maxSkew = c.getMaxSkew() == null ? 0 : c.getMaxSkew();
    if (maxSkew <= 0) {
      throw new IllegalArgumentException(field + ".maxSkew: Invalid value: " + maxSkew
          + ": must be greater than zero");
    }
    if (c.getTopologyKey() == null || c.getTopologyKey().isEmpty()) {
      throw new IllegalArgumentException(field + ".topologyKey: Required value: can not be empty");
    }
    String action = c.getWhenUnsatisfiable();
    if (!DO_NOT_SCHEDULE.equals(action) && !SCHEDULE_ANYWAY.equals(action)) {
      throw new IllegalArgumentException(field + ".whenUnsatisfiable: Unsupported value: \""
          + (action == null ? "" : action) + "\": supported values: \"" + DO_NOT_SCHEDULE
          + "\", \"" + SCHEDULE_ANYWAY + "\"");
    }
    boolean honorAffinity = policy(c.getNodeAffinityPolicy(), true, field + ".nodeAffinityPolicy");
    boolean honorTaints = policy(c.getNodeTaintsPolicy(), false, field + ".nodeTaintsPolicy");
    Map<String, String> own = ownLabels(c.getMatchLabelKeys(), podLabels);
    LabelMatcher selector = selector(c.getLabelSelector(), own, field + ".labelSelector");
    // minDomains is only meaningful with DoNotSchedule; unset means 1 (every domain counts).
    int minDomains = c.getMinDomains() == null ? 1 : c.getMinDomains();
    return new SpreadConstraint(maxSkew, c.getTopologyKey(), selector,
        new SelectorKey(c.getLabelSelector(), own), minDomains, honorAffinity, honorTaints);
  }

  private static boolean policy(String value, boolean defaultHonor, String field) {
    if (value == null) {
      return defaultHonor;
    }
    if (HONOR.equals(value)) {
      return true;
    }
    if (IGNORE.equals(value)) {
      return false;
    }
    throw new IllegalArgumentException(field + ": Unsupported value: \"" + value
        + "\": supported values: \"" + HONOR + "\", \"" + IGNORE + "\"");
  }

  /**
   * What determines a compiled constraint's selector: the selector as written (null when unset)
   * and the {@code key=value} pairs its matchLabelKeys took from the pod. Pods are immutable, so
   * the selector object held is too.
   */
  record SelectorKey(LabelSelector selector, Map<String, String> matchLabelValues) {}

  /** The pod's values of {@code matchLabelKeys}, for the keys the pod carries, in key order. */
  private static Map<String, String> ownLabels(List<String> matchLabelKeys,
      Map<String, String> podLabels) {
    if (matchLabelKeys == null || podLabels == null) {
      return Map.of();
    }
    Map<String, String> own = new LinkedHashMap<>();
    for (String key : matchLabelKeys) {
      String value = podLabels.get(key);
      if (value != null) {
        own.put(key, value);
      }
    }
    return own.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(own);
  }

  /**
   * The selector ANDed with {@code key=value} for every matchLabelKey the pod carries
   * ({@code own}). A null selector matches nothing even when matchLabelKeys contributed
   * requirements: upstream's merge keeps {@code labels.Nothing()} as it is (it has no requirements to
   * add to), and the API server refuses matchLabelKeys without a labelSelector anyway.
   */
  private static LabelMatcher selector(LabelSelector selector, Map<String, String> own,
      String field) {
    LabelMatcher base = LabelSelectors.compile(selector, field);
    if (own.isEmpty() || selector == null) {
      return base;
    }
    LabelMatcher ownMatcher = LabelSelectors.fromMap(own);
    return labels -> ownMatcher.matches(labels) && base.matches(labels);
  }
}
