package io.berth.dracel;

import dev.cel.common.ast.CelExpr;
import java.util.Deque;

/**
 * The one walk over a checked CEL AST that the selector checks and the runtime cost model share: pushes an
 * expression's direct children onto a work stack (a call's target before its arguments, a map entry's key before
 * its value, a comprehension's parts in source order). Stateless; safe from any thread.
 */
final class AstChildren {
  private AstChildren() {}

  /** Pushes the direct children of {@code e} onto {@code todo}; a constant or identifier has none. */
  static void push(CelExpr e, Deque<CelExpr> todo) {
    switch (e.getKind()) {
      case SELECT -> todo.push(e.select().operand());
      case CALL -> {
        e.call().target().ifPresent(todo::push);
        e.call().args().forEach(todo::push);
      }
      case LIST -> e.list().elements().forEach(todo::push);
      case MAP -> e.map().entries().forEach(en -> {
        todo.push(en.key());
        todo.push(en.value());
      });
      case STRUCT -> e.struct().entries().forEach(en -> todo.push(en.value()));
      case COMPREHENSION -> {
        todo.push(e.comprehension().iterRange());
        todo.push(e.comprehension().accuInit());
        todo.push(e.comprehension().loopCondition());
        todo.push(e.comprehension().loopStep());
        todo.push(e.comprehension().result());
      }
      default -> {
      }
    }
  }
}
