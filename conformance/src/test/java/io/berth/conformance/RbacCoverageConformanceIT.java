package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Least privilege on the real server, from its audit log of the whole conformance run (so this class runs last,
 * by {@code junit-platform.properties}' class order): Berth's two daemons, run as the chart's ServiceAccounts with
 * exactly the chart's RBAC by the other classes, were never refused with 403, and every grant of the chart's roles
 * bound to them (each verb on each resource of each rule) was used by some request, except those in
 * {@code src/test/resources/rbac-unused-allowlist.txt}, each with its reason; an allow-listed grant that was used
 * after all, or one the chart no longer makes, fails it too. The coverage is written to
 * {@code target/rbac-coverage.txt}. Run alone (no daemon ran), it is skipped.
 */
@Order(Integer.MAX_VALUE)
@ExtendWith(ControlPlaneExtension.class)
class RbacCoverageConformanceIT {

  private static final String NAMESPACE = "kube-system";

  @Test
  void theDaemonsWereNeverDeniedAndUsedEveryGrantOfTheChart(ControlPlane plane) throws Exception {
    AuditLog audit = plane.audit();
    List<String> report = new ArrayList<>();
    List<String> findings = new ArrayList<>();
    Map<String, String> allowList = RbacCoverage.allowList(Path.of("src", "test", "resources",
        "rbac-unused-allowlist.txt"));
    try (KubernetesClient admin = plane.admin()) {
      List<HasMetadata> chart = ChartRbac.load(admin);
      for (String sa : List.of("berth-scheduler", "berth-controller-manager")) {
        String user = "system:serviceaccount:" + NAMESPACE + ":" + sa;
        List<AuditLog.Entry> entries = audit.entries(e -> e.user().equals(user));
        assumeTrue(!entries.isEmpty(), sa + " made no request: run the whole -Pconformance suite");
        entries.stream().filter(e -> e.code() == 403).map(e -> sa + " denied: " + e).distinct()
            .forEach(findings::add);
        List<RbacCoverage.Grant> grants = RbacCoverage.grants(chart, NAMESPACE, sa);
        assertThat(grants).as("grants of the chart's roles bound to %s", sa).isNotEmpty();
        List<RbacCoverage.Grant> unused = RbacCoverage.unused(grants, entries);
        report.add(String.format("%s: %d requests, %d grants, %d unused", sa, entries.size(), grants.size(),
            unused.size()));
        for (RbacCoverage.Grant g : grants) {
          String key = sa + " " + g.key();
          boolean isUnused = unused.contains(g);
          report.add("  " + (isUnused ? "UNUSED " : "used   ") + g.key()
              + (allowList.containsKey(key) ? "  (allow-listed: " + allowList.get(key) + ")" : ""));
          if (isUnused && !allowList.containsKey(key)) {
            findings.add(sa + " never used " + g.key());
          } else if (!isUnused && allowList.containsKey(key)) {
            findings.add(sa + " used the allow-listed " + g.key() + ": remove it from the allow-list");
          }
        }
        allowList.keySet().stream().filter(k -> k.startsWith(sa + " "))
            .filter(k -> grants.stream().noneMatch(g -> k.equals(sa + " " + g.key())))
            .forEach(k -> findings.add("the allow-list names a grant the chart does not make: " + k));
      }
    }
    Files.write(Path.of("target", "rbac-coverage.txt"), report, StandardCharsets.UTF_8);
    assertThat(findings).as("least-privilege findings on the real server\n%s", String.join("\n", report))
        .isEmpty();
  }
}
