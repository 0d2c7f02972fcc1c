package io.berth.dracel;

import dev.cel.common.CelAbstractSyntaxTree;
import java.util.Map;

/** Compiles and evaluates an expression of any result type in {@link SelectorEnvironment}. */
final class Eval {
  static final Map<String, Object> DEVICE = Map.of(
      "driver", "dra.example.com",
      "allowMultipleAllocations", false,
      "attributes", Map.of("dra.example.com", Map.of("name", "fish",
          "services", "some_example_value", "index", 3L,
          "driverVersion", CelSemver.parse("1.2.3"))),
      "capacity", Map.of("dra.example.com", Map.of("memory", CelQuantity.parse("1Mi"))));

  private Eval() {
  }

  static Object eval(String expression) throws Exception {
    CelAbstractSyntaxTree ast = SelectorEnvironment.cel().compile(expression).getAst();
    return SelectorEnvironment.cel().createProgram(ast).eval(Map.of("device", DEVICE));
  }

  /** The message of the evaluation's failure, with its causes' messages. */
  static String error(String expression) {
    try {
      Object v = eval(expression);
      throw new AssertionError(expression + " evaluated to " + v);
    } catch (AssertionError e) {
      throw e;
    } catch (Exception e) {
      StringBuilder b = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        b.append(t.getMessage()).append(" | ");
      }
      return b.toString();
    }
  }
}
