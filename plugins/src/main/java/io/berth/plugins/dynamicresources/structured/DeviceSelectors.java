package io.berth.plugins.dynamicresources.structured;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Compiles DRA's CEL device selectors ({@code DeviceClass.spec.selectors[].cel.expression} and
 * {@code ...requests[].selectors[]}) as upstream's {@code dynamic-resource-allocation/cel}: one
 * variable {@code device} with {@code driver}, {@code attributes} and {@code capacity} (maps by
 * domain, then by identifier), the Kubernetes {@code quantity} functions for capacities, the
 * result must be a bool. Upstream's limits apply: at most
 * {@link #MAX_EXPRESSION_LENGTH} bytes (UTF-8), and an evaluation stops with an error once its
 * cost exceeds {@link #MAX_COST} (here one unit per evaluated sub-expression, cel-java having no
 * cost model of its own; upstream's {@code CELSelectorExpressionMaxCost}). Upstream's API server
 * also rejects a selector whose estimated worst-case cost exceeds that limit; cel-java has no
 * cost estimator, so here only the evaluation is bounded.
 *
 * <p>Thread-safe: compiled programs are immutable; the small LRU cache of compiled expressions
 * (as upstream's {@code cel.NewCache(10)}) is guarded by {@code this}.
 */
public final class DeviceSelectors {
  /** Upstream's {@code resourceapi.CELSelectorExpressionMaxCost}. */
  public static final long MAX_COST = 1_000_000;
  /** Upstream's {@code resourceapi.CELSelectorExpressionMaxLength}. */
  public static final int MAX_EXPRESSION_LENGTH = 10 * 1024;

  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  private static final int CACHE_SIZE = 10;
  private static final Cel CEL = buildCel();

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
    private final String error;

    private Compiled(String expression, CelRuntime.Program program, String error) {
      this.expression = expression;
      this.program = program;
      this.error = error;
    }

    /** The expression as written. */
    public String expression() {
      return expression;
    }

    /** The compile error, if any ("compilation failed: ..."). */
    public java.util.Optional<String> error() {
      return java.util.Optional.ofNullable(error);
    }

    /**
     * Evaluates the selector on one device.
     *
     * @throws SelectorException on a compile error, a runtime error, a non-bool result or a
     *     cost over the limit
     */
    public boolean matches(DeviceView device) throws SelectorException {
      if (error != null) {
        throw new SelectorException(error);
      }
      long[] cost = {0};
      Object result;
      try {
        result = program.trace(Map.of("device", device.asCel()), (expr, value) -> {
          if (++cost[0] > MAX_COST) {
            throw new CostExceeded();
          }
        });
      } catch (CostExceeded e) {
        throw new SelectorException("operation cancelled: actual cost limit exceeded");
      } catch (CelEvaluationException e) {
        if (e.getCause() instanceof CostExceeded) {
          throw new SelectorException("operation cancelled: actual cost limit exceeded");
        }
        throw new SelectorException(e.getMessage());
      } catch (RuntimeException e) {
        if (e.getCause() instanceof CostExceeded) {
          throw new SelectorException("operation cancelled: actual cost limit exceeded");
        }
        throw new SelectorException(e.getMessage());
      }
      if (!(result instanceof Boolean b)) {
        throw new SelectorException("CEL result of type " + typeName(result)
            + " could not be converted to bool");
      }
      return b;
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

  private static final class CostExceeded extends RuntimeException {
    CostExceeded() {
      super("actual cost limit exceeded", null, false, false);
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
    int bytes = expression.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_EXPRESSION_LENGTH) {
      return new Compiled(expression, null, "compilation failed: expression too long ("
          + bytes + " bytes, at most " + MAX_EXPRESSION_LENGTH + ")");
    }
    try {
      CelAbstractSyntaxTree ast = CEL.compile(expression).getAst();
      if (!ast.getResultType().equals(SimpleType.BOOL)
          && !ast.getResultType().equals(SimpleType.DYN)) {
        return new Compiled(expression, null, "compilation failed: must evaluate to bool");
      }
      return new Compiled(expression, CEL.createProgram(ast), null);
    } catch (CelValidationException e) {
      return new Compiled(expression, null, "compilation failed: " + e.getMessage());
    } catch (CelEvaluationException | RuntimeException e) {
      return new Compiled(expression, null, "compilation failed: " + e.getMessage());
    }
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

  private static Cel buildCel() {
    return CelFactory.standardCelBuilder()
        .setOptions(CelOptions.current().comprehensionMaxIterations(100_000).build())
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addVar("device", MapType.create(SimpleType.STRING, SimpleType.DYN))
        .addFunctionDeclarations(
            CelFunctionDecl.newFunctionDeclaration("quantity",
                CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY,
                    SimpleType.STRING)),
            CelFunctionDecl.newFunctionDeclaration("isQuantity",
                CelOverloadDecl.newGlobalOverload("is_quantity_string", SimpleType.BOOL,
                    SimpleType.STRING)),
            CelFunctionDecl.newFunctionDeclaration("compareTo",
                CelOverloadDecl.newMemberOverload("quantity_compareTo_quantity", SimpleType.INT,
                    QUANTITY, QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("isGreaterThan",
                CelOverloadDecl.newMemberOverload("quantity_isGreaterThan_quantity",
                    SimpleType.BOOL, QUANTITY, QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("isLessThan",
                CelOverloadDecl.newMemberOverload("quantity_isLessThan_quantity",
                    SimpleType.BOOL, QUANTITY, QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("asInteger",
                CelOverloadDecl.newMemberOverload("quantity_asInteger", SimpleType.INT,
                    QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("asApproximateFloat",
                CelOverloadDecl.newMemberOverload("quantity_asApproximateFloat",
                    SimpleType.DOUBLE, QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("add",
                CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("sub",
                CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY)),
            CelFunctionDecl.newFunctionDeclaration("sign",
                CelOverloadDecl.newMemberOverload("quantity_sign", SimpleType.INT, QUANTITY)))
        .addFunctionBindings(
            CelFunctionBinding.from("string_to_quantity", String.class, CelQuantity::parse),
            CelFunctionBinding.from("is_quantity_string", String.class, s -> {
              try {
                CelQuantity.parse(s);
                return true;
              } catch (IllegalArgumentException e) {
                return false;
              }
            }),
            CelFunctionBinding.from("quantity_compareTo_quantity", CelQuantity.class,
                CelQuantity.class, (a, b) -> (long) Integer.signum(a.compareTo(b))),
            CelFunctionBinding.from("quantity_isGreaterThan_quantity", CelQuantity.class,
                CelQuantity.class, (a, b) -> a.compareTo(b) > 0),
            CelFunctionBinding.from("quantity_isLessThan_quantity", CelQuantity.class,
                CelQuantity.class, (a, b) -> a.compareTo(b) < 0),
            CelFunctionBinding.from("quantity_asInteger", CelQuantity.class,
                q -> q.value().longValueExact()),
            CelFunctionBinding.from("quantity_asApproximateFloat", CelQuantity.class,
                q -> q.value().doubleValue()),
            CelFunctionBinding.from("quantity_add", CelQuantity.class, CelQuantity.class,
                (a, b) -> new CelQuantity(a.value().add(b.value()))),
            CelFunctionBinding.from("quantity_sub", CelQuantity.class, CelQuantity.class,
                (a, b) -> new CelQuantity(a.value().subtract(b.value()))),
            CelFunctionBinding.from("quantity_sign", CelQuantity.class,
                q -> (long) q.value().signum()))
        .setResultType(SimpleType.BOOL)
        .build();
  }
}
