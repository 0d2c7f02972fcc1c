package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each shipped scenario (but {@code pending.yaml}, which {@link DashboardApiProcessIT} runs) through the jar with
 * {@code --exit-when-done}: its expectations hold, so it exits 0. The expectations are what the scenario
 * demonstrates: nine spread replicas after two rollouts and a cordon, two pods preempted for a higher priority and
 * their replacements pending, both gangs running once nodes join, every GPU pod running once an h100 node joins.
 * The scenarios' steps are timed on the wall clock and their simulators are independent processes, so all of them
 * start before the first test and run side by side; each test then waits for its own.
 */
class ShippedScenariosProcessIT {

  private static final List<String> SCENARIOS = List.of("rolling-update", "preemption", "gang", "gpus");
  private static final Map<String, SimulatorProcess> RUNNING = new LinkedHashMap<>();

  @BeforeAll
  static void startEveryScenario() throws Exception {
    for (String name : SCENARIOS) {
      RUNNING.put(name, SimulatorProcess.start("--scenario", "scenarios/" + name + ".yaml", "--dashboard-port", "0",
          "--exit-when-done"));
    }
  }

  static List<String> scenarios() {
    return SCENARIOS;
  }

  @AfterAll
  static void stopWhatIsLeft() throws Exception {
    for (SimulatorProcess sim : RUNNING.values()) {
      sim.close();
    }
  }

  @ParameterizedTest
  @MethodSource("scenarios")
  void theScenarioEndsWithItsExpectationsHolding(String name) throws Exception {
    SimulatorProcess sim = RUNNING.get(name);
    assertThat(sim.exitCode(Duration.ofSeconds(240))).as("exit code of " + name).hasValue(0);
    assertThat(sim.output()).contains("scenario " + name + " passed");
  }
}
