package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each shipped scenario (but {@code pending.yaml}, which {@link DashboardApiProcessIT} runs) through the jar with
 * {@code --exit-when-done}: its expectations hold, so it exits 0. The expectations are what the scenario
 * demonstrates: nine spread replicas after two rollouts and a cordon, two pods preempted for a higher priority and
 * their replacements pending, both gangs running once nodes join, every GPU pod running once an h100 node joins.
 */
class ShippedScenariosProcessIT {

  @ParameterizedTest
  @ValueSource(strings = {"rolling-update", "preemption", "gang", "gpus"})
  void theScenarioEndsWithItsExpectationsHolding(String name) throws Exception {
    try (SimulatorProcess sim = SimulatorProcess.start("--scenario", "scenarios/" + name + ".yaml",
        "--dashboard-port", "0", "--exit-when-done")) {
      assertThat(sim.exitCode(Duration.ofSeconds(240))).as("exit code of " + name).hasValue(0);
      assertThat(sim.output()).contains("scenario " + name + " passed");
    }
  }
}
