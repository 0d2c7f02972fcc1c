package io.berth.plugins.helper;

import io.berth.framework.Taints;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.function.Predicate;

/**
 * Taint predicates shared by plugins, as kube-scheduler's {@code helper/taint.go}. Immutable
 * constants, thread-safe.
 */
public final class TaintFilters {
  /** Taints that keep pods off a node: effect NoSchedule or NoExecute. */
  public static final Predicate<Taint> DO_NOT_SCHEDULE = taint ->
      Taints.NO_SCHEDULE.equals(taint.getEffect()) || Taints.NO_EXECUTE.equals(taint.getEffect());

  private TaintFilters() {}
}
