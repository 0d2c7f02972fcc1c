package io.berth.dracel;

import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import java.math.BigDecimal;

/**
 * The Kubernetes CEL {@code quantity} library ({@code k8s.io/apiserver/pkg/cel/library},
 * quantity.go), with upstream's overload ids: {@code quantity(string)}, {@code isQuantity(string)},
 * and the members {@code sign()}, {@code isInteger()}, {@code asInteger()} (an error, "cannot
 * convert value to integer", unless the amount is a whole number within int64),
 * {@code asApproximateFloat()}, {@code add}/{@code sub} of a quantity or an int,
 * {@code isGreaterThan}, {@code isLessThan} and {@code compareTo}. Stateless; thread-safe.
 */
final class QuantityLibrary implements CelCompilerLibrary, CelRuntimeLibrary {
  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  static final QuantityLibrary INSTANCE = new QuantityLibrary();

  private QuantityLibrary() {
  }

  @Override
  public void setCheckerOptions(CelCheckerBuilder checker) {
    checker.addFunctionDeclarations(
        CelFunctionDecl.newFunctionDeclaration("quantity",
            CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY, SimpleType.STRING)),
        CelFunctionDecl.newFunctionDeclaration("isQuantity",
            CelOverloadDecl.newGlobalOverload("is_quantity_string", SimpleType.BOOL,
                SimpleType.STRING)),
        CelFunctionDecl.newFunctionDeclaration("sign",
            CelOverloadDecl.newMemberOverload("quantity_sign", SimpleType.INT, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("isGreaterThan",
            CelOverloadDecl.newMemberOverload("quantity_is_greater_than", SimpleType.BOOL,
                QUANTITY, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("isLessThan",
            CelOverloadDecl.newMemberOverload("quantity_is_less_than", SimpleType.BOOL,
                QUANTITY, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("compareTo",
            CelOverloadDecl.newMemberOverload("quantity_compare_to", SimpleType.INT, QUANTITY,
                QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("asApproximateFloat",
            CelOverloadDecl.newMemberOverload("quantity_get_float", SimpleType.DOUBLE, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("asInteger",
            CelOverloadDecl.newMemberOverload("quantity_get_int", SimpleType.INT, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("isInteger",
            CelOverloadDecl.newMemberOverload("quantity_is_integer", SimpleType.BOOL, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration("add",
            CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_add_int", QUANTITY, QUANTITY,
                SimpleType.INT)),
        CelFunctionDecl.newFunctionDeclaration("sub",
            CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_sub_int", QUANTITY, QUANTITY,
                SimpleType.INT)));
  }

  @Override
  public void setRuntimeOptions(CelRuntimeBuilder runtime) {
    runtime.addFunctionBindings(
        CelFunctionBinding.from("string_to_quantity", String.class, CelQuantity::parse),
        CelFunctionBinding.from("is_quantity_string", String.class, s -> {
          try {
            CelQuantity.parse(s);
            return true;
          } catch (IllegalArgumentException e) {
            return false;
          }
        }),
        CelFunctionBinding.from("quantity_sign", CelQuantity.class,
            q -> (long) q.value().signum()),
        CelFunctionBinding.from("quantity_is_greater_than", CelQuantity.class,
            CelQuantity.class, (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from("quantity_is_less_than", CelQuantity.class, CelQuantity.class,
            (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from("quantity_compare_to", CelQuantity.class, CelQuantity.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))),
        CelFunctionBinding.from("quantity_get_float", CelQuantity.class,
            q -> q.value().doubleValue()),
        CelFunctionBinding.from("quantity_get_int", CelQuantity.class, q -> {
          Long v = asInt64(q.value());
          if (v == null) {
            throw new IllegalArgumentException("cannot convert value to integer");
          }
          return v;
        }),
        CelFunctionBinding.from("quantity_is_integer", CelQuantity.class,
            q -> asInt64(q.value()) != null),
        CelFunctionBinding.from("quantity_add", CelQuantity.class, CelQuantity.class,
            (a, b) -> new CelQuantity(a.value().add(b.value()))),
        CelFunctionBinding.from("quantity_add_int", CelQuantity.class, Long.class,
            (a, b) -> new CelQuantity(a.value().add(BigDecimal.valueOf(b)))),
        CelFunctionBinding.from("quantity_sub", CelQuantity.class, CelQuantity.class,
            (a, b) -> new CelQuantity(a.value().subtract(b.value()))),
        CelFunctionBinding.from("quantity_sub_int", CelQuantity.class, Long.class,
            (a, b) -> new CelQuantity(a.value().subtract(BigDecimal.valueOf(b)))));
  }

  // the amount as an int64 when it is a whole number in range (upstream's Quantity.AsInt64)
  static Long asInt64(BigDecimal v) {
    try {
      return v.stripTrailingZeros().longValueExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }
}
