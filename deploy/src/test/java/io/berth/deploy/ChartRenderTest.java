package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.runtime.ProfileConfig;
import io.berth.scheduler.config.SchedulerConfigException;
import io.berth.scheduler.config.SchedulerConfiguration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** What the chart renders for the documented value sets. */
class ChartRenderTest {

  private static List<String> args(JsonNode deployment) {
    JsonNode container = deployment.path("spec").path("template").path("spec").path("containers").path(0);
    return StreamSupport.stream(container.path("args").spliterator(), false).map(JsonNode::asString).toList();
  }

  @Test
  void defaultValuesRenderTheSchedulerOnly() {
    Rendered rendered = HelmRender.chart().documents();

    assertThat(rendered.ids()).containsExactlyInAnyOrder(
        "ServiceAccount/berth-scheduler",
        "ConfigMap/berth-scheduler-config",
        "ClusterRole/berth-scheduler",
        "ClusterRoleBinding/berth-scheduler",
        "Role/berth-scheduler-leader-election",
        "RoleBinding/berth-scheduler-leader-election",
        "Service/berth-scheduler",
        "Deployment/berth-scheduler",
        "PodDisruptionBudget/berth-scheduler",
        "ClusterRole/berth-metrics-reader");
    JsonNode deployment = rendered.get("Deployment", "berth-scheduler");
    assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(deployment.path("spec").path("strategy").path("type").asString()).isEqualTo("RollingUpdate");
    JsonNode pod = deployment.path("spec").path("template").path("spec");
    assertThat(pod.path("priorityClassName").asString()).isEqualTo("system-cluster-critical");
    assertThat(pod.path("topologySpreadConstraints").path(0).path("topologyKey").asString())
        .isEqualTo("kubernetes.io/hostname");
    assertThat(args(deployment)).containsExactly(
        "--config=/etc/berth/scheduler-config.yaml", "--secure-port=10259", "--cert-dir=/tmp/berth-certs");
    JsonNode container = pod.path("containers").path(0);
    assertThat(container.path("command").path(0).asString()).isEqualTo("/usr/local/bin/berth-scheduler");
    assertThat(container.path("env").path(0).path("name").asString()).isEqualTo("JAVA_TOOL_OPTIONS");
    assertThat(container.path("env").path(0).path("value").asString()).contains("-XX:MaxRAMPercentage=75");
    assertThat(container.path("livenessProbe").path("httpGet").path("path").asString()).isEqualTo("/livez");
    assertThat(container.path("livenessProbe").path("httpGet").path("scheme").asString()).isEqualTo("HTTPS");
    assertThat(container.path("startupProbe").path("failureThreshold").asInt()
        * container.path("startupProbe").path("periodSeconds").asInt()).isGreaterThanOrEqualTo(60);
    assertThat(rendered.get("Service", "berth-scheduler").path("spec").path("ports").path(0).path("port").asInt())
        .isEqualTo(10259);
  }

  @Test
  void defaultSchedulerConfigurationNamesTheProfileAndTheLeaseInTheReleaseNamespace() {
    Rendered rendered = HelmRender.chart().namespace("berth-system").documents();

    SchedulerConfiguration config = RenderedSchedulerConfig.load(
        RenderedSchedulerConfig.text(rendered, "berth-scheduler-config"));

    assertThat(config.profiles()).extracting(ProfileConfig::schedulerName).containsExactly("berth-scheduler");
    assertThat(config.leaderElection().leaderElect()).isTrue();
    assertThat(config.leaderElection().resourceNamespace()).isEqualTo("berth-system");
    assertThat(config.leaderElection().resourceName()).isEqualTo("berth-scheduler");
    assertThat(config.percentageOfNodesToScore()).isEmpty();
  }

  @Test
  void bothDaemonsRenderWithServiceMonitorsAndTheMetricsReaderBinding() {
    Rendered rendered = HelmRender.chart().namespace("berth-system")
        .values(DeployPaths.testValues("both-daemons.yaml")).documents();

    assertThat(rendered.ids()).contains(
        "Deployment/berth-scheduler", "Deployment/berth-controller-manager",
        "ServiceMonitor/berth-scheduler", "ServiceMonitor/berth-controller-manager",
        "ClusterRoleBinding/berth-metrics-reader", "Role/berth-controller-manager-leader-election",
        "PodDisruptionBudget/berth-controller-manager", "Service/berth-controller-manager");
    JsonNode cm = rendered.get("Deployment", "berth-controller-manager");
    assertThat(cm.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(args(cm)).containsExactly(
        "--secure-port=10257", "--cert-dir=/tmp/berth-certs", "--controllers=*",
        "--concurrent-deployment-syncs=5", "--concurrent-replicaset-syncs=5", "--leader-elect=true",
        "--leader-elect-resource-namespace=berth-system", "--leader-elect-resource-name=berth-controller-manager",
        "--leader-elect-lease-duration=15s", "--leader-elect-renew-deadline=10s",
        "--leader-elect-retry-period=2s");
    assertThat(rendered.get("Service", "berth-controller-manager").path("spec").path("ports").path(0)
        .path("port").asInt()).isEqualTo(10257);
    JsonNode endpoint = rendered.get("ServiceMonitor", "berth-scheduler").path("spec").path("endpoints").path(0);
    assertThat(endpoint.path("scheme").asString()).isEqualTo("https");
    assertThat(endpoint.path("bearerTokenFile").asString()).isNotBlank();
    assertThat(endpoint.path("tlsConfig").path("insecureSkipVerify").asBoolean()).isTrue();
    assertThat(rendered.get("ClusterRoleBinding", "berth-metrics-reader").path("subjects").path(0)
        .path("namespace").asString()).isEqualTo("monitoring");
  }

  @Test
  void controllerManagerAloneRendersNoSchedulerObjects() {
    Rendered rendered = HelmRender.chart().set("scheduler.enabled", "false")
        .set("controllerManager.enabled", "true").documents();

    assertThat(rendered.ids()).contains("Deployment/berth-controller-manager")
        .noneMatch(id -> id.contains("scheduler"));
  }

  @Test
  void customSchedulerConfigurationLoadsThroughBerthsLoader() {
    Rendered rendered = HelmRender.chart().values(DeployPaths.testValues("custom-scheduler-config.yaml"))
        .documents();

    SchedulerConfiguration config = RenderedSchedulerConfig.load(
        RenderedSchedulerConfig.text(rendered, "berth-scheduler-config"));

    assertThat(config.percentageOfNodesToScore()).hasValue(50);
    assertThat(config.profiles()).extracting(ProfileConfig::schedulerName)
        .containsExactly("berth-scheduler", "berth-binpack");
    ProfileConfig binpack = config.profile("berth-binpack").orElseThrow();
    assertThat(binpack.percentageOfNodesToScore()).hasValue(30);
    @SuppressWarnings("unchecked")
    Map<String, Object> strategy = (Map<String, Object>) binpack.pluginConfig().get("NodeResourcesFit")
        .get("scoringStrategy");
    assertThat(strategy).containsEntry("type", "MostAllocated");
    assertThat(args(rendered.get("Deployment", "berth-scheduler")))
        .contains("--feature-gates=SchedulerAsyncPreemption=true");
  }

  @Test
  void berthsLoaderRejectsWhatTheSchemaRejectsNamingTheField() {
    // the schema stops an unknown plugin at render time; were it to get through, the daemon would exit 2 at start
    // (SchedulerMain turns SchedulerConfigException into a --config usage error) naming the same field
    String text = RenderedSchedulerConfig.text(HelmRender.chart()
        .values(DeployPaths.testValues("custom-scheduler-config.yaml")).documents(), "berth-scheduler-config");
    String unknownPlugin = text.replace("- name: NodeResourcesBalancedAllocation",
        "- name: NodeResourcesBalancedAllocationn");
    String malformedArgs = text.replace("type: MostAllocated", "type: MostAllocatedd");

    assertThat(unknownPlugin).isNotEqualTo(text);
    assertThatThrownBy(() -> RenderedSchedulerConfig.load(unknownPlugin))
        .isInstanceOf(SchedulerConfigException.class)
        .hasMessageContaining("profiles[1].plugins.score.disabled[0]")
        .hasMessageContaining("NodeResourcesBalancedAllocationn");
    assertThat(malformedArgs).isNotEqualTo(text);
    assertThatThrownBy(() -> RenderedSchedulerConfig.load(malformedArgs))
        .hasMessageContaining("MostAllocatedd");
  }

  @Test
  void changingTheSchedulerConfigurationChangesThePodTemplateChecksum() {
    String before = checksum(HelmRender.chart().documents());
    String after = checksum(HelmRender.chart().set("scheduler.config.percentageOfNodesToScore", "40").documents());
    String again = checksum(HelmRender.chart().documents());

    assertThat(before).isNotBlank().isEqualTo(again).isNotEqualTo(after);
  }

  private static String checksum(Rendered rendered) {
    return rendered.get("Deployment", "berth-scheduler").path("spec").path("template").path("metadata")
        .path("annotations").path("checksum/config").asString();
  }

  @Test
  void extraArgsAndTlsSecretReachTheContainer() {
    Rendered rendered = HelmRender.chart().set("scheduler.extraArgs[0]", "--kube-api-qps=100")
        .set("scheduler.tls.secretName", "berth-serving").documents();

    JsonNode deployment = rendered.get("Deployment", "berth-scheduler");
    assertThat(args(deployment)).contains("--kube-api-qps=100", "--tls-cert-file=/etc/berth/tls/tls.crt",
        "--tls-private-key-file=/etc/berth/tls/tls.key").doesNotContain("--cert-dir=/tmp/berth-certs");
    assertThat(deployment.path("spec").path("template").path("spec").path("volumes").toString())
        .contains("berth-serving");
  }
}
