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

  /** {@code key=value:Effect} or {@code key:Effect}, as upstream prints a taint. */
  public static String describe(Taint taint) {
    String value = nullToEmpty(taint.getValue());
    return taint.getKey() + (value.isEmpty() ? "" : "=" + value) + ":" + taint.getEffect();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
