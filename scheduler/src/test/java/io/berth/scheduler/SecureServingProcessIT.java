package io.berth.scheduler;

import static io.berth.scheduler.SchedulerJarProcess.STARTUP;
import static io.berth.scheduler.SchedulerJarProcess.https;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler jar's secure port end to end against the embedded cluster with its RBAC authorizer on: the bearer
 * token is checked by a TokenReview and the request authorized by a SubjectAccessReview, both answered by the
 * embedded cluster from its tokens and RBAC objects. No token is 401, a token without rights 403, a token whose
 * user is bound to a ClusterRole granting {@code get} on the non-resource URL {@code /metrics} reads the
 * Prometheus text with upstream's metric names; {@code /healthz}, {@code /livez} and {@code /readyz} need no token.
 */
class SecureServingProcessIT {
  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .rbac(true));

  @TempDir
  Path dir;

  private SchedulerJarProcess scheduler;

  @AfterEach
  void kill() throws InterruptedException {
    if (scheduler != null) {
      scheduler.close();
    }
  }

  @Test
  void metricsNeedAnAuthenticatedAndAuthorizedTokenWhileHealthPathsAreOpen() throws Exception {
    var admin = CLUSTER.client();
    SchedulerJarProcess.grantNonResource(admin, "metrics-reader", "prometheus", List.of("/metrics"), "get");
    String reader = CLUSTER.cluster().authentication().issueToken("prometheus", List.of());
    String nobody = CLUSTER.cluster().authentication().issueToken("nobody", List.of());

    scheduler = SchedulerJarProcess.start(dir.resolve("scheduler.log"), CLUSTER.cluster().kubeconfig(),
        "--secure-port=0", "--leader-elect=false");
    int port = scheduler.securePort();

    await().atMost(STARTUP).until(() -> https(port, "GET", "/readyz", null, Optional.empty()).statusCode() == 200);
    CLUSTER.cluster().nodes().add(NodeSpec.node("secure-node"));
    admin.pods().inNamespace("default").resource(SchedulerIT.pod("secure-pod", "100m", "default-scheduler"))
        .create();
    await().atMost(STARTUP).until(() -> admin.pods().inNamespace("default").withName("secure-pod").get().getSpec()
        .getNodeName() != null);
    assertThat(https(port, "GET", "/healthz", null, Optional.empty()).statusCode()).isEqualTo(200);
    assertThat(https(port, "GET", "/livez", null, Optional.empty()).statusCode()).isEqualTo(200);

    HttpResponse<String> anonymous = https(port, "GET", "/metrics", null, Optional.empty());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.body()).doesNotContain("scheduler_");
    HttpResponse<String> badToken = https(port, "GET", "/metrics", null, Optional.of("not-a-token"));
    assertThat(badToken.statusCode()).isEqualTo(401);
    HttpResponse<String> forbidden = https(port, "GET", "/metrics", null, Optional.of(nobody));
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains("/metrics").doesNotContain("scheduler_");
    HttpResponse<String> allowed = https(port, "GET", "/metrics", null, Optional.of(reader));
    assertThat(allowed.statusCode()).isEqualTo(200);
    assertThat(allowed.body()).contains("scheduler_pending_pods", "scheduler_schedule_attempts_total",
        "scheduler_scheduling_attempt_duration_seconds");

    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.attributes().path().equals("/metrics")))
        .as("the SubjectAccessReviews the embedded cluster answered")
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("prometheus"))
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("nobody"));
    assertThat(scheduler.terminate()).isZero();
  }
}
