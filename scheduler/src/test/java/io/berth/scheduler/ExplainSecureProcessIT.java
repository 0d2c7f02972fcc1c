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
 * The scheduler's {@code /debug/*} on {@code --secure-port} (jar as a process, embedded cluster
 * with RBAC): no token is 401, a token whose user may not get the non-resource URL is 403 (also
 * for POST {@code /debug/simulate}, verb {@code post}), a user granted {@code /debug/*} reads the
 * explanation and simulates, and the SubjectAccessReviews name the full path.
 */
class ExplainSecureProcessIT {
  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().rbac(true));

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
  void debugPathsNeedAnAuthorizedToken() throws Exception {
    var admin = CLUSTER.client();
    SchedulerJarProcess.grantNonResource(admin, "debugger", "debugger", List.of("/debug/*"), "get", "post");
    SchedulerJarProcess.grantNonResource(admin, "metrics-only", "prometheus", List.of("/metrics"), "get");
    String debugger = CLUSTER.cluster().authentication().issueToken("debugger", List.of());
    String prometheus = CLUSTER.cluster().authentication().issueToken("prometheus", List.of());

    scheduler = SchedulerJarProcess.start(dir.resolve("scheduler.log"), CLUSTER.cluster().kubeconfig(),
        "--secure-port=0", "--leader-elect=false");
    int port = scheduler.securePort();
    await().atMost(STARTUP).until(() -> https(port, "GET", "/readyz", null, Optional.empty())
        .statusCode() == 200);
    CLUSTER.cluster().nodes().add(NodeSpec.node("secure-node").withCpu("1"));
    admin.pods().inNamespace("default").resource(SchedulerIT.pod("too-big", "2", "default-scheduler"))
        .create();
    String path = "/debug/explain/default/too-big";
    // until an attempt that saw the node: the first one can run before the scheduler's cache has it
    await().atMost(STARTUP).until(() -> {
      HttpResponse<String> r = https(port, "GET", path, null, Optional.of(debugger));
      return r.statusCode() == 200 && r.body().contains("\"secure-node\"");
    });

    HttpResponse<String> anonymous = https(port, "GET", path, null, Optional.empty());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.body()).doesNotContain("secure-node");
    HttpResponse<String> forbidden = https(port, "GET", path, null, Optional.of(prometheus));
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains(path).doesNotContain("Insufficient");
    assertThat(https(port, "GET", "/debug/snapshot", null, Optional.of(prometheus))
        .statusCode()).isEqualTo(403);
    String simulate = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":"
        + "[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
    assertThat(https(port, "POST", "/debug/simulate", simulate, Optional.of(prometheus))
        .statusCode()).isEqualTo(403);
    assertThat(https(port, "POST", "/debug/simulate", simulate, Optional.empty())
        .statusCode()).isEqualTo(401);

    HttpResponse<String> allowed = https(port, "GET", path, null, Optional.of(debugger));
    assertThat(allowed.body()).contains("\"secure-node\"").contains("Insufficient cpu");
    HttpResponse<String> simulated = https(port, "POST", "/debug/simulate", simulate,
        Optional.of(debugger));
    assertThat(simulated.statusCode()).as(simulated.body()).isEqualTo(200);
    assertThat(simulated.body()).contains("\"node\":\"secure-node\"");

    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.attributes().path().equals(path)))
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("prometheus"))
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("debugger"));
    assertThat(CLUSTER.cluster().authorizer().decisions(
        d -> d.attributes().path().equals("/debug/simulate")))
        .anySatisfy(d -> assertThat(d.attributes().verb()).isEqualTo("post"));
    assertThat(scheduler.terminate()).isZero();
  }
}
