package io.berth.dracel;

import com.google.common.primitives.UnsignedLong;
import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.TypeParamType;
import dev.cel.common.values.CelByteString;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import java.math.BigDecimal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The Kubernetes CEL {@code lists} library at the version upstream's base environment loads
 * (unversioned, so without the later {@code includes}): {@code isSorted()}, {@code sum()},
 * {@code min()}, {@code max()} on lists of comparable (summable) element types, and
 * {@code indexOf(e)}/{@code lastIndexOf(e)} on any list. Upstream declares one overload per
 * element type; cel-java cannot choose among them for a list of {@code dyn} (all would match), so
 * one generic overload per function is declared and {@link SelectorEnvironment} rejects other
 * concrete element types after type-checking ({@link #elementKinds}). {@code min}/{@code max} of
 * an empty list fail with "min called on empty list"; {@code sum} of an empty list is 0.
 * Stateless; thread-safe.
 */
final class ListsLibrary implements CelCompilerLibrary, CelRuntimeLibrary {
  static final ListsLibrary INSTANCE = new ListsLibrary();

  // upstream's comparableTypes and summableTypes (cel-java cannot dispatch its per-type
  // overloads on a list of dyn, so one overload per function is declared and these are checked
  // after type-checking, see SelectorEnvironment)
  private static final Set<CelKind> COMPARABLE = EnumSet.of(CelKind.INT, CelKind.UINT,
      CelKind.DOUBLE, CelKind.BOOL, CelKind.DURATION, CelKind.TIMESTAMP, CelKind.STRING,
      CelKind.BYTES);
  private static final Set<CelKind> SUMMABLE = EnumSet.of(CelKind.INT, CelKind.UINT,
      CelKind.DOUBLE, CelKind.DURATION);

  private ListsLibrary() {
  }

  @Override
  public void setCheckerOptions(CelCheckerBuilder checker) {
    TypeParamType t = TypeParamType.create("T");
    ListType list = ListType.create(t);
    checker.addFunctionDeclarations(
        CelFunctionDecl.newFunctionDeclaration("isSorted",
            CelOverloadDecl.newMemberOverload("list_is_sorted_bool", SimpleType.BOOL, list)),
        CelFunctionDecl.newFunctionDeclaration("max",
            CelOverloadDecl.newMemberOverload("list_max", t, list)),
        CelFunctionDecl.newFunctionDeclaration("min",
            CelOverloadDecl.newMemberOverload("list_min", t, list)),
        CelFunctionDecl.newFunctionDeclaration("sum",
            CelOverloadDecl.newMemberOverload("list_sum", t, list)),
        CelFunctionDecl.newFunctionDeclaration("indexOf",
            CelOverloadDecl.newMemberOverload("list_a_index_of_int", SimpleType.INT, list, t)),
        CelFunctionDecl.newFunctionDeclaration("lastIndexOf",
            CelOverloadDecl.newMemberOverload("list_a_last_index_of_int", SimpleType.INT, list,
                t)));
  }

  @Override
  public void setRuntimeOptions(CelRuntimeBuilder runtime) {
    runtime.addFunctionBindings(
        CelFunctionBinding.from("list_is_sorted_bool", List.class, ListsLibrary::isSorted),
        CelFunctionBinding.from("list_max", List.class, l -> extreme(l, "max", -1)),
        CelFunctionBinding.from("list_min", List.class, l -> extreme(l, "min", 1)),
        // the element type is not known here: an empty list sums to the int 0, as the first of
        // upstream's overloads does for a list of dyn
        CelFunctionBinding.from("list_sum", List.class, l -> sum(l, 0L)),
        CelFunctionBinding.from("list_a_index_of_int", List.class, Object.class,
            (l, e) -> indexOf(l, e, false)),
        CelFunctionBinding.from("list_a_last_index_of_int", List.class, Object.class,
            (l, e) -> indexOf(l, e, true)));
  }

  /**
   * The element types upstream declares an overload of {@code function} for (its
   * {@code comparableTypes}, or {@code summableTypes} for {@code sum}); a list of any other
   * concrete type has no matching overload.
   */
  static Set<CelKind> elementKinds(String function) {
    return function.equals("sum") ? SUMMABLE : COMPARABLE;
  }

  private static boolean isSorted(List<?> list) {
    for (int i = 1; i < list.size(); i++) {
      if (CelValues.compare(list.get(i - 1), list.get(i)) > 0) {
        return false;
      }
    }
    return true;
  }

  // the element e for which compare(result, e) == prefer replaces the result, as upstream's cmp
  private static Object extreme(List<?> list, String op, int prefer) {
    Object result = null;
    for (Object e : list) {
      if (result == null || CelValues.compare(result, e) == prefer) {
        result = e;
      }
    }
    if (result == null) {
      throw new IllegalArgumentException(op + " called on empty list");
    }
    return result;
  }

  private static Object sum(List<?> list, Object zero) {
    Object acc = null;
    for (Object e : list) {
      acc = acc == null ? e : CelValues.add(acc, e);
    }
    return acc == null ? zero : acc;
  }

  private static long indexOf(List<?> list, Object e, boolean last) {
    if (last) {
      for (int i = list.size() - 1; i >= 0; i--) {
        if (CelValues.equal(list.get(i), e)) {
          return i;
        }
      }
    } else {
      for (int i = 0; i < list.size(); i++) {
        if (CelValues.equal(list.get(i), e)) {
          return i;
        }
      }
    }
    return -1;
  }

  static boolean isNumber(Object v) {
    return v instanceof Long || v instanceof Double || v instanceof UnsignedLong;
  }

  static BigDecimal decimal(Object v) {
    if (v instanceof Long l) {
      return BigDecimal.valueOf(l);
    }
    if (v instanceof UnsignedLong u) {
      return new BigDecimal(u.bigIntegerValue());
    }
    return BigDecimal.valueOf((Double) v);
  }

  static boolean isBytes(Object v) {
    return v instanceof CelByteString || v instanceof com.google.protobuf.ByteString;
  }
}
