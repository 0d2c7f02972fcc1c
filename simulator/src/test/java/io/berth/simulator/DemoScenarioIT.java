package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The main job's scenario runs end to end and leaves the informer's cache in sync with the server. */
class DemoScenarioIT {

  @Test
  void theDemoRollsOutScalesAndEndsWithTheInformerInSyncAfterDroppedAndExpiredWatches() throws Exception {
    try (DemoScenario scenario = new DemoScenario(new DemoScenario.Options(0, null, 3, 2, 6))) {
      DemoScenario.Summary summary = scenario.run();
      // 6 replicas, scaled to 8 at the end.
      assertThat(summary.serverPods()).isEqualTo(8);
      assertThat(summary.inSync()).isTrue();
      assertThat(summary.runningPods()).isEqualTo(8);
      assertThat(summary.tombstones()).isEqualTo(1);
      // 6 first pods, 6 from the rolling update, 1 replacing the deleted pod, 2 from the scale-up, 1 replacing the
      // pod deleted while the watch was down.
      assertThat(summary.podAdds()).isEqualTo(16);
    }
  }
}
