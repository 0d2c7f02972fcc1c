package io.berth.dracel;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelFunctionBinding;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * The CEL environment of DRA device selectors, as upstream's {@code dynamic-resource-allocation/cel}
 * compiler: one variable {@code device} with {@code driver}, {@code attributes} and
 * {@code capacity} (maps by domain, then by identifier), the Kubernetes {@code quantity} library
 * for capacities, {@code cel.bind}, and the standard macros. {@link #compile} checks an
 * expression as upstream's {@code CompileCELExpression}: at most {@value #MAX_EXPRESSION_LENGTH}
 * bytes of UTF-8, type-checked, a bool (or dyn) result, and, unless asked not to, its worst-case
 * cost estimated by {@link CostEstimator} (upstream's API validation rejects an estimate over
 * {@value #MAX_COST}; the scheduler, as upstream's, does not estimate and bounds the evaluation
 * instead, with {@link CostTracker}).
 *
 * <p>Stateless; the CEL instance is immutable and shared, so every method is thread-safe.
 */
public final class SelectorEnvironment {
  /** Upstream's {@code resourceapi.CELSelectorExpressionMaxCost}. */
  public static final long MAX_COST = 1_000_000;
  /** Upstream's {@code resourceapi.CELSelectorExpressionMaxLength} (bytes). */
  public static final int MAX_EXPRESSION_LENGTH = 10 * 1024;

  static final String DEVICE_VAR = "device";
  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  private static final Map<String, CelType> DEVICE_FIELDS = Map.of(
      "driver", SimpleType.STRING,
      "attributes", MapType.create(SimpleType.STRING,
          MapType.create(SimpleType.STRING, SimpleType.DYN)),
      "capacity", MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, QUANTITY)));
  /**
   * Upstream's {@code kubernetes.DRADevice}: typed fields, so that {@code "id" in
   * device.capacity["domain"]} is a map lookup and an unknown field does not compile (the
   * evaluation reads the fields of the map it is given).
   */
  static final StructType DEVICE_TYPE = StructType.create("kubernetes.DRADevice",
      ImmutableSet.copyOf(DEVICE_FIELDS.keySet()), f -> Optional.ofNullable(DEVICE_FIELDS.get(f)));
  private static final Cel CEL = build();

  private SelectorEnvironment() {
  }

  /** The compiler and runtime, for programs of ASTs {@link #compile} checked. */
  public static Cel cel() {
    return CEL;
  }

  /**
   * Compiles {@code expression}; never throws. With {@code estimateCost}, the result carries the
   * worst-case cost ({@link Compilation#maxCost}); without, {@link Range#UNBOUNDED}, as
   * upstream's {@code DisableCostEstimation}.
   */
  public static Compilation compile(String expression, boolean estimateCost) {
    int bytes = expression.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_EXPRESSION_LENGTH) {
      return Compilation.failed(expression, Compilation.Failure.TOO_LONG,
          "compilation failed: expression too long (" + bytes + " bytes, at most "
              + MAX_EXPRESSION_LENGTH + ")");
    }
    CelAbstractSyntaxTree ast;
    try {
      ast = CEL.compile(expression).getAst();
    } catch (CelValidationException e) {
      return Compilation.failed(expression, Compilation.Failure.INVALID,
          "compilation failed: " + e.getMessage());
    } catch (RuntimeException e) {
      return Compilation.failed(expression, Compilation.Failure.INTERNAL,
          "unexpected compilation error: " + e.getMessage());
    }
    CelKind result = ast.getResultType().kind();
    if (result != CelKind.BOOL && result != CelKind.DYN && result != CelKind.ANY) {
      return Compilation.failed(expression, Compilation.Failure.INVALID,
          "must evaluate to bool or the unknown type, not " + ast.getResultType().name());
    }
    long maxCost = estimateCost ? CostEstimator.estimate(ast).max() : Range.UNBOUNDED;
    return Compilation.compiled(expression, ast, maxCost, estimateCost);
  }

  private static Cel build() {
    return CelFactory.standardCelBuilder()
        // upstream bounds only the cost; the cost limit stops an evaluation long before this,
        // as every iteration costs at least one unit
        .setOptions(CelOptions.current().comprehensionMaxIterations((int) MAX_COST + 1).build())
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addCompilerLibraries(CelExtensions.bindings())
        .setTypeProvider(new CelTypeProvider() {
          @Override
          public ImmutableCollection<CelType> types() {
            return ImmutableList.of(DEVICE_TYPE);
          }

          @Override
          public Optional<CelType> findType(String name) {
            return name.equals(DEVICE_TYPE.name()) ? Optional.of(DEVICE_TYPE) : Optional.empty();
          }
        })
        .addVar(DEVICE_VAR, DEVICE_TYPE)
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
        .build();
  }
}
