package io.berth.bench.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The plain HTTP client mode of {@link WatchedCreateRun} against a real embedded cluster, small: 4 create streams
 * and 2 watch streams; the run itself fails when a create is not answered 201 with a resourceVersion, or a
 * watcher misses an event, sees one out of order or an ERROR.
 */
class PlainHttpClientsTest {

  @Test
  void createsAreAnsweredAndEveryWatcherSeesEveryPodInOrder() throws Exception {
    WatchedCreateRun.Result result = WatchedCreateRun.runHttp(300, 2, 4);
    assertThat(result.createsPerSecond()).isPositive();
    assertThat(result.caughtUpSeconds()).isPositive();
    assertThat(result.cpuMsPerThousand()).isPositive();
  }
}
