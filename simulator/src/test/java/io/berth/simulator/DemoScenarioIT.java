package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The main job's scenario runs end to end and leaves the informer's cache in sync with the server. */
class DemoScenarioIT {

  @Test
  void theDemoEndsWithTheInformerInSyncAfterDroppedAndExpiredWatches() throws Exception {
    try (DemoScenario scenario = new DemoScenario(new DemoScenario.Options(0, null, 3, 2, 6))) {
      DemoScenario.Summary summary = scenario.run();
      // 6 pods, web-0 and web-1 deleted, late-1 and late-2 added.
      assertThat(summary.serverPods()).isEqualTo(6);
      assertThat(summary.inSync()).isTrue();
      assertThat(summary.runningPods()).isEqualTo(6);
      assertThat(summary.tombstones()).isEqualTo(1);
      assertThat(summary.podAdds()).isEqualTo(8);
    }
  }
}
