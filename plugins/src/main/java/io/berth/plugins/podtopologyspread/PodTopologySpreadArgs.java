package io.berth.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code PodTopologySpreadArgs} from a profile's pluginConfig, parsed from the YAML map and
 * validated as upstream's {@code ValidatePodTopologySpreadArgs}: defaultingType is "System"
 * (default) or "List", System allows no defaultConstraints, and each default constraint needs a
 * positive maxSkew, a valid topologyKey, a supported whenUnsatisfiable, no labelSelector, and a
 * {topologyKey, whenUnsatisfiable} pair of its own. Immutable.
 */
record PodTopologySpreadArgs(List<TopologySpreadConstraint> defaultConstraints,
    String defaultingType) {
  static final String SYSTEM_DEFAULTING = "System";
  static final String LIST_DEFAULTING = "List";

  private static final Set<String> FIELDS = Set.of("defaultConstraints", "defaultingType");
  private static final Set<String> CONSTRAINT_FIELDS = Set.of("maxSkew", "topologyKey",
      "whenUnsatisfiable", "labelSelector", "minDomains", "nodeAffinityPolicy",
      "nodeTaintsPolicy", "matchLabelKeys");

  PodTopologySpreadArgs {
    defaultConstraints = List.copyOf(defaultConstraints);
  }

  boolean systemDefaulting() {
    return SYSTEM_DEFAULTING.equals(defaultingType);
  }

  /** Parses and validates; throws {@link IllegalArgumentException} naming every bad field. */
  static PodTopologySpreadArgs parse(Map<String, Object> args) {
    for (String key : args.keySet()) {
      if (!FIELDS.contains(key)) {
        throw new IllegalArgumentException("unknown field \"" + key + "\"");
      }
    }
    Object type = args.get("defaultingType");
    if (type != null && !(type instanceof String)) {
      throw new IllegalArgumentException("defaultingType: Invalid value: " + type
          + ": must be a string");
    }
    // v1 defaulting: an unset defaultingType means System.
    String defaultingType = type == null || ((String) type).isEmpty() ? SYSTEM_DEFAULTING
        : (String) type;
    List<TopologySpreadConstraint> constraints = parseConstraints(args.get("defaultConstraints"));
    PodTopologySpreadArgs parsed = new PodTopologySpreadArgs(constraints, defaultingType);
    parsed.validate();
    return parsed;
  }

  private void validate() {
    List<String> errors = new ArrayList<>();
    if (!SYSTEM_DEFAULTING.equals(defaultingType) && !LIST_DEFAULTING.equals(defaultingType)) {
      errors.add("defaultingType: Unsupported value: \"" + defaultingType
          + "\": supported values: \"System\", \"List\"");
    } else if (systemDefaulting() && !defaultConstraints.isEmpty()) {
      errors.add("defaultingType: Invalid value: \"System\": when .defaultConstraints are not"
          + " empty");
    }
    for (int i = 0; i < defaultConstraints.size(); i++) {
      TopologySpreadConstraint c = defaultConstraints.get(i);
      String p = "defaultConstraints[" + i + "]";
      int maxSkew = c.getMaxSkew() == null ? 0 : c.getMaxSkew();
      if (maxSkew <= 0) {
        errors.add(p + ".maxSkew: Invalid value: " + maxSkew + ": not in valid range (0, inf)");
      }
      String key = c.getTopologyKey() == null ? "" : c.getTopologyKey();
      if (key.isEmpty()) {
        errors.add(p + ".topologyKey: Required value: can not be empty");
      } else {
        for (String msg : QualifiedNames.validate(key)) {
          errors.add(p + ".topologyKey: Invalid value: \"" + key + "\": " + msg);
        }
      }
      String action = c.getWhenUnsatisfiable() == null ? "" : c.getWhenUnsatisfiable();
      if (action.isEmpty()) {
        errors.add(p + ".whenUnsatisfiable: Required value: can not be empty");
      } else if (!ConstraintCompiler.DO_NOT_SCHEDULE.equals(action)
          && !ConstraintCompiler.SCHEDULE_ANYWAY.equals(action)) {
        errors.add(p + ".whenUnsatisfiable: Unsupported value: \"" + action
            + "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
      }
      if (c.getLabelSelector() != null) {
        errors.add(p + ".labelSelector: Forbidden: constraint must not define a selector, as"
            + " they deduced for each pod");
      }
      for (int j = 0; j < i; j++) {
        TopologySpreadConstraint other = defaultConstraints.get(j);
        if (key.equals(other.getTopologyKey())
            && action.equals(other.getWhenUnsatisfiable())) {
          errors.add(p + ": Duplicate value: \"{" + key + ", " + action + "}\"");
          break;
        }
      }
    }
    if (errors.size() == 1) {
      throw new IllegalArgumentException(errors.get(0));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("[" + String.join(", ", errors) + "]");
    }
  }

  private static List<TopologySpreadConstraint> parseConstraints(Object value) {
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> list)) {
      throw new IllegalArgumentException("defaultConstraints: Invalid value: " + value
          + ": must be a list");
    }
    List<TopologySpreadConstraint> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      String p = "defaultConstraints[" + i + "]";
      if (!(list.get(i) instanceof Map<?, ?> m)) {
        throw new IllegalArgumentException(p + ": Invalid value: " + list.get(i)
            + ": must be an object");
      }
      for (Object key : m.keySet()) {
        if (!CONSTRAINT_FIELDS.contains(String.valueOf(key))) {
          throw new IllegalArgumentException(p + ": unknown field \"" + key + "\"");
        }
      }
      TopologySpreadConstraint c = new TopologySpreadConstraint();
      c.setMaxSkew(integer(m.get("maxSkew"), p + ".maxSkew"));
      c.setMinDomains(integer(m.get("minDomains"), p + ".minDomains"));
      c.setTopologyKey(string(m.get("topologyKey"), p + ".topologyKey"));
      c.setWhenUnsatisfiable(string(m.get("whenUnsatisfiable"), p + ".whenUnsatisfiable"));
      c.setNodeAffinityPolicy(string(m.get("nodeAffinityPolicy"), p + ".nodeAffinityPolicy"));
      c.setNodeTaintsPolicy(string(m.get("nodeTaintsPolicy"), p + ".nodeTaintsPolicy"));
      c.setMatchLabelKeys(stringList(m.get("matchLabelKeys"), p + ".matchLabelKeys"));
      // Only its presence matters: validation forbids a selector on default constraints.
      c.setLabelSelector(m.get("labelSelector") == null ? null : new LabelSelector());
      out.add(c);
    }
    return out;
  }

  private static Integer integer(Object v, String field) {
    if (v == null) {
      return null;
    }
    if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
        && Math.abs(n.doubleValue()) <= Integer.MAX_VALUE) {
      return n.intValue();
    }
    throw new IllegalArgumentException(field + ": Invalid value: " + quote(v)
        + ": must be an integer");
  }

  private static String string(Object v, String field) {
    if (v == null) {
      return null;
    }
    if (v instanceof String s) {
      return s;
    }
    throw new IllegalArgumentException(field + ": Invalid value: " + v + ": must be a string");
  }

  private static List<String> stringList(Object v, String field) {
    if (v == null) {
      return null;
    }
    if (v instanceof List<?> list) {
      List<String> out = new ArrayList<>(list.size());
      for (int i = 0; i < list.size(); i++) {
        out.add(string(list.get(i), field + "[" + i + "]"));
      }
      return out;
    }
    throw new IllegalArgumentException(field + ": Invalid value: " + v + ": must be a list");
  }

  private static String quote(Object v) {
    return v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
  }
}
