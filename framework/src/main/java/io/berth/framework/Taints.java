package io.berth.framework;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Taint and toleration matching with upstream's {@code ToleratesTaint} rules: a toleration with an
 * effect matches only that effect; an empty key with operator Exists matches every key; operator
 * "" or Equal compares values, Exists ignores them. Stateless and thread-safe.
 */
public final class Taints {
  public static final String NO_SCHEDULE = "NoSchedule";
  public static final String PREFER_NO_SCHEDULE = "PreferNoSchedule";
  public static final String NO_EXECUTE = "NoExecute";

  private Taints() {}

  public static boolean tolerates(Toleration toleration, Taint taint) {
    String effect = toleration.getEffect();
    if (effect != null && !effect.isEmpty() && !effect.equals(taint.getEffect())) {
      return false;
    }
    String key = toleration.getKey();
    if (key != null && !key.isEmpty() && !key.equals(taint.getKey())) {
      return false;
    }
    String op = toleration.getOperator();
    if (op == null || op.isEmpty() || "Equal".equals(op)) {
      return Objects.equals(nullToEmpty(toleration.getValue()), nullToEmpty(taint.getValue()));
    }
    return "Exists".equals(op);
  }

  /** Whether any toleration tolerates the taint. */
  public static boolean toleratedBy(Taint taint, List<Toleration> tolerations) {
    if (tolerations == null) {
      return false;
    }
    for (Toleration t : tolerations) {
      if (tolerates(t, taint)) {
        return true;
      }
    }
    return false;
  }

  /** The first taint that passes {@code filter} and no toleration tolerates. */
  public static Optional<Taint> findUntolerated(List<Taint> taints, List<Toleration> tolerations,
      Predicate<Taint> filter) {
    if (taints == null) {
      return Optional.empty();
    }
    for (Taint taint : taints) {
      if (filter.test(taint) && !toleratedBy(taint, tolerations)) {
        return Optional.of(taint);
      }
    }
    return Optional.empty();
  }

  /**
   * What is wrong with a node's taints, naming the field ({@code spec.taints[i].effect}), as the
   * API server's validation would reject it: a taint needs a key and one of the three effects.
   * Empty when they are well-formed (or absent).
   */
  public static Optional<String> validateTaints(List<Taint> taints) {
    if (taints == null) {
      return Optional.empty();
    }
    for (int i = 0; i < taints.size(); i++) {
      Taint t = taints.get(i);
      String field = "spec.taints[" + i + "].";
      if (t == null || t.getKey() == null || t.getKey().isEmpty()) {
        return Optional.of(field + "key: Required value");
      }
      if (!isEffect(t.getEffect())) {
        return Optional.of(field + "effect: Unsupported value: \"" + nullToEmpty(t.getEffect())
            + "\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
      }
    }
    return Optional.empty();
  }

  /**
   * What is wrong with a pod's tolerations, naming the field ({@code spec.tolerations[i].operator}),
   * as the API server's validation would reject it: operator "", Equal or Exists; Exists takes no
   * value; an empty key needs Exists; the effect is empty or one of the three. Empty when they are
   * well-formed (or absent).
   */
  public static Optional<String> validateTolerations(List<Toleration> tolerations) {
    if (tolerations == null) {
      return Optional.empty();
    }
    for (int i = 0; i < tolerations.size(); i++) {
      Toleration t = tolerations.get(i);
      if (t == null) {
        continue;
      }
      String field = "spec.tolerations[" + i + "].";
      String op = nullToEmpty(t.getOperator());
      if (!op.isEmpty() && !"Equal".equals(op) && !"Exists".equals(op)) {
        return Optional.of(field + "operator: Unsupported value: \"" + op
            + "\": supported values: \"Equal\", \"Exists\"");
      }
      if ("Exists".equals(op) && !nullToEmpty(t.getValue()).isEmpty()) {
        return Optional.of(field + "operator: Invalid value: \"" + t.getValue()
            + "\": value must be empty when `operator` is 'Exists'");
      }
      if (nullToEmpty(t.getKey()).isEmpty() && !"Exists".equals(op)) {
        return Optional.of(field + "operator: Invalid value: \"" + op
            + "\": operator must be Exists when `key` is empty, which means \"match all values"
            + " and all keys\"");
      }
      String effect = nullToEmpty(t.getEffect());
      if (!effect.isEmpty() && !isEffect(effect)) {
        return Optional.of(field + "effect: Unsupported value: \"" + effect
            + "\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
      }
    }
    return Optional.empty();
  }

  private static boolean isEffect(String effect) {
    return NO_SCHEDULE.equals(effect) || PREFER_NO_SCHEDULE.equals(effect)
        || NO_EXECUTE.equals(effect);
  }

  /** {@code key=value:Effect} or {@code key:Effect}, as upstream prints a taint. */
  public static String describe(Taint taint) {
    String value = nullToEmpty(taint.getValue());
    return taint.getKey() + (value.isEmpty() ? "" : "=" + value) + ":" + taint.getEffect();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
