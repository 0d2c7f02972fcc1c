package io.berth.dracel;

import dev.cel.common.ast.CelExpr;
import dev.cel.runtime.CelEvaluationListener;
import java.util.HashMap;
import java.util.Map;

/**
 * The running cost of one evaluation, as cel-go's {@code CostTracker} with a limit: pass it as the
 * evaluation listener of {@code Program.trace}; each evaluated sub-expression adds its
 * {@link RuntimeCostModel} cost, and once the total exceeds the limit the evaluation stops with
 * {@link LimitExceeded} (upstream's "operation cancelled: actual cost limit exceeded"), which
 * cel-java reports as the cause of its evaluation exception. Confined to the evaluating thread;
 * one per evaluation.
 */
public final class CostTracker implements CelEvaluationListener {
  /** Upstream's message when the runtime cost exceeds the limit. */
  public static final String LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded";

  private final RuntimeCostModel model;
  private final long limit;
  // latest value of each sub-expression a sized call reads (post-order: operands come first)
  private final Map<Long, Object> values = new HashMap<>();
  private long cost;

  /** Stops an evaluation past its cost limit. */
  public static final class LimitExceeded extends RuntimeException {
    LimitExceeded() {
      super(LIMIT_EXCEEDED, null, false, false);
    }
  }

  CostTracker(RuntimeCostModel model, long limit) {
    this.model = model;
    this.limit = limit;
  }

  @Override
  public void callback(CelExpr expr, Object value) {
    cost = Range.add(cost, model.cost(expr, values, value));
    if (model.needsValue(expr.id())) {
      values.put(expr.id(), value);
    }
    if (cost > limit) {
      throw new LimitExceeded();
    }
  }

  /** The cost so far (upstream's {@code ActualCost}). */
  public long actualCost() {
    return cost;
  }

  /** Whether {@code e} or one of its causes is a {@link LimitExceeded}. */
  public static boolean causedBy(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof LimitExceeded) {
        return true;
      }
    }
    return false;
  }
}
