package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.informer.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The daemon lifecycle against the embedded API server, with a workload that records what the daemon asks. */
class DaemonIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** Records the daemon's calls. Thread-safe: the list is concurrent, the informer volatile. */
  private static final class RecordingWorkload implements DaemonWorkload {
    final List<String> calls = new CopyOnWriteArrayList<>();
    volatile SharedIndexInformer<ConfigMap> informer;
    volatile boolean informerRunningWhenWorkStopped;

    @Override
    public void build(DaemonContext context) {
      informer = context.informers().informerFor(ConfigMap.class, "kube-system");
      calls.add("build");
    }

    @Override
    public void startWork() {
      calls.add("start");
    }

    @Override
    public boolean stopWork(Duration timeout) {
      informerRunningWhenWorkStopped = informer != null && !informer.isStopped();
      calls.add("stop " + GoDurations.format(timeout));
      return true;
    }
  }

  private static DaemonSettings settings(Optional<Path> kubeconfig, int port, boolean elect, String lease) {
    return new DaemonSettings("test-daemon", port, new ClientSettings(kubeconfig, 100, 200, "test-daemon"),
        new LeaderElectionSettings(elect, Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(250),
            "kube-system", lease)).validate();
  }

  private static Daemon daemon(DaemonSettings settings, DaemonWorkload workload, Exiter exiter) {
    return Daemon.builder(settings, workload).exiter(exiter).installShutdownHook(false)
        .drainTimeout(Duration.ofSeconds(5)).build();
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void readyOnceInformersSyncThenShutdownDrainsStopsInOrderAndExitsZero() throws Exception {
    RecordingWorkload workload = new RecordingWorkload();
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(Optional.of(CLUSTER.cluster().kubeconfig()), 0, false, "unused"), workload,
        exiter);
    CLUSTER.cluster().faults().addLatency("list", "configmaps", Duration.ofMillis(1500));
    try {
      daemon.start();
      int port = daemon.port();
      assertThat(workload.calls).containsExactly("build");
      HttpResponse<String> unready = get(port, "/readyz");
      assertThat(unready.statusCode()).isEqualTo(503);
      assertThat(unready.body()).contains(DaemonReadiness.NOT_SYNCED);
      assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);

      await().atMost(WAIT).until(() -> get(port, "/readyz").statusCode() == 200);
      assertThat(workload.calls).containsExactly("build", "start");
      assertThat(get(port, "/metrics").body()).contains("jvm_memory_used_bytes")
          .doesNotContain("leader_election_master_status");

      daemon.shutdown();
      assertThat(workload.calls).containsExactly("build", "start", "stop 5s");
      assertThat(workload.informerRunningWhenWorkStopped).as("work stops before the informers").isTrue();
      assertThat(workload.informer.isStopped()).isTrue();
      assertThat(exiter.statuses()).containsExactly(0);
      assertThat(daemon.awaitTermination()).isZero();
      assertThat(daemon.isReady()).isFalse();
      assertThatThrownBy(() -> get(port, "/healthz")).isInstanceOf(ConnectException.class);
      daemon.shutdown(); // a second request waits for the first and changes nothing
      assertThat(exiter.statuses()).containsExactly(0);
    } finally {
      CLUSTER.cluster().faults().clear();
      daemon.shutdown();
    }
  }

  @Test
  void concurrentShutdownRequestsStopOnceAndExitOnce() throws Exception {
    RecordingWorkload workload = new RecordingWorkload();
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(Optional.of(CLUSTER.cluster().kubeconfig()), 0, false, "unused"), workload,
        exiter);
    daemon.start();
    await().atMost(WAIT).until(daemon::isReady);
    List<Thread> requesters = new java.util.ArrayList<>();
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 6; i++) {
      Thread t = new Thread(() -> {
        try {
          go.await();
          daemon.shutdown();
          // Whoever returns first or last, the daemon has stopped by then.
          assertThat(daemon.awaitTermination(Duration.ZERO)).hasValue(0);
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      t.start();
      requesters.add(t);
    }
    go.countDown();
    for (Thread t : requesters) {
      t.join(WAIT.toMillis());
    }
    assertThat(failures).isEmpty();
    assertThat(exiter.statuses()).containsExactly(0);
    assertThat(workload.calls).containsExactly("build", "start", "stop 5s");
  }

  @Test
  void withElectionWorkStartsWhenLeadingAndShutdownReleasesTheLease() throws Exception {
    RecordingWorkload workload = new RecordingWorkload();
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(Optional.of(CLUSTER.cluster().kubeconfig()), 0, true, "daemon-release"),
        workload, exiter);
    try {
      daemon.start();
      int port = daemon.port();
      await().atMost(WAIT).until(() -> get(port, "/readyz").statusCode() == 200);
      assertThat(daemon.isLeading()).isTrue();
      assertThat(workload.calls).containsExactly("build", "start");
      assertThat(Leases.holder(CLUSTER.client(), "kube-system", "daemon-release")).hasValue(daemon.identity());
      assertThat(get(port, "/metrics").body())
          .contains("leader_election_master_status{name=\"daemon-release\"} 1.0");

      daemon.shutdown();
      assertThat(exiter.statuses()).containsExactly(0);
      assertThat(Leases.holder(CLUSTER.client(), "kube-system", "daemon-release")).isEmpty();
    } finally {
      daemon.shutdown();
    }
  }

  @Test
  void losingTheLeaseStopsWorkWithoutDrainingAndExitsOne() throws Exception {
    RecordingWorkload workload = new RecordingWorkload();
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(Optional.of(CLUSTER.cluster().kubeconfig()), 0, true, "daemon-stolen"),
        workload, exiter);
    try {
      daemon.start();
      await().atMost(WAIT).until(daemon::isReady);
      Leases.steal(CLUSTER.client(), "kube-system", "daemon-stolen", "intruder_1");
      assertThat(daemon.awaitTermination(WAIT)).hasValue(1);
      assertThat(exiter.awaitStatuses()).containsExactly(1);
      assertThat(workload.calls).containsExactly("build", "start", "stop 0s");
      assertThat(Leases.holder(CLUSTER.client(), "kube-system", "daemon-stolen")).hasValue("intruder_1");
    } finally {
      daemon.shutdown();
    }
  }

  @Test
  void aStandbyIsAliveButNotReady() throws Exception {
    Leases.createHeld(CLUSTER.client(), "kube-system", "daemon-standby", "other_1");
    RecordingWorkload workload = new RecordingWorkload();
    Daemon daemon = daemon(settings(Optional.of(CLUSTER.cluster().kubeconfig()), 0, true, "daemon-standby"),
        workload, new RecordingExiter());
    try {
      daemon.start();
      int port = daemon.port();
      await().atMost(WAIT).until(() -> daemon.observedLeader().equals(Optional.of("other_1")));
      HttpResponse<String> readyz = get(port, "/readyz");
      assertThat(readyz.statusCode()).isEqualTo(503);
      assertThat(readyz.body()).contains("not leading (lease held by other_1)");
      assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(port, "/metrics").body())
          .contains("leader_election_master_status{name=\"daemon-standby\"} 0.0");
      assertThat(workload.calls).containsExactly("build");
    } finally {
      daemon.shutdown();
    }
  }

  @Test
  void anUnusableKubeconfigThrowsBeforeStartingAndReportsStatusTwo() throws Exception {
    RecordingWorkload workload = new RecordingWorkload();
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(Optional.of(Path.of("/nonexistent/kubeconfig")), 0, false, "unused"),
        workload, exiter);
    assertThatThrownBy(daemon::start).isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--kubeconfig");
    assertThat(daemon.awaitTermination()).isEqualTo(2);
    assertThat(exiter.statuses()).as("the caller reports usage errors").isEmpty();
    assertThat(workload.calls).isEmpty();
  }

  @Test
  void aPortInUseFailsStartupWithStatusOne() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      RecordingWorkload workload = new RecordingWorkload();
      RecordingExiter exiter = new RecordingExiter();
      Daemon daemon = daemon(settings(Optional.of(CLUSTER.cluster().kubeconfig()), taken.getLocalPort(), false,
          "unused"), workload, exiter);
      daemon.start();
      assertThat(daemon.awaitTermination(WAIT)).hasValue(1);
      assertThat(exiter.awaitStatuses()).containsExactly(1);
      assertThat(workload.calls).containsExactly("stop 0s");
    }
  }
}
