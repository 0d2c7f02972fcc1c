package io.berth.simulator.scenario;

import java.util.List;

/**
 * A scenario file that cannot be run: unreadable, not YAML, or with an invalid document. The message names the file,
 * then each problem as {@code document N (KIND NAME): FIELD: WHAT}, documents counted from 1 in file order, fields
 * in apimachinery's path form ({@code spec.template.spec.containers[0].image}); the simulator prints it and exits
 * with status 2 before starting anything. Immutable.
 */
public final class ScenarioException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  ScenarioException(String file, List<String> problems) {
    super("invalid scenario " + file + ": " + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /** Each problem, {@code document N (KIND NAME): FIELD: WHAT}; never empty. */
  public List<String> problems() {
    return problems;
  }
}
