package io.berth.dracel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import dev.cel.common.values.CelByteString;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each evaluated sub-expression of one checked selector costs, as cel-go's runtime
 * {@code CostTracker} with the Kubernetes library's {@code CallCost} charges: an identifier or a
 * field selection one unit, a constant nothing, list, map and message literals 10, 30 and 40;
 * {@code &&}, {@code ||} and {@code ?:} nothing of their own; string or bytes comparison and any
 * equality {@code ceil(0.1 * the smaller size)}, string concatenation {@code ceil(0.1 * both
 * sizes)}, {@code startsWith}/{@code endsWith} and {@code quantity}/{@code isQuantity}
 * {@code ceil(0.1 * size of the first argument)} (for a member call, its receiver, as upstream's),
 * {@code contains} the product of both {@code ceil(0.1 * size)}, {@code matches}
 * {@code ceil(0.1 * (size + 1)) * ceil(0.25 * pattern size)}, {@code in} a list its size; the
 * Kubernetes libraries' {@code CallCost}: {@code semver}/{@code isSemver}, {@code lowerAscii},
 * {@code upperAscii}, {@code substring} and {@code trim} {@code ceil(0.1 * size of the receiver)},
 * {@code replace} and {@code split} {@code ceil(0.2 * size)}, {@code join} {@code ceil(0.2 * size
 * of the result)}, {@code find}/{@code findAll} as {@code matches}, {@code isSorted}, {@code sum},
 * {@code min}, {@code max}, {@code indexOf} and {@code lastIndexOf} the traversal of the receiver
 * (a string's bytes times 0.1 rounded down, a list's elements summed); cel-go's sets extension
 * {@code 1 + |a| * |b|} ({@code sets.equivalent} twice that product); every other call one unit. A size is a string's code points, a byte string's bytes, a list's or map's
 * entries, and 1 for anything else. As the Kubernetes environments run cel-go (with
 * {@code OptOptimize} and {@code PresenceTestHasCost(false)}), a presence test is free, and so
 * is what constant folding plans as a constant (a list or map of constants, a conversion of a
 * constant) or as a set membership test ({@code in} a constant list of primitives).
 *
 * <p>cel-go charges per resolved overload; cel-java's evaluation listener reports each
 * sub-expression and its value but not the overload it ran, so the charge is chosen by function
 * name and the argument values, which decide the overload the same way. Immutable after
 * construction; {@link #tracker} hands out one tracker per evaluation.
 */
public final class RuntimeCostModel {
  private static final Set<String> SIZED = Set.of("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
      "_+_", "@in", "startsWith", "endsWith", "contains", "matches", "quantity", "isQuantity",
      "semver", "isSemver", "string", "bytes", "isSorted", "sum", "max", "min", "indexOf",
      "lastIndexOf", "lowerAscii", "upperAscii", "substring", "trim", "replace", "split", "join",
      "find", "findAll", "sets.contains", "sets.equivalent", "sets.intersects");

  private static final Set<String> CONVERSIONS = Set.of("bool", "bytes", "double", "duration",
      "dyn", "int", "string", "timestamp", "type", "uint");

  // ids of the sub-expressions whose values a sized call needs
  private final Set<Long> valueIds = new HashSet<>();
  // ids of the sub-expressions cel-go's OptOptimize plans as constants (free) or as a set
  // membership test (free of its own): literal lists and maps of constants, conversions of a
  // constant, `in` a constant list of primitives
  private final Set<Long> folded = new HashSet<>();

  // by expression id: the cost of each sub-expression whose cost does not depend on values
  // (-1 for the sized calls), and whether a sized call reads its value; ids are small and dense
  private final long[] fixedCost;
  private final boolean[] valueNeeded;

  /** The model of a checked AST of {@link SelectorEnvironment}. */
  public RuntimeCostModel(CelAbstractSyntaxTree ast) {
    Deque<CelExpr> todo = new ArrayDeque<>();
    List<CelExpr> all = new ArrayList<>();
    todo.push(ast.getExpr());
    while (!todo.isEmpty()) {
      CelExpr e = todo.pop();
      all.add(e);
      if (e.getKind() == CelExpr.ExprKind.Kind.CALL) {
        CelCall call = e.call();
        if (SIZED.contains(call.function())) {
          call.target().ifPresent(t -> valueIds.add(t.id()));
          call.args().forEach(a -> valueIds.add(a.id()));
        }
      }
      AstChildren.push(e, todo);
    }
    fold(ast.getExpr());
    long maxId = 0;
    for (CelExpr e : all) {
      maxId = Math.max(maxId, e.id());
    }
    // ids beyond an int array's reach never occur in a checked expression of at most 10 KiB
    fixedCost = new long[(int) Math.min(maxId + 1, Integer.MAX_VALUE - 8)];
    valueNeeded = new boolean[fixedCost.length];
    java.util.Arrays.fill(fixedCost, -1);
    for (CelExpr e : all) {
      if (e.id() < fixedCost.length) {
        fixedCost[(int) e.id()] = fixed(e);
        valueNeeded[(int) e.id()] = valueIds.contains(e.id());
      }
    }
  }

  // the cost of e when it does not depend on values, else -1
  private long fixed(CelExpr e) {
    if (folded.contains(e.id())) {
      return 0;
    }
    return switch (e.getKind()) {
      case CONSTANT, NOT_SET, COMPREHENSION -> 0;
      case IDENT -> 1;
      // a presence test is free in the Kubernetes environments (PresenceTestHasCost(false))
      case SELECT -> e.select().testOnly() ? 0 : 1;
      case LIST -> CostEstimator.LIST_CREATE_BASE_COST;
      case MAP -> CostEstimator.MAP_CREATE_BASE_COST;
      case STRUCT -> CostEstimator.STRUCT_CREATE_BASE_COST;
      case CALL -> switch (e.call().function()) {
        case "_&&_", "_||_", "_?_:_" -> 0;
        default -> SIZED.contains(e.call().function()) ? -1 : 1;
      };
    };
  }

  // whether e is a constant after cel-go's constant folding; records the folded ids
  private boolean fold(CelExpr e) {
    switch (e.getKind()) {
      case CONSTANT -> {
        return true;
      }
      case LIST -> {
        boolean all = true;
        for (CelExpr el : e.list().elements()) {
          all &= fold(el);
        }
        if (all) {
          folded.add(e.id());
        }
        return all;
      }
      case MAP -> {
        boolean all = true;
        for (CelExpr.CelMap.Entry en : e.map().entries()) {
          all &= fold(en.key());
          all &= fold(en.value());
        }
        if (all) {
          folded.add(e.id());
        }
        return all;
      }
      case CALL -> {
        CelCall call = e.call();
        call.target().ifPresent(this::fold);
        boolean[] constArgs = new boolean[call.args().size()];
        for (int i = 0; i < constArgs.length; i++) {
          constArgs[i] = fold(call.args().get(i));
        }
        if (CONVERSIONS.contains(call.function()) && call.target().isEmpty()
            && constArgs.length == 1 && constArgs[0]) {
          folded.add(e.id());
          return true;
        }
        if (call.function().equals("@in") && constArgs.length == 2 && constArgs[1]
            && call.args().get(1).getKind() == CelExpr.ExprKind.Kind.LIST
            && primitives(call.args().get(1))) {
          folded.add(e.id());
        }
        return false;
      }
      case SELECT -> {
        fold(e.select().operand());
        return false;
      }
      case STRUCT -> {
        e.struct().entries().forEach(en -> fold(en.value()));
        return false;
      }
      case COMPREHENSION -> {
        fold(e.comprehension().iterRange());
        fold(e.comprehension().accuInit());
        fold(e.comprehension().loopCondition());
        fold(e.comprehension().loopStep());
        fold(e.comprehension().result());
        return false;
      }
      default -> {
        return false;
      }
    }
  }

  // constants of primitive types other than bytes (cel-go's set membership test takes those)
  private static boolean primitives(CelExpr list) {
    for (CelExpr el : list.list().elements()) {
      if (el.getKind() != CelExpr.ExprKind.Kind.CONSTANT) {
        return false;
      }
      switch (el.constant().getKind()) {
        case BOOLEAN_VALUE, INT64_VALUE, UINT64_VALUE, DOUBLE_VALUE, STRING_VALUE -> {
        }
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  /** A tracker for one evaluation that stops it once its cost exceeds {@code limit}. */
  public CostTracker tracker(long limit) {
    return new CostTracker(this, limit);
  }

  boolean needsValue(long id) {
    return id < valueNeeded.length ? valueNeeded[(int) id] : valueIds.contains(id);
  }

  /** The cost of {@code e} once its operands are evaluated; {@code values} has theirs. */
  long cost(CelExpr e, Map<Long, Object> values, Object result) {
    long id = e.id();
    long c = id < fixedCost.length ? fixedCost[(int) id] : fixed(e);
    if (c >= 0) {
      return c;
    }
    return callCost(e.call(), values, result);
  }

  private static long callCost(CelCall call, Map<Long, Object> values, Object result) {
    switch (call.function()) {
      // cel-go's sets extension charges these itself: 1 + |a| * |b| * factor
      case "sets.contains", "sets.intersects", "sets.equivalent" -> {
        long product = size(arg(call, 0, values)) * size(arg(call, 1, values));
        return 1 + (call.function().equals("sets.equivalent") ? 2 * product : product);
      }
      // the Kubernetes library's charges
      case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf" -> {
        return traversalCost(arg(call, 0, values));
      }
      case "lowerAscii", "upperAscii", "substring", "trim", "semver", "isSemver" -> {
        return traversal(size(arg(call, 0, values)));
      }
      case "replace", "split" -> {
        return (long) Math.ceil(size(arg(call, 0, values)) * 2
            * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
      }
      case "join" -> {
        return (long) Math.ceil(size(result) * 2 * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
      }
      case "find", "findAll" -> {
        long str = (long) Math.ceil((1.0 + size(arg(call, 0, values)))
            * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
        long regex = (long) Math.ceil(size(arg(call, 1, values))
            * CostEstimator.REGEX_STRING_LENGTH_COST_FACTOR);
        return str * regex;
      }
      case "_&&_", "_||_", "_?_:_" -> {
        return 0;
      }
      case "_==_", "_!=_" -> {
        return traversal(Math.min(size(arg(call, 0, values)), size(arg(call, 1, values))));
      }
      case "_<_", "_<=_", "_>_", "_>=_" -> {
        Object a = arg(call, 0, values);
        Object b = arg(call, 1, values);
        return bothText(a, b) ? traversal(Math.min(size(a), size(b))) : 1;
      }
      case "_+_" -> {
        Object a = arg(call, 0, values);
        Object b = arg(call, 1, values);
        return bothText(a, b) ? traversal(size(a) + size(b)) : 1;
      }
      case "@in" -> {
        Object list = arg(call, 1, values);
        return list instanceof List<?> l ? l.size() : 1;
      }
      case "startsWith", "endsWith", "quantity", "isQuantity" -> {
        return traversal(size(arg(call, 0, values)));
      }
      case "string", "bytes" -> {
        Object a = arg(call, 0, values);
        boolean converts = call.function().equals("string") ? isBytes(a) : a instanceof String;
        return converts ? traversal(size(a)) : 1;
      }
      case "contains" -> {
        if (call.target().isPresent() && arg(call, 0, values) instanceof String s) {
          return traversal(size(s)) * traversal(size(arg(call, 1, values)));
        }
        return 1;
      }
      case "matches" -> {
        // only the member form is charged by size (cel-go's matches_string overload)
        if (call.target().isPresent()) {
          long str = (long) Math.ceil((1.0 + size(arg(call, 0, values)))
              * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
          long regex = (long) Math.ceil(size(arg(call, 1, values))
              * CostEstimator.REGEX_STRING_LENGTH_COST_FACTOR);
          return str * regex;
        }
        return 1;
      }
      default -> {
        return 1;
      }
    }
  }

  // the i-th argument as cel-go's runtime sees it: a member call's receiver first
  private static Object arg(CelCall call, int i, Map<Long, Object> values) {
    if (call.target().isPresent()) {
      return i == 0 ? values.get(call.target().get().id())
          : i - 1 < call.args().size() ? values.get(call.args().get(i - 1).id()) : null;
    }
    return i < call.args().size() ? values.get(call.args().get(i).id()) : null;
  }

  private static long traversal(long size) {
    return (long) Math.ceil(size * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
  }

  private static boolean bothText(Object a, Object b) {
    return (a instanceof String && b instanceof String) || (isBytes(a) && isBytes(b));
  }

  private static boolean isBytes(Object v) {
    return v instanceof CelByteString || v instanceof com.google.protobuf.ByteString;
  }

  // the library's traversalCost: a string's or bytes' length in bytes times 0.1, rounded down;
  // a list's or map's the sum over its elements (and keys); 1 for anything else
  static long traversalCost(Object v) {
    if (v instanceof String s) {
      return (long) (s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
          * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
    }
    if (isBytes(v)) {
      return (long) (size(v) * CostEstimator.STRING_TRAVERSAL_COST_FACTOR);
    }
    if (v instanceof List<?> l) {
      long c = 0;
      for (Object e : l) {
        c = Range.add(c, traversalCost(e));
      }
      return c;
    }
    if (v instanceof Map<?, ?> m) {
      long c = 0;
      for (Map.Entry<?, ?> en : m.entrySet()) {
        c = Range.add(c, Range.add(traversalCost(en.getKey()), traversalCost(en.getValue())));
      }
      return c;
    }
    return 1;
  }

  // cel-go's actualSize: the size of strings, bytes, lists and maps, 1 for anything else
  static long size(Object v) {
    if (v instanceof String s) {
      return s.codePointCount(0, s.length());
    }
    if (v instanceof CelByteString b) {
      return b.size();
    }
    if (v instanceof com.google.protobuf.ByteString b) {
      return b.size();
    }
    if (v instanceof List<?> l) {
      return l.size();
    }
    if (v instanceof Map<?, ?> m) {
      return m.size();
    }
    return 1;
  }
}
