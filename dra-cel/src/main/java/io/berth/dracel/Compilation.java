package io.berth.dracel;

import dev.cel.common.CelAbstractSyntaxTree;
import java.util.Optional;

/**
 * The outcome of {@link SelectorEnvironment#compile}: the checked AST and its worst-case cost, or
 * why the expression does not compile (with upstream's kind of error, which decides the API
 * server's field error: Invalid, or Too long). Immutable.
 */
public final class Compilation {
  /** Why an expression did not compile. */
  public enum Failure {
    /** Over {@link SelectorEnvironment#MAX_EXPRESSION_LENGTH} bytes. */
    TOO_LONG,
    /** A syntax or type error, or a result that is not a bool (upstream's ErrorTypeInvalid). */
    INVALID,
    /** The compiler failed (upstream's ErrorTypeInternal). */
    INTERNAL
  }

  private final String expression;
  private final CelAbstractSyntaxTree ast;
  private final Failure failure;
  private final String error;
  private final long maxCost;
  private final boolean estimated;

  private Compilation(String expression, CelAbstractSyntaxTree ast, Failure failure, String error,
      long maxCost, boolean estimated) {
    this.expression = expression;
    this.ast = ast;
    this.failure = failure;
    this.error = error;
    this.maxCost = maxCost;
    this.estimated = estimated;
  }

  static Compilation compiled(String expression, CelAbstractSyntaxTree ast, long maxCost,
      boolean estimated) {
    return new Compilation(expression, ast, null, null, maxCost, estimated);
  }

  static Compilation failed(String expression, Failure failure, String error) {
    return new Compilation(expression, null, failure, error, Range.UNBOUNDED, false);
  }

  public String expression() {
    return expression;
  }

  /** The checked AST, when it compiled. */
  public Optional<CelAbstractSyntaxTree> ast() {
    return Optional.ofNullable(ast);
  }

  /** Why not, when it did not. */
  public Optional<Failure> failure() {
    return Optional.ofNullable(failure);
  }

  /** The error text, upstream's wording ("compilation failed: ..."), when it did not compile. */
  public Optional<String> error() {
    return Optional.ofNullable(error);
  }

  /**
   * The worst-case cost in CEL cost units; {@link Range#UNBOUNDED} when not estimated or not
   * compiled (upstream's {@code MaxCost}).
   */
  public long maxCost() {
    return maxCost;
  }

  /**
   * Whether it compiled and its estimate exceeds upstream's {@link SelectorEnvironment#MAX_COST};
   * false when the cost was not estimated.
   */
  public boolean exceedsCostLimit() {
    return estimated && maxCost > SelectorEnvironment.MAX_COST;
  }
}
