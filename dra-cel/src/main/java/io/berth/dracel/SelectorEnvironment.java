package io.berth.dracel;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.CelTypes;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelStringExtensions;
import dev.cel.parser.CelStandardMacro;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The CEL environment of DRA device selectors, as upstream's {@code dynamic-resource-allocation/cel}
 * compiler on the Kubernetes base environment: one variable {@code device} with {@code driver},
 * {@code allowMultipleAllocations} (false unless the device says true), {@code attributes} and
 * {@code capacity} (maps by domain, then by identifier; {@code version}
 * attributes are {@link CelSemver} values), the standard macros, {@code cel.bind}, cel-go's
 * strings (version 2 without {@code format}) and sets extensions, and the Kubernetes
 * {@code quantity}, {@code semver}, {@code lists} and {@code regex} libraries, two-variable
 * comprehensions, with the base environment's homogeneous aggregate literals and cross-type
 * numeric comparisons. (Not offered: the base environment's {@code url}, {@code ip},
 * {@code cidr}, {@code format}, {@code image} and authorizer libraries, and optional types.)
 * {@link #compile}
 * checks an
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
  static final OpaqueType QUANTITY = QuantityLibrary.QUANTITY;
  /**
   * cel-go's {@code ext.Strings(ext.StringsVersion(2))} as the base environment loads it:
   * cel-java's strings extension without {@code reverse} (version 3); cel-java has no
   * {@code format} (version 1).
   */
  private static final CelStringExtensions STRINGS = CelExtensions.strings(
      EnumSet.complementOf(EnumSet.of(CelStringExtensions.Function.REVERSE)));
  private static final Map<String, CelType> DEVICE_FIELDS = Map.of(
      "driver", SimpleType.STRING,
      // DRAConsumableCapacity's field, beta and on by default in 1.36
      "allowMultipleAllocations", SimpleType.BOOL,
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
    Optional<Compilation> rejected = postCheck(expression, ast);
    if (rejected.isPresent()) {
      return rejected.get();
    }
    long maxCost = estimateCost ? CostEstimator.estimate(ast).max() : Range.UNBOUNDED;
    return Compilation.compiled(expression, ast, maxCost, estimateCost);
  }

  /**
   * What upstream rejects that cel-java's checker lets through: a list function of the
   * {@code lists} library on a list whose elements have no overload upstream (see
   * {@link ListsLibrary}), a type error; and a constant pattern of {@code find()}/{@code findAll()}
   * that does not compile, which upstream's regex optimization reports when creating the program.
   */
  private static Optional<Compilation> postCheck(String expression, CelAbstractSyntaxTree ast) {
    Deque<CelExpr> todo = new ArrayDeque<>();
    todo.push(ast.getExpr());
    while (!todo.isEmpty()) {
      CelExpr e = todo.pop();
      if (e.getKind() == CelExpr.ExprKind.Kind.CALL) {
        CelExpr.CelCall call = e.call();
        if ((call.function().equals("find") || call.function().equals("findAll"))
            && call.target().isPresent() && !call.args().isEmpty()
            && call.args().get(0).getKind() == CelExpr.ExprKind.Kind.CONSTANT
            && call.args().get(0).constant().getKind() == CelConstant.Kind.STRING_VALUE) {
          Optional<String> error =
              RegexLibrary.syntaxError(call.args().get(0).constant().stringValue());
          if (error.isPresent()) {
            return Optional.of(Compilation.failed(expression, Compilation.Failure.INTERNAL,
                "program instantiation failed: " + error.get()));
          }
        }
        if (LIST_FUNCTIONS.contains(call.function()) && call.target().isPresent()
            && call.args().isEmpty()) {
          CelType list = ast.getType(call.target().get().id()).orElse(null);
          if (list != null && list.kind() == CelKind.LIST && !list.parameters().isEmpty()) {
            CelKind element = list.parameters().get(0).kind();
            if (!GENERIC.contains(element)
                && !ListsLibrary.elementKinds(call.function()).contains(element)) {
              return Optional.of(Compilation.failed(expression, Compilation.Failure.INVALID,
                  "compilation failed: ERROR: <input>:" + location(ast, e.id())
                      + ": found no matching overload for '" + call.function()
                      + "' applied to '" + CelTypes.formatFunction(null, List.of(list), true,
                      false) + "'"));
            }
          }
        }
      }
      AstChildren.push(e, todo);
    }
    return Optional.empty();
  }

  private static final Set<String> LIST_FUNCTIONS = Set.of("isSorted", "sum", "min", "max");
  private static final Set<CelKind> GENERIC = EnumSet.of(CelKind.DYN, CelKind.ANY,
      CelKind.TYPE_PARAM, CelKind.ERROR);

  // "line:column" of an expression, as the checker's messages give it
  private static String location(CelAbstractSyntaxTree ast, long id) {
    Integer offset = ast.getSource().getPositionsMap().get(id);
    if (offset == null) {
      return "1:1";
    }
    return ast.getSource().getOffsetLocation(offset)
        .map(l -> l.getLine() + ":" + (l.getColumn() + 1)).orElse("1:1");
  }

  private static Cel build() {
    CelOptions options = CelOptions.current()
        // upstream bounds only the cost; the cost limit stops an evaluation long before this,
        // as every iteration costs at least one unit
        .comprehensionMaxIterations((int) MAX_COST + 1)
        // the base environment's HomogeneousAggregateLiterals and CrossTypeNumericComparisons
        .enableHomogeneousLiterals(true)
        .enableHeterogeneousNumericComparisons(true)
        .build();
    return CelFactory.standardCelBuilder()
        .setOptions(options)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        // the base environment's TwoVarComprehensions (since 1.32)
        .addCompilerLibraries(CelExtensions.bindings(), CelExtensions.comprehensions(), STRINGS,
            CelExtensions.sets(options),
            QuantityLibrary.INSTANCE, SemverLibrary.INSTANCE, ListsLibrary.INSTANCE,
            RegexLibrary.INSTANCE)
        .addRuntimeLibraries(CelExtensions.comprehensions(), STRINGS, CelExtensions.sets(options),
            QuantityLibrary.INSTANCE,
            SemverLibrary.INSTANCE, ListsLibrary.INSTANCE, RegexLibrary.INSTANCE)
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
        .build();
  }
}
