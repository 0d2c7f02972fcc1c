package io.berth.deploy.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.RbacRole;
import io.berth.embedded.auth.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Least privilege, proved: the chart's RBAC objects are loaded into the embedded cluster with its RBAC authorizer
 * enforcing, each daemon jar runs as the chart's ServiceAccount with the chart's own arguments (secure port, Lease
 * in the release namespace), and a workload drives every code path that calls the API — scheduling with
 * preemption, an unschedulable pod, PVC binding, events, the Lease, status writes, the secure port's TokenReview
 * and SubjectAccessReview; Deployment rollouts, adoption and release of ReplicaSets and pods, history cleanup.
 * Then: no request of either daemon was denied, and every grant of their roles (each verb on each resource of each
 * rule) was used, except those in {@code src/test/resources/rbac-unused-allowlist.txt}, each with its reason —
 * and an allow-listed grant that is used after all fails the test too, so the list cannot go stale.
 */
class LeastPrivilegeIT {
  private static final String NAMESPACE = ChartDaemons.NAMESPACE;
  private static final Duration SHUTDOWN = Duration.ofSeconds(40);

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> ChartDaemons.clusterWithRbac(Duration.ofMillis(100)));

  @TempDir
  Path dir;

  private ChartDaemons chart;

  @AfterEach
  void stopDaemons() throws Exception {
    if (chart != null) {
      chart.close();
    }
  }

  @Test
  void bothDaemonsRunAsTheChartsServiceAccountsWithNoDenialAndEveryGrantUsed() throws Exception {
    EmbeddedCluster cluster = CLUSTER.cluster();
    KubernetesClient admin = CLUSTER.client();
    ChartRelease render = ChartRelease.render(NAMESPACE, Map.of(
        "controllerManager.enabled", true,
        "metrics.readerServiceAccounts[0].name", "prometheus",
        "metrics.readerServiceAccounts[0].namespace", "monitoring"));
    chart = ChartDaemons.install(cluster, admin, render, dir, null, "monitoring", Workloads.NAMESPACE);
    String schedulerSa = chart.schedulerServiceAccount();
    String controllerManagerSa = chart.controllerManagerServiceAccount();
    DaemonProcess scheduler = chart.startScheduler();
    DaemonProcess controllerManager = chart.startControllerManager();

    SecureScrape scrape = new SecureScrape(cluster.authentication().serviceAccountToken("monitoring",
        "prometheus"));
    int schedulerPort = scheduler.awaitSecurePort();
    int controllerManagerPort = controllerManager.awaitSecurePort();
    // a connect timeout on a loaded machine is retried, not a failure
    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> scrape.status(schedulerPort, "/readyz",
        false) == 200
        && scrape.status(controllerManagerPort, "/readyz", false) == 200);

    // The chart's readiness probe path is open without a token too.
    assertThat(scrape.status(schedulerPort, "/readyz?exclude=leaderElection", false)).isEqualTo(200);

    Workloads workloads = new Workloads(cluster, admin);
    workloads.scheduling();
    workloads.deployments();
    workloads.dynamicResources();

    assertThat(scrape.status(schedulerPort, "/metrics", false)).as("no token").isEqualTo(401);
    assertThat(scrape.body(schedulerPort, "/metrics")).contains("scheduler_schedule_attempts_total");
    assertThat(scrape.body(controllerManagerPort, "/metrics")).contains("workqueue_adds_total");
    assertThat(scheduler.alive()).as("scheduler still running; output:\n%s", scheduler.output()).isTrue();
    assertThat(controllerManager.alive()).as("controller manager still running; output:\n%s",
        controllerManager.output()).isTrue();
    assertThat(admin.leases().inNamespace(NAMESPACE).withName("berth-scheduler").get()).isNotNull();
    assertThat(admin.leases().inNamespace(NAMESPACE).withName("berth-controller-manager").get()).isNotNull();

    // SIGTERM: each releases its Lease (an update) and exits 0.
    assertThat(scheduler.terminate(SHUTDOWN)).as("scheduler exit; output:\n%s", scheduler.output()).isZero();
    assertThat(controllerManager.terminate(SHUTDOWN)).as("controller manager exit").isZero();

    assertThat(cluster.authorizer().droppedDecisions()).as("decisions dropped from the log").isZero();
    Map<String, Map<String, String>> allowList = RuleCoverage.allowList(Path.of(System.getProperty(
        "berth.deployDir", ".")).resolve("src/test/resources/rbac-unused-allowlist.txt"));
    List<String> findings = new ArrayList<>();
    for (String sa : List.of(schedulerSa, controllerManagerSa)) {
      findings.addAll(findings(sa, render, allowList.getOrDefault(sa, Map.of())));
    }
    assertThat(findings).as("least-privilege findings").isEmpty();
  }

  /** What is wrong with {@code serviceAccount}'s rights: denials, unused grants, stale allow-list entries. */
  private static List<String> findings(String serviceAccount, ChartRelease render,
      Map<String, String> allowed) {
    String user = UserInfo.serviceAccountUsername(NAMESPACE, serviceAccount);
    List<AuthorizationDecision> decisions = CLUSTER.cluster().authorizer().decisions(d -> d.origin()
        == AuthorizationDecision.Origin.REQUEST && d.user().username().equals(user));
    List<String> findings = new ArrayList<>();
    decisions.stream().filter(d -> !d.allowed()).map(d -> serviceAccount + " denied: " + d.attributes()
        .forbiddenMessage(d.reason())).distinct().forEach(findings::add);
    List<RbacRole> roles = render.rolesBoundTo(serviceAccount, CLUSTER.cluster().authorizer().policy());
    assertThat(roles).as("roles bound to %s", serviceAccount).isNotEmpty();
    List<Grant> grants = RuleCoverage.grants(roles);
    List<Grant> unused = RuleCoverage.unexercised(grants, decisions);
    for (Grant g : unused) {
      if (!allowed.containsKey(g.key())) {
        findings.add(serviceAccount + " never used " + g);
      }
    }
    for (String key : allowed.keySet()) {
      boolean granted = grants.stream().anyMatch(g -> g.key().equals(key));
      boolean stillUnused = unused.stream().anyMatch(g -> g.key().equals(key));
      if (!granted) {
        findings.add(serviceAccount + " allow-list names a grant the chart does not make: " + key);
      } else if (!stillUnused) {
        findings.add(serviceAccount + " allow-list names a grant that is used: " + key + " (remove the entry)");
      }
    }
    return findings;
  }
}
