package io.berth.dracel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import dev.cel.common.ast.CelExpr.CelComprehension;
import dev.cel.common.ast.CelReference;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The worst-case cost of a checked device selector, as cel-go's {@code checker.Cost} with the
 * Kubernetes library's {@code CostEstimator} and DRA's size estimator ({@link DeviceShape}):
 * identifiers and field selections cost one unit (a selection only on a map or object), constants
 * and presence tests ({@code has()}, as the Kubernetes environments configure cel-go) nothing, list, map and message literals 10, 30 and 40; a call costs its arguments plus its own
 * estimate, which is one unit except for the functions whose cost grows with their input (string
 * comparison and equality {@code ceil(0.1 * the smaller size)}, {@code startsWith}/{@code endsWith}
 * {@code ceil(0.1 * size)}, {@code contains} the product of both, {@code matches}
 * {@code ceil(0.1 * (size + 1)) * ceil(0.25 * pattern size)}, string concatenation the sum,
 * {@code in} on a list its size; {@code &&}, {@code ||} and {@code ?:} nothing of their own; the
 * Kubernetes libraries' {@code EstimateCallCost} for their functions, e.g. {@code find} as
 * {@code matches}, {@code isSorted}/{@code sum}/{@code min}/{@code max} one unit per element
 * (plus the traversal of string elements), {@code lowerAscii} and friends {@code ceil(0.1 * size)},
 * {@code ==} on two quantities or two semvers one unit; cel-go's sets extension
 * {@code |a| * |b| + 1}, twice the product for {@code sets.equivalent}); a
 * comprehension costs its range, its initial value and result, and its range's size times the
 * cost of one loop condition and step. Sizes come from literals, from the declared bounds of
 * what a path into {@code device} reaches, or are unknown (and then anything that depends on
 * them is over every budget).
 *
 * <p>Where a path resolves in the declaration, its declared kind decides what the checker's type
 * would (selecting a field of a map costs a unit; {@code in} or {@code [...]} on a map is a map
 * operation even where the checker, seeing {@code dyn}, also offered the list overload). One
 * instance per estimate; not thread-safe ({@link #estimate} makes its own).
 */
public final class CostEstimator {
  /** cel-go's {@code common.StringTraversalCostFactor}. */
  static final double STRING_TRAVERSAL_COST_FACTOR = 0.1;
  /** cel-go's {@code common.RegexStringLengthCostFactor}. */
  static final double REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
  /** cel-go's {@code common.ListCreateBaseCost}, {@code MapCreateBaseCost}, {@code StructCreateBaseCost}. */
  static final long LIST_CREATE_BASE_COST = 10;
  static final long MAP_CREATE_BASE_COST = 30;
  static final long STRUCT_CREATE_BASE_COST = 40;

  private record EntrySize(CelKind container, Range key, Range value) {
    EntrySize union(EntrySize o) {
      return o == null ? null : new EntrySize(container, key.union(o.key), value.union(o.value));
    }
  }

  private record LocalVar(List<String> path, Range size, EntrySize entrySize) {}

  private final CelAbstractSyntaxTree ast;
  private final Map<Long, List<String>> paths = new HashMap<>();
  private final Map<String, Deque<LocalVar>> locals = new HashMap<>();
  private final Map<Long, Range> sizes = new HashMap<>();
  private final Map<Long, EntrySize> entrySizes = new HashMap<>();

  private CostEstimator(CelAbstractSyntaxTree ast) {
    this.ast = ast;
  }

  /** The cost range of a checked AST of {@link SelectorEnvironment}. */
  public static Range estimate(CelAbstractSyntaxTree ast) {
    return new CostEstimator(ast).cost(ast.getExpr());
  }

  private Range cost(CelExpr e) {
    return switch (e.getKind()) {
      case CONSTANT, NOT_SET -> Range.ZERO;
      case IDENT -> costIdent(e);
      case SELECT -> costSelect(e);
      case CALL -> costCall(e);
      case LIST -> costList(e);
      case MAP -> costMap(e);
      case STRUCT -> costStruct(e);
      case COMPREHENSION -> isBind(e) ? costBind(e) : costComprehension(e);
    };
  }

  private Range costIdent(CelExpr e) {
    String name = e.ident().name();
    LocalVar v = peek(name);
    paths.put(e.id(), v != null ? v.path() : List.of(name));
    return Range.ONE;
  }

  private Range costSelect(CelExpr e) {
    CelExpr.CelSelect sel = e.select();
    if (sel.testOnly()) {
      // has(): the Kubernetes environments' PresenceTestHasCost(false), only the operand costs
      return cost(sel.operand());
    }
    Range sum = cost(sel.operand());
    CelKind kind = kindOf(sel.operand());
    if (kind == CelKind.MAP || kind == CelKind.STRUCT || kind == CelKind.TYPE_PARAM) {
      sum = sum.add(Range.ONE);
    }
    paths.put(e.id(), append(pathOf(sel.operand()), sel.field()));
    return sum;
  }

  private Range costCall(CelExpr e) {
    CelCall call = e.call();
    if (call.function().equals("dyn") && call.args().size() == 1) {
      CelExpr arg = call.args().get(0);
      Range argCost = cost(arg);
      copySizes(e, arg);
      return Range.ONE.add(argCost);
    }
    List<CelExpr> args = call.args();
    Range[] argCosts = new Range[args.size()];
    for (int i = 0; i < args.size(); i++) {
      argCosts[i] = cost(args.get(i));
    }
    List<String> overloads = overloadsOf(e);
    if (overloads.isEmpty()) {
      return Range.ZERO;
    }
    Range sum = Range.ZERO;
    CelExpr target = call.target().orElse(null);
    if (target != null) {
      sum = sum.add(cost(target));
    }
    Range fnCost = new Range(Range.UNBOUNDED, 0);
    Range resultSize = null;
    for (String overload : overloads) {
      Range[] callResult = new Range[1];
      Range c = functionCost(e, call.function(), overload, target, args, argCosts, callResult);
      fnCost = fnCost.union(c);
      if (callResult[0] != null) {
        resultSize = resultSize == null ? callResult[0] : resultSize.union(callResult[0]);
      }
      if ((overload.equals("index_list") || overload.equals("index_map")) && !args.isEmpty()) {
        EntrySize entry = entrySizeOf(args.get(0));
        resultSize = entry == null ? null : entry.value();
        paths.put(e.id(), append(pathOf(args.get(0)),
            overload.equals("index_list") ? "@items" : "@values"));
      }
      if (resultSize == null) {
        resultSize = sizeOf(e);
      }
    }
    if (resultSize != null) {
      sizes.put(e.id(), resultSize);
    }
    return sum.add(fnCost);
  }

  // cel-go's coster.functionCost with the Kubernetes library's EstimateCallCost first
  private Range functionCost(CelExpr e, String function, String overload, CelExpr target,
      List<CelExpr> args, Range[] argCosts, Range[] resultSize) {
    Range argSum = Range.ZERO;
    for (Range c : argCosts) {
      argSum = argSum.add(c);
    }
    switch (function) {
      case "quantity", "isQuantity" -> {
        // the library estimates these only as member calls, which the declarations are not
        if (target != null && !args.isEmpty()) {
          return sizeOrUnknown(args.get(0)).multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR)
              .add(argSum);
        }
      }
      case "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
          "compareTo", "add", "sub", "major", "minor", "patch" -> {
        return Range.ONE.add(argSum);
      }
      case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf" -> {
        if (target != null) {
          CelType element = listElementType(target);
          if (element != null) {
            // one unit per element compared, plus the traversal of string or bytes elements
            Range elementCost = Range.ONE;
            if (element.kind() == CelKind.STRING || element.kind() == CelKind.BYTES) {
              elementCost = elementCost.add(elementSize(target)
                  .multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR));
            }
            return sizeOrUnknown(target).multiply(elementCost).add(argSum);
          }
          return sizeOrUnknown(target).multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "lowerAscii", "upperAscii", "substring", "trim" -> {
        if (target != null) {
          Range sz = sizeOrUnknown(target);
          resultSize[0] = sz;
          return sz.multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "replace" -> {
        if (target != null && args.size() >= 2) {
          Range sz = sizeOrUnknown(target);
          resultSize[0] = replacedSize(sz, sizeOrUnknown(args.get(0)),
              sizeOrUnknown(args.get(1)));
          return sz.multiplyByFactor(2 * STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "split" -> {
        if (target != null) {
          Range sz = sizeOrUnknown(target);
          long max = sz.max();
          if (args.size() > 1 && args.get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT
              && args.get(1).constant().getKind() == CelConstant.Kind.INT64_VALUE) {
            max = args.get(1).constant().int64Value();
          }
          resultSize[0] = new Range(0, max);
          return sz.multiplyByFactor(2 * STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "join" -> {
        if (target != null) {
          Range listSize = sizeOrUnknown(target);
          Range sz = Range.ZERO;
          if (listElementType(target) != null) {
            sz = listSize.multiply(elementSize(target));
          }
          if (!args.isEmpty()) {
            Range separators = new Range(Math.max(listSize.min() - 1, 0),
                Math.max(listSize.max() == Range.UNBOUNDED ? Range.UNBOUNDED : listSize.max() - 1,
                    0));
            sz = sz.add(sizeOrUnknown(args.get(0)).multiply(separators));
          }
          resultSize[0] = sz;
          return sz.multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "find", "findAll" -> {
        if (target != null && !args.isEmpty()) {
          Range sz = sizeOrUnknown(target);
          Range str = sz.add(Range.ONE).multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR);
          Range regex = sizeOrUnknown(args.get(0))
              .multiplyByFactor(REGEX_STRING_LENGTH_COST_FACTOR);
          resultSize[0] = new Range(0, sz.max());
          return str.multiply(regex).add(argSum);
        }
      }
      case "_==_" -> {
        // equality of two quantities or two semvers is one unit (the library's O(1) types)
        if (args.size() == 2) {
          CelType l = typeOf(args.get(0));
          CelType r = typeOf(args.get(1));
          if (l != null && l.equals(r) && (l.equals(QuantityLibrary.QUANTITY)
              || l.equals(SemverLibrary.SEMVER))) {
            return Range.ONE.add(argSum);
          }
        }
      }
      default -> {
      }
    }
    switch (overload) {
      // cel-go's sets extension estimates these itself: |a| * |b| * factor + 1
      case "list_sets_contains_list", "list_sets_intersects_list", "list_sets_equivalent_list" -> {
        if (args.size() == 2) {
          double factor = overload.equals("list_sets_equivalent_list") ? 2 : 1;
          return sizeOrUnknown(args.get(0)).multiply(sizeOrUnknown(args.get(1)))
              .multiplyByFactor(factor).add(Range.ONE).add(argSum);
        }
      }
      default -> {
      }
    }
    switch (overload) {
      case "starts_with_string", "ends_with_string" -> {
        if (args.size() == 1) {
          return sizeOrUnknown(args.get(0)).multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR)
              .add(argSum);
        }
      }
      case "string_to_bytes" -> {
        if (args.size() == 1) {
          Range sz = sizeOrUnknown(args.get(0));
          resultSize[0] = new Range(sz.min(), Range.multiply(sz.max(), 4));
          return sz.multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "bytes_to_string" -> {
        if (args.size() == 1) {
          Range sz = sizeOrUnknown(args.get(0));
          resultSize[0] = new Range(sz.min() / 4, sz.max());
          return sz.multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "in_list" -> {
        if (args.size() == 2) {
          return sizeOrUnknown(args.get(1)).add(argSum);
        }
      }
      case "matches_string" -> {
        if (target != null && args.size() == 1) {
          Range str = sizeOrUnknown(target).add(Range.ONE)
              .multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR);
          Range regex = sizeOrUnknown(args.get(0))
              .multiplyByFactor(REGEX_STRING_LENGTH_COST_FACTOR);
          return str.multiply(regex).add(argSum);
        }
      }
      case "contains_string" -> {
        if (target != null && args.size() == 1) {
          Range str = sizeOrUnknown(target).multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR);
          Range sub = sizeOrUnknown(args.get(0)).multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR);
          return str.multiply(sub).add(argSum);
        }
      }
      case "logical_or", "logical_and" -> {
        // short-circuited: at least the left side, at most both
        return new Range(argCosts[0].min(), argCosts[0].add(argCosts[1]).max());
      }
      case "conditional" -> {
        Range size = sizeOrUnknown(args.get(1)).union(sizeOrUnknown(args.get(2)));
        EntrySize t = entrySizeOf(args.get(1));
        EntrySize entry = t == null ? null : t.union(entrySizeOf(args.get(2)));
        if (entry != null) {
          entrySizes.put(e.id(), entry);
        }
        resultSize[0] = size;
        return argCosts[0].add(argCosts[1].union(argCosts[2]));
      }
      case "add_string", "add_bytes", "add_list" -> {
        if (args.size() == 2) {
          Range size = sizeOrUnknown(args.get(0)).add(sizeOrUnknown(args.get(1)));
          EntrySize l = entrySizeOf(args.get(0));
          EntrySize entry = l == null ? null : l.union(entrySizeOf(args.get(1)));
          if (entry != null) {
            entrySizes.put(e.id(), entry);
          }
          resultSize[0] = size;
          if (overload.equals("add_list")) {
            return Range.ONE.add(argSum);
          }
          return size.multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
        }
      }
      case "less_string", "greater_string", "less_equals_string", "greater_equals_string",
          "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals",
          "not_equals" -> {
        long smallestMax = Math.min(sizeOrUnknown(args.get(0)).max(),
            sizeOrUnknown(args.get(1)).max());
        return new Range(smallestMax > 0 ? 1 : 0, smallestMax)
            .multiplyByFactor(STRING_TRAVERSAL_COST_FACTOR).add(argSum);
      }
      default -> {
      }
    }
    return Range.ONE.add(argSum);
  }

  // the element type of a list-typed expression (the library's listElementNode), else null
  private CelType listElementType(CelExpr list) {
    CelType t = typeOf(list);
    if (t == null || t.kind() != CelKind.LIST || t.parameters().isEmpty()) {
      return null;
    }
    return t.parameters().get(0);
  }

  // the size of a list's elements: declared by path ("@items"), else unknown
  private Range elementSize(CelExpr list) {
    DeviceShape shape = DeviceShape.resolve(append(pathOf(list), "@items"));
    return shape == null ? Range.UNKNOWN : new Range(0, shape.maxElements);
  }

  // the library's estimate of the size of replace()'s result
  private static Range replacedSize(Range sz, Range toReplace, Range replaceWith) {
    long countMax;
    long retainedMax = 0;
    if (toReplace.min() == 0) {
      countMax = sz.max() < Range.UNBOUNDED ? sz.max() + 1 : sz.max();
      retainedMax = sz.max();
    } else if (replaceWith.max() <= toReplace.min()) {
      countMax = 0;
      retainedMax = sz.max();
    } else {
      countMax = (long) Math.ceil((double) sz.max() / toReplace.min());
    }
    long countMin;
    long retainedMin = 0;
    if (toReplace.max() == 0) {
      countMin = sz.min() < Range.UNBOUNDED ? sz.min() + 1 : sz.min();
      retainedMin = sz.min();
    } else if (toReplace.max() <= replaceWith.min()) {
      countMin = 0;
      retainedMin = sz.min();
    } else {
      countMin = (long) Math.ceil((double) sz.min() / toReplace.max());
    }
    return new Range(countMin, countMax).multiply(replaceWith)
        .add(new Range(retainedMin, retainedMax));
  }

  private Range costList(CelExpr e) {
    List<CelExpr> elements = e.list().elements();
    Range sum = Range.ZERO;
    Range item = elements.isEmpty() ? Range.ZERO : new Range(Range.UNBOUNDED, 0);
    for (CelExpr el : elements) {
      sum = sum.add(cost(el));
      item = item.union(sizeOrUnknown(el));
    }
    entrySizes.put(e.id(), new EntrySize(CelKind.LIST, Range.ONE, item));
    return sum.add(Range.fixed(LIST_CREATE_BASE_COST));
  }

  private Range costMap(CelExpr e) {
    List<CelExpr.CelMap.Entry> entries = e.map().entries();
    Range sum = Range.ZERO;
    Range key = entries.isEmpty() ? Range.ZERO : new Range(Range.UNBOUNDED, 0);
    Range value = key;
    for (CelExpr.CelMap.Entry en : entries) {
      sum = sum.add(cost(en.key())).add(cost(en.value()));
      key = key.union(sizeOrUnknown(en.key()));
      value = value.union(sizeOrUnknown(en.value()));
    }
    entrySizes.put(e.id(), new EntrySize(CelKind.MAP, key, value));
    return sum.add(Range.fixed(MAP_CREATE_BASE_COST));
  }

  private Range costStruct(CelExpr e) {
    Range sum = Range.ZERO;
    for (CelExpr.CelStruct.Entry en : e.struct().entries()) {
      sum = sum.add(cost(en.value()));
    }
    return sum.add(Range.fixed(STRUCT_CREATE_BASE_COST));
  }

  private Range costComprehension(CelExpr e) {
    CelComprehension comp = e.comprehension();
    Range sum = cost(comp.iterRange()).add(cost(comp.accuInit()));
    pushLocal(comp.accuVar(), comp.accuInit());
    boolean twoVars = comp.iterVar2() != null && !comp.iterVar2().isEmpty();
    if (twoVars) {
      pushIter(comp.iterVar(), comp.iterRange(), true);
      pushIter(comp.iterVar2(), comp.iterRange(), false);
    } else {
      pushIterSingle(comp.iterVar(), comp.iterRange());
    }
    Range loopCost = cost(comp.loopCondition());
    Range stepCost = cost(comp.loopStep());
    pop(comp.iterVar());
    if (twoVars) {
      pop(comp.iterVar2());
    }
    sum = sum.add(cost(comp.result()));
    pop(comp.accuVar());
    Range rangeCount = sizeOrUnknown(comp.iterRange());
    sum = sum.add(rangeCount.multiply(stepCost.add(loopCost)));
    switch (comp.accuInit().getKind()) {
      case CONSTANT -> {
        Range s = sizeOf(comp.accuInit());
        if (s != null) {
          sizes.put(e.id(), s);
        }
      }
      case LIST, MAP -> {
        sizes.put(e.id(), rangeCount);
        EntrySize step = entrySizeOf(comp.loopStep());
        if (step != null) {
          entrySizes.put(e.id(), step);
        }
      }
      default -> {
      }
    }
    return sum;
  }

  // cel.bind(): an empty range, a false loop condition and an accumulator of its own name
  private boolean isBind(CelExpr e) {
    CelComprehension comp = e.comprehension();
    return comp.iterRange().getKind() == CelExpr.ExprKind.Kind.LIST
        && comp.iterRange().list().elements().isEmpty()
        && comp.loopCondition().getKind() == CelExpr.ExprKind.Kind.CONSTANT
        && comp.loopCondition().constant().getKind() == CelConstant.Kind.BOOLEAN_VALUE
        && !comp.loopCondition().constant().booleanValue()
        && !isAccumulator(comp.accuVar());
  }

  private Range costBind(CelExpr e) {
    CelComprehension comp = e.comprehension();
    // binds are lazy, but the empty range's cost is kept, as upstream
    Range sum = cost(comp.iterRange()).add(cost(comp.accuInit()));
    pushLocal(comp.accuVar(), comp.accuInit());
    sum = sum.add(cost(comp.result()));
    pop(comp.accuVar());
    copySizes(e, comp.result());
    return sum;
  }

  private static boolean isAccumulator(String name) {
    return name.equals("__result__") || name.equals("@result");
  }

  // --- locals, paths and sizes

  private LocalVar peek(String name) {
    Deque<LocalVar> stack = locals.get(name);
    return stack == null || stack.isEmpty() ? null : stack.peek();
  }

  private void push(String name, LocalVar v) {
    locals.computeIfAbsent(name, n -> new ArrayDeque<>()).push(v);
  }

  private void pop(String name) {
    locals.get(name).pop();
  }

  private void pushLocal(String name, CelExpr init) {
    push(name, new LocalVar(pathOf(init), sizeOf(init), entrySizeOf(init)));
  }

  private void pushIter(String name, CelExpr range, boolean key) {
    EntrySize entry = entrySizeOf(range);
    CelKind container = entry != null ? entry.container() : kindOf(range);
    String sub = container == CelKind.LIST ? (key ? "@indices" : "@items")
        : (key ? "@keys" : "@values");
    Range size = entry == null ? null : key ? entry.key() : entry.value();
    push(name, new LocalVar(append(pathOf(range), sub), size, null));
  }

  private void pushIterSingle(String name, CelExpr range) {
    EntrySize entry = entrySizeOf(range);
    CelKind container = entry != null ? entry.container() : kindOf(range);
    Range size = entry == null ? null : entry.key();
    String sub = "@keys";
    if (container == CelKind.LIST) {
      size = entry == null ? null : entry.value();
      sub = "@items";
    }
    push(name, new LocalVar(append(pathOf(range), sub), size, null));
  }

  private List<String> pathOf(CelExpr e) {
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      LocalVar v = peek(e.ident().name());
      if (v != null) {
        return v.path();
      }
    }
    return paths.getOrDefault(e.id(), List.of());
  }

  private static List<String> append(List<String> path, String name) {
    List<String> out = new ArrayList<>(path.size() + 1);
    out.addAll(path);
    out.add(name);
    return out;
  }

  private void copySizes(CelExpr dst, CelExpr src) {
    Range s = sizeOf(src);
    if (s != null) {
      sizes.put(dst.id(), s);
    }
    EntrySize en = entrySizeOf(src);
    if (en != null) {
      entrySizes.put(dst.id(), en);
    }
  }

  private Range sizeOrUnknown(CelExpr e) {
    Range s = sizeOf(e);
    return s == null ? Range.UNKNOWN : s;
  }

  // cel-go's computeSize: computed, literal, declared by path, by type, or the local's
  private Range sizeOf(CelExpr e) {
    Range s = sizes.get(e.id());
    if (s != null) {
      return s;
    }
    s = literalSize(e);
    if (s != null) {
      return s;
    }
    List<String> path = pathOf(e);
    if (!path.isEmpty() && !isAccumulator(path.get(0))) {
      DeviceShape shape = DeviceShape.resolve(path);
      if (shape != null) {
        s = new Range(0, shape.maxElements);
        sizes.put(e.id(), s);
        return s;
      }
    }
    if (isScalar(typeOf(e))) {
      return Range.ONE;
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      LocalVar v = peek(e.ident().name());
      if (v != null && v.size() != null) {
        return v.size();
      }
    }
    return null;
  }

  private EntrySize entrySizeOf(CelExpr e) {
    EntrySize s = entrySizes.get(e.id());
    if (s != null) {
      return s;
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      LocalVar v = peek(e.ident().name());
      if (v != null) {
        return v.entrySize();
      }
    }
    return null;
  }

  private static Range literalSize(CelExpr e) {
    switch (e.getKind()) {
      case CONSTANT -> {
        CelConstant c = e.constant();
        return switch (c.getKind()) {
          case STRING_VALUE -> Range.fixed(c.stringValue().codePointCount(0,
              c.stringValue().length()));
          case BYTES_VALUE -> Range.fixed(c.bytesValue().size());
          case BOOLEAN_VALUE, DOUBLE_VALUE, DURATION_VALUE, INT64_VALUE, TIMESTAMP_VALUE,
              UINT64_VALUE, NULL_VALUE -> Range.ONE;
          default -> null;
        };
      }
      case LIST -> {
        return Range.fixed(e.list().elements().size());
      }
      case MAP -> {
        return Range.fixed(e.map().entries().size());
      }
      default -> {
        return null;
      }
    }
  }

  private static boolean isScalar(CelType t) {
    if (t == null) {
      return false;
    }
    return switch (t.kind()) {
      case BOOL, DOUBLE, DURATION, INT, TIMESTAMP, UINT -> true;
      case OPAQUE -> t.name().equals("optional_type") && !t.parameters().isEmpty()
          && isScalar(t.parameters().get(0));
      default -> false;
    };
  }

  private CelType typeOf(CelExpr e) {
    return ast.getType(e.id()).orElse(null);
  }

  // the declared kind where the path resolves in the device declaration, else the checker's
  private CelKind kindOf(CelExpr e) {
    DeviceShape shape = DeviceShape.resolve(pathOf(e));
    if (shape != null) {
      return switch (shape.kind) {
        case STRUCT -> CelKind.STRUCT;
        case MAP -> CelKind.MAP;
        case STRING -> CelKind.STRING;
        case ANY -> CelKind.ANY;
        case QUANTITY -> CelKind.OPAQUE;
        case BOOL -> CelKind.BOOL;
      };
    }
    CelType t = typeOf(e);
    return t == null ? CelKind.DYN : t.kind();
  }

  // the checker's overloads, narrowed to the map or list ones where the operand's declared kind
  // decides (the checker, seeing dyn, keeps both)
  private List<String> overloadsOf(CelExpr e) {
    List<String> ids = ast.getReference(e.id()).map(CelReference::overloadIds)
        .map(List::copyOf).orElse(List.of());
    if (ids.size() < 2) {
      return ids;
    }
    CelCall call = e.call();
    CelExpr container = null;
    if ((ids.contains("in_list") || ids.contains("in_map")) && call.args().size() == 2) {
      container = call.args().get(1);
    } else if ((ids.contains("index_list") || ids.contains("index_map"))
        && call.args().size() == 2) {
      container = call.args().get(0);
    }
    if (container == null) {
      return ids;
    }
    CelKind kind = kindOf(container);
    if (kind != CelKind.MAP && kind != CelKind.LIST) {
      return ids;
    }
    String drop = kind == CelKind.MAP ? "_list" : "_map";
    List<String> kept = new ArrayList<>();
    for (String id : ids) {
      if (!id.endsWith(drop)) {
        kept.add(id);
      }
    }
    return kept.isEmpty() ? ids : kept;
  }
}
