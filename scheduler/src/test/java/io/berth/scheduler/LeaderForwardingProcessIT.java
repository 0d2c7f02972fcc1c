package io.berth.scheduler;

import static io.berth.scheduler.SchedulerJarProcess.STARTUP;
import static io.berth.scheduler.SchedulerJarProcess.http;
import static io.berth.scheduler.SchedulerJarProcess.https;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.scheduler.debug.LeaderForwarding;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two scheduler jars with leader election against the embedded cluster (RBAC on): the standby
 * answers {@code /debug/*} with the leader's answer, on the plain port and on the secure port with
 * the caller's own token (which the standby and then the leader authorize: a token the standby
 * refuses is never forwarded); {@code /debug/leader} on either says who leads; once the leader is
 * gone but still holds the Lease, the standby answers 503 naming it.
 */
class LeaderForwardingProcessIT {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String PATH = "/debug/explain/default/too-big";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().rbac(true));

  @TempDir
  Path dir;

  private SchedulerJarProcess first;
  private SchedulerJarProcess second;

  @AfterEach
  void kill() throws InterruptedException {
    for (SchedulerJarProcess p : new SchedulerJarProcess[] {first, second}) {
      if (p != null) {
        p.close();
      }
    }
  }

  @Test
  void standbyForwardsDebugToTheLeaderWithTheCallersToken() throws Exception {
    var admin = CLUSTER.client();
    SchedulerJarProcess.grantNonResource(admin, "debugger", "debugger", List.of("/debug/*"), "get", "post");
    String debugger = CLUSTER.cluster().authentication().issueToken("debugger", List.of());
    String nobody = CLUSTER.cluster().authentication().issueToken("nobody", List.of());
    // one certificate for both (as the chart's scheduler.tls.secretName): the first writes it, the second reads it
    String certDir = "--cert-dir=" + dir.resolve("certs");

    first = SchedulerJarProcess.start(dir.resolve("first.log"), CLUSTER.cluster().kubeconfig(),
        "--port=0", "--secure-port=0", certDir, "--leader-elect=true", "--debug-advertise-address=127.0.0.1");
    int leaderPort = first.plainPort();
    first.securePort();
    await().atMost(STARTUP).until(() -> http(leaderPort, "GET", "/readyz", null).statusCode() == 200);
    String leader = json(http(leaderPort, "GET", LeaderForwarding.LEADER_PATH, null)).path("identity").asString();

    second = SchedulerJarProcess.start(dir.resolve("second.log"), CLUSTER.cluster().kubeconfig(),
        "--port=0", "--secure-port=0", certDir, "--leader-elect=true", "--debug-advertise-address=127.0.0.1");
    int standbyPort = second.plainPort();
    int standbySecure = second.securePort();
    // synced, standing by (the routes are served from the endpoint's start, the debug paths once built)
    await().atMost(STARTUP).until(() -> http(standbyPort, "GET", "/readyz?exclude=leaderElection", null)
        .statusCode() == 200);
    await().atMost(STARTUP).ignoreExceptions().until(() -> json(http(standbyPort, "GET",
        LeaderForwarding.LEADER_PATH, null)).path("leaderEndpoints").has("http"));
    JsonNode standbyView = json(http(standbyPort, "GET", LeaderForwarding.LEADER_PATH, null));
    assertThat(standbyView.path("leading").asBoolean()).isFalse();
    assertThat(standbyView.path("leader").asString()).isEqualTo(leader);
    assertThat(standbyView.path("identity").asString()).isNotEqualTo(leader);
    assertThat(standbyView.path("leaderEndpoints").path("http").asString())
        .isEqualTo("http://127.0.0.1:" + leaderPort);

    CLUSTER.cluster().nodes().add(NodeSpec.node("fwd-node").withCpu("1"));
    admin.pods().inNamespace("default").resource(SchedulerIT.pod("too-big", "2", "default-scheduler"))
        .create();
    await().atMost(STARTUP).until(() -> http(leaderPort, "GET", PATH, null).statusCode() == 200);

    // plain port: the leader's explanation, marked as the leader's
    HttpResponse<String> plain = http(standbyPort, "GET", PATH, null);
    assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
    assertThat(plain.headers().firstValue(LeaderForwarding.LEADER_HEADER)).contains(leader);
    assertThat(plain.body()).contains("\"fwd-node\"").contains("Insufficient cpu");
    assertThat(json(plain).path("pod").asString())
        .isEqualTo(json(http(leaderPort, "GET", PATH, null)).path("pod").asString());
    assertThat(http(standbyPort, "GET", PATH + "?format=text", null).body()).contains("fwd-node");
    String simulate = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":"
        + "[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
    HttpResponse<String> simulated = http(standbyPort, "POST", "/debug/simulate", simulate);
    assertThat(simulated.statusCode()).as(simulated.body()).isEqualTo(200);
    assertThat(simulated.body()).contains("\"node\":\"fwd-node\"");

    // secure port: the caller's token, authorized by the standby and again by the leader
    HttpResponse<String> secure = https(standbySecure, "GET", PATH, null, Optional.of(debugger));
    assertThat(secure.statusCode()).as(secure.body()).isEqualTo(200);
    assertThat(secure.headers().firstValue(LeaderForwarding.LEADER_HEADER)).contains(leader);
    assertThat(secure.body()).contains("Insufficient cpu");
    assertThat(https(standbySecure, "GET", PATH, null, Optional.of(nobody)).statusCode()).isEqualTo(403);
    assertThat(https(standbySecure, "GET", PATH, null, Optional.empty()).statusCode()).isEqualTo(401);
    var reviews = CLUSTER.cluster().authorizer().decisions(d -> d.attributes().path().equals(PATH));
    assertThat(reviews).as("every review of the path is of a caller, never of a scheduler")
        .allSatisfy(d -> assertThat(d.user().username()).isIn("debugger", "nobody"));
    assertThat(reviews.stream().filter(d -> d.user().username().equals("debugger")))
        .as("debugger reviewed by the standby and by the leader").hasSizeGreaterThanOrEqualTo(2);
    assertThat(reviews.stream().filter(d -> d.user().username().equals("nobody"))).hasSize(1);

    // the leader dies without releasing the Lease: the standby cannot reach it and says who leads
    first.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    HttpResponse<String> gone = http(standbyPort, "GET", PATH, null);
    assertThat(gone.statusCode()).as(gone.body()).isEqualTo(503);
    assertThat(json(gone).path("leader").asString()).isEqualTo(leader);
    assertThat(json(gone).path("error").asString()).contains("cannot reach the leader at http://127.0.0.1:"
        + leaderPort);
    assertThat(second.terminate()).isZero();
  }

  private static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }
}
