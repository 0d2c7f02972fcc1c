package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DaemonReadinessTest {

  @Test
  void withElectionOffReadyOnceSynced() {
    DaemonReadiness r = new DaemonReadiness(false, () -> "");
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.NOT_SYNCED);
    r.synced();
    assertThat(r.isReady()).isTrue();
    assertThat(r.unreadyReasons()).isEmpty();
  }

  @Test
  void withElectionOnReadyOnlyWhileSyncedAndLeading() {
    DaemonReadiness r = new DaemonReadiness(true, () -> "lease held by other_1");
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.NOT_SYNCED,
        DaemonReadiness.NOT_LEADING + " (lease held by other_1)");
    r.leading(true);
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.NOT_SYNCED);
    r.synced();
    assertThat(r.isReady()).isTrue();
    r.leading(false);
    assertThat(r.isReady()).isFalse();
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.NOT_LEADING + " (lease held by other_1)");
  }

  @Test
  void notLeadingWithoutAKnownHolderSaysJustThat() {
    DaemonReadiness r = new DaemonReadiness(true, () -> "");
    r.synced();
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.NOT_LEADING);
  }

  @Test
  void excludingLeaderElectionMakesASyncedStandbyReady() {
    DaemonReadiness r = new DaemonReadiness(true, () -> "lease held by other_1");
    Set<String> standby = Set.of(ReadinessCheck.LEADER_ELECTION);
    assertThat(r.unreadyReasons(standby)).containsExactly(DaemonReadiness.NOT_SYNCED);
    r.synced();
    assertThat(r.unreadyReasons(standby)).isEmpty();
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.NOT_LEADING + " (lease held by other_1)");
    r.shuttingDown();
    assertThat(r.unreadyReasons(standby)).containsExactly(DaemonReadiness.SHUTTING_DOWN);
    assertThat(r.unreadyReasons(Set.of(ReadinessCheck.SHUTDOWN, ReadinessCheck.LEADER_ELECTION,
        ReadinessCheck.INFORMER_SYNC))).isEmpty();
  }

  @Test
  void excludedChecksAreReadFromRepeatedAndCommaSeparatedParameters() {
    assertThat(EndpointRoutes.excludedChecks(URI.create("/readyz"))).isEmpty();
    assertThat(EndpointRoutes.excludedChecks(URI.create("/readyz?exclude=leaderElection")))
        .containsExactly(ReadinessCheck.LEADER_ELECTION);
    assertThat(EndpointRoutes.excludedChecks(URI.create("/readyz?verbose&exclude=shutdown&exclude=informer-sync,"
        + "leaderElection"))).containsExactlyInAnyOrder(ReadinessCheck.SHUTDOWN, ReadinessCheck.INFORMER_SYNC,
        ReadinessCheck.LEADER_ELECTION);
    assertThat(EndpointRoutes.excludedChecks(URI.create("/readyz?excluded=shutdown"))).isEmpty();
  }

  @Test
  void theReadyzRouteHonoursExclude() {
    DaemonReadiness r = new DaemonReadiness(true, () -> "");
    r.synced();
    EndpointRoutes routes = EndpointRoutes.forDaemon(new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT), r);
    EndpointRoutes.Handler readyz = routes.handler("/readyz").orElseThrow();
    assertThat(readyz.get(URI.create("/readyz")).status()).isEqualTo(503);
    assertThat(readyz.get(URI.create("/readyz?exclude=leaderElection")).status()).isEqualTo(200);
  }

  @Test
  void shuttingDownIsNeverReady() {
    DaemonReadiness r = new DaemonReadiness(true, () -> "");
    r.synced();
    r.leading(true);
    r.shuttingDown();
    assertThat(r.unreadyReasons()).containsExactly(DaemonReadiness.SHUTTING_DOWN);
  }

  @Test
  void readersOnOtherThreadsSeeEachFlagOnceSet() throws Exception {
    DaemonReadiness r = new DaemonReadiness(true, () -> "");
    ExecutorService readers = Executors.newFixedThreadPool(4);
    CountDownLatch go = new CountDownLatch(1);
    try {
      Future<?>[] futures = new Future<?>[4];
      for (int i = 0; i < futures.length; i++) {
        futures[i] = readers.submit(() -> {
          go.await();
          // Spin until the writer's flags are visible; a lost write would hang until the timeout below.
          while (!r.isReady()) {
            Thread.onSpinWait();
          }
          return null;
        });
      }
      go.countDown();
      Thread writer1 = new Thread(r::synced);
      Thread writer2 = new Thread(() -> r.leading(true));
      writer1.start();
      writer2.start();
      writer1.join();
      writer2.join();
      for (Future<?> f : futures) {
        f.get(10, TimeUnit.SECONDS);
      }
    } finally {
      readers.shutdownNow();
    }
  }
}
