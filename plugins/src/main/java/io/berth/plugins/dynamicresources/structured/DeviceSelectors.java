package io.berth.plugins.dynamicresources.structured;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.berth.dracel.Compilation;
import io.berth.dracel.CostTracker;
import io.berth.dracel.RuntimeCostModel;
import io.berth.dracel.SelectorEnvironment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Compiles DRA's CEL device selectors ({@code DeviceClass.spec.selectors[].cel.expression} and
 * {@code ...requests[].selectors[]}) in {@link SelectorEnvironment} (upstream's
 * {@code dynamic-resource-allocation/cel}), and evaluates them on devices with upstream's runtime
 * cost limit ({@link #MAX_COST}, cel-go's cost model as {@link RuntimeCostModel} states it). As
 * upstream's scheduler (its cache compiles with cost estimation disabled), selectors are not
 * estimated here: the API server rejects one whose worst-case estimate exceeds the limit, and the
 * evaluation bound stops any that got past it.
 *
 * <p>Thread-safe: compiled programs are immutable; the small LRU cache of compiled expressions
 * (as upstream's {@code cel.NewCache(10)}) is guarded by {@code this}.
 */
public final class DeviceSelectors {
  /** Upstream's {@code resourceapi.CELSelectorExpressionMaxCost}. */
  public static final long MAX_COST = SelectorEnvironment.MAX_COST;
  /** Upstream's {@code resourceapi.CELSelectorExpressionMaxLength}. */
  public static final int MAX_EXPRESSION_LENGTH = SelectorEnvironment.MAX_EXPRESSION_LENGTH;

  private static final int CACHE_SIZE = 10;

  private final Map<String, Compiled> cache = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Compiled> eldest) {
      return size() > CACHE_SIZE;
    }
  };

  /** A compiled expression, or why it did not compile. Immutable. */
  public static final class Compiled {
    private final String expression;
    private final CelRuntime.Program program;
    private final RuntimeCostModel costs;
    private final String error;

    private Compiled(String expression, CelRuntime.Program program, RuntimeCostModel costs,
        String error) {
      this.expression = expression;
      this.program = program;
      this.costs = costs;
      this.error = error;
    }

    /** The expression as written. */
    public String expression() {
      return expression;
    }

    /** The compile error, if any ("compilation failed: ..."). */
    public Optional<String> error() {
      return Optional.ofNullable(error);
    }

    /**
     * Evaluates the selector on one device.
     *
     * @throws SelectorException on a compile error, a runtime error, a non-bool result or a
     *     cost over the limit
     */
    public boolean matches(DeviceView device) throws SelectorException {
      return matches(device, MAX_COST);
    }

    /** As {@link #matches(DeviceView)} with another cost limit (tests). */
    boolean matches(DeviceView device, long costLimit) throws SelectorException {
      if (error != null) {
        throw new SelectorException(error);
      }
      if (device.celError().isPresent()) {
        throw new SelectorException(device.celError().get());
      }
      Object result;
      try {
        result = program.trace(Map.of("device", device.asCel()), costs.tracker(costLimit));
      } catch (CelEvaluationException | RuntimeException e) {
        if (CostTracker.causedBy(e)) {
          throw new SelectorException(CostTracker.LIMIT_EXCEEDED);
        }
        throw new SelectorException(message(e));
      }
      if (!(result instanceof Boolean b)) {
        throw new SelectorException("CEL result of type " + typeName(result)
            + " could not be converted to bool");
      }
      return b;
    }

    /** The runtime cost of evaluating on {@code device} (tests). */
    long actualCost(DeviceView device) throws CelEvaluationException {
      CostTracker tracker = costs.tracker(Long.MAX_VALUE);
      program.trace(Map.of("device", device.asCel()), tracker);
      return tracker.actualCost();
    }

    @Override
    public String toString() {
      return expression;
    }
  }

  /** Why a selector could not be evaluated; the message is upstream's wording. */
  public static final class SelectorException extends Exception {
    public SelectorException(String message) {
      super(message);
    }
  }

  /** Compiles {@code expression}, or answers it from the cache. Never throws. */
  public Compiled compile(String expression) {
    synchronized (this) {
      Compiled c = cache.get(expression);
      if (c != null) {
        return c;
      }
    }
    Compiled c = doCompile(expression);
    synchronized (this) {
      cache.put(expression, c);
    }
    return c;
  }

  private static Compiled doCompile(String expression) {
    Compilation compiled = SelectorEnvironment.compile(expression, false);
    if (compiled.error().isPresent()) {
      return new Compiled(expression, null, null, compiled.error().get());
    }
    try {
      var ast = compiled.ast().orElseThrow();
      return new Compiled(expression, SelectorEnvironment.cel().createProgram(ast),
          new RuntimeCostModel(ast), null);
    } catch (CelEvaluationException | RuntimeException e) {
      return new Compiled(expression, null, null,
          "program instantiation failed: " + e.getMessage());
    }
  }

  // cel-java's message, and the library's own (upstream's whole message, e.g. a semver parse
  // error) when a function failed
  private static String message(Exception e) {
    String message = e.getMessage();
    Throwable cause = e.getCause();
    if (cause instanceof IllegalArgumentException && cause.getMessage() != null
        && (message == null || !message.contains(cause.getMessage()))) {
      return message == null ? cause.getMessage() : message + ": " + cause.getMessage();
    }
    return message;
  }

  private static String typeName(Object v) {
    if (v == null) {
      return "null_type";
    }
    if (v instanceof String) {
      return "string";
    }
    if (v instanceof Long) {
      return "int";
    }
    if (v instanceof Double) {
      return "double";
    }
    if (v instanceof Map) {
      return "map";
    }
    return v.getClass().getSimpleName();
  }
}
