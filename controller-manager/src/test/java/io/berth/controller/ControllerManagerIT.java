package io.berth.controller;

import io.berth.component.RecordingExiter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One controller manager, leader election off, against the embedded API server. */
class ControllerManagerIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  @Test
  void readyAfterSyncRunsEnabledControllersWithTheirWorkersAndDrainsOnShutdown() throws Exception {
    CLUSTER.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
        .withName("before-start").endMetadata().build()).create();
    FakeController.Probe replicaSets = new FakeController.Probe();
    FakeController.Probe deployments = new FakeController.Probe();
    ControllerRegistry registry = new ControllerRegistry()
        .register("replicaset", FakeController.factory("replicaset", replicaSets))
        .register("deployment", FakeController.factory("deployment", deployments));
    RecordingExiter exiter = new RecordingExiter();
    ControllerManager manager = Managers.manager(registry, exiter, "--kubeconfig",
        CLUSTER.cluster().kubeconfig().toString(), "--port=0", "--leader-elect=false",
        "--concurrent-replicaset-syncs=3", "--controllers=*,-deployment");
    try {
      manager.start();
      int port = manager.port();
      assertThat(manager.controllers()).containsExactly("replicaset");
      await().atMost(WAIT).until(() -> Managers.status(port, "/readyz") == 200);
      assertThat(Managers.get(port, "/healthz").body()).isEqualTo("ok");
      await().atMost(WAIT).until(() -> replicaSets.synced.contains("default/before-start"));
      assertThat(replicaSets.startedWorkers).isEqualTo(3);
      assertThat(deployments.startedWorkers).as("disabled by --controllers").isEqualTo(-1);

      CLUSTER.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("after-start").endMetadata().build()).create();
      await().atMost(WAIT).until(() -> replicaSets.synced.contains("default/after-start"));

      HttpResponse<String> metrics = Managers.get(port, "/metrics");
      assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(metrics.body())
          .contains("workqueue_adds_total{name=\"replicaset\"}")
          .contains("workqueue_depth{name=\"replicaset\"}")
          .containsPattern("berth_controller_syncs_total\\{controller=\"replicaset\",result=\"success\"} [1-9]")
          .contains("berth_controller_sync_duration_seconds_bucket{controller=\"replicaset\",le=\"0.001\"}")
          .doesNotContain("controller=\"deployment\"")
          .doesNotContain("leader_election_master_status");

      manager.shutdown();
      assertThat(exiter.statuses()).containsExactly(0);
      assertThat(replicaSets.shutDowns).containsExactly(Duration.ofSeconds(5));
      assertThat(manager.isReady()).isFalse();
      assertThat(Managers.status(port, "/healthz")).isEqualTo(-1);
    } finally {
      manager.shutdown();
    }
  }

  @Test
  void noRegisteredControllersStillServesAndBecomesReady() throws Exception {
    RecordingExiter exiter = new RecordingExiter();
    ControllerManager manager = Managers.manager(new ControllerRegistry(), exiter, "--kubeconfig",
        CLUSTER.cluster().kubeconfig().toString(), "--port=0", "--leader-elect=false");
    try {
      manager.start();
      await().atMost(WAIT).until(manager::isReady);
      assertThat(manager.controllers()).isEmpty();
      assertThat(Managers.get(manager.port(), "/metrics").body()).contains("jvm_threads_live_threads");
    } finally {
      manager.shutdown();
    }
    assertThat(exiter.statuses()).isEqualTo(List.of(0));
  }
}
