package io.berth.deploy.rbac;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.UserInfo;
import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The set-up the chart-RBAC jar tests share: a chart render's RBAC objects (ServiceAccounts, ClusterRoles,
 * ClusterRoleBindings, Roles, RoleBindings) loaded into an embedded cluster whose RBAC authorizer enforces, and each
 * daemon jar started as its chart ServiceAccount with the chart's own container arguments (the scheduler's
 * configuration file written from the render); then which of a ServiceAccount's requests were denied.
 * {@link #close()} keeps each daemon's output under {@code target/<test>-<daemon>.log} and kills what still runs.
 * Confined to the test thread.
 */
final class ChartDaemons implements AutoCloseable {
  /** The release namespace the tests install into. */
  static final String NAMESPACE = "berth-system";
  static final Path SCHEDULER_JAR = Path.of(System.getProperty("berth.schedulerJar",
      "../scheduler/target/berth-scheduler.jar"));
  static final Path CONTROLLER_MANAGER_JAR = Path.of(System.getProperty("berth.controllerManagerJar",
      "../controller-manager/target/berth-controller-manager.jar"));
  private static final List<String> RBAC_KINDS = List.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding",
      "Role", "RoleBinding");

  private final EmbeddedCluster cluster;
  private final ChartRelease render;
  private final Path dir;
  private final String logPrefix;
  private final List<DaemonProcess> daemons = new ArrayList<>();

  private ChartDaemons(EmbeddedCluster cluster, ChartRelease render, Path dir, String logPrefix) {
    this.cluster = cluster;
    this.render = render;
    this.dir = dir;
    this.logPrefix = logPrefix;
  }

  /** The embedded cluster these tests run: RBAC enforced, a kubelet that starts pods within 50 ms. */
  static EmbeddedCluster.Builder clusterWithRbac(Duration terminationDelay) {
    return EmbeddedCluster.builder().rbac(true).kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ofMillis(50)).withTerminationDelay(terminationDelay));
  }

  /**
   * Creates the release namespace and {@code namespaces}, and loads {@code render}'s RBAC objects as {@code admin}.
   *
   * @param logPrefix the daemons' logs go to {@code target/<logPrefix>-<daemon>.log} on close
   */
  static ChartDaemons install(EmbeddedCluster cluster, KubernetesClient admin, ChartRelease render, Path dir,
      String logPrefix, String... namespaces) {
    List<String> all = new ArrayList<>(List.of(NAMESPACE));
    all.addAll(List.of(namespaces));
    for (String ns : all) {
      admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    for (JsonNode doc : render.documents()) {
      if (RBAC_KINDS.contains(doc.path("kind").asString(""))) {
        admin.resource(doc.toString()).create();
      }
    }
    return new ChartDaemons(cluster, render, dir, logPrefix);
  }

  ChartRelease render() {
    return render;
  }

  /** The scheduler's chart ServiceAccount. */
  String schedulerServiceAccount() {
    return render.serviceAccount("scheduler");
  }

  /** The controller manager's chart ServiceAccount. */
  String controllerManagerServiceAccount() {
    return render.serviceAccount("controller-manager");
  }

  /** Starts the scheduler jar as the chart runs it (its configuration file from the render). */
  DaemonProcess startScheduler() throws Exception {
    Path config = Files.writeString(dir.resolve("scheduler-config.yaml"), render.schedulerConfig());
    return start("scheduler", SCHEDULER_JAR, schedulerServiceAccount(),
        render.args("scheduler", Map.of("/etc/berth/scheduler-config.yaml", config.toString())));
  }

  /** Starts the controller manager jar as the chart runs it. */
  DaemonProcess startControllerManager() throws Exception {
    return start("controller-manager", CONTROLLER_MANAGER_JAR, controllerManagerServiceAccount(),
        render.args("controller-manager", Map.of()));
  }

  private DaemonProcess start(String name, Path jar, String serviceAccount, List<String> chartArgs)
      throws Exception {
    Path kubeconfig = cluster.writeServiceAccountKubeconfig(dir.resolve(name + ".kubeconfig"), NAMESPACE,
        serviceAccount);
    List<String> args = new ArrayList<>(chartArgs);
    args.add("--kubeconfig=" + kubeconfig);
    DaemonProcess process = DaemonProcess.start(name, jar, dir, args);
    daemons.add(process);
    return process;
  }

  /** The distinct forbidden messages of {@code serviceAccount}'s own requests (not reviews made for others). */
  List<String> denied(String serviceAccount) {
    String user = UserInfo.serviceAccountUsername(NAMESPACE, serviceAccount);
    return cluster.authorizer().decisions(d -> d.origin() == AuthorizationDecision.Origin.REQUEST
        && d.user().username().equals(user) && !d.allowed()).stream()
        .map(d -> d.attributes().forbiddenMessage(d.reason())).distinct().toList();
  }

  @Override
  public void close() throws Exception {
    for (DaemonProcess d : daemons) {
      if (logPrefix != null) {
        // kept for a failed run
        Files.writeString(Path.of("target", logPrefix + "-" + d + ".log"), d.output());
      }
      d.close();
    }
  }
}
