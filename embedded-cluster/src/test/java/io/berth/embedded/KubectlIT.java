package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The real kubectl binary against the embedded cluster, through the kubeconfig the cluster writes. */
class KubectlIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO)
          .withTerminationDelay(Duration.ofMillis(100))));

  record Result(int exit, String out) {
  }

  @BeforeAll
  static void requireKubectl() {
    boolean found = false;
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      found |= Files.isExecutable(Path.of(dir, "kubectl"));
    }
    Assumptions.assumeTrue(found, "kubectl is not on the PATH");
    CLUSTER.cluster().nodes().add(NodeSpec.node("kc-node-1").withZone("zone-a"));
    CLUSTER.cluster().nodes().add(NodeSpec.node("kc-node-2").withZone("zone-b"));
  }

  private static Result kubectl(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig",
        CLUSTER.cluster().kubeconfig().toString(), "--request-timeout=20s"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
      try {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (java.io.IOException e) {
        return e.toString();
      }
    });
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish");
    }
    return new Result(process.exitValue(), output.get(5, TimeUnit.SECONDS));
  }

  private static Result ok(String... args) throws Exception {
    Result r = kubectl(args);
    assertThat(r.exit()).as("kubectl %s exited %s: %s", String.join(" ", args), r.exit(), r.out()).isZero();
    return r;
  }

  @Test
  void apiResourcesAndVersionAreServed() throws Exception {
    assertThat(ok("api-resources").out()).contains("pods").contains("deployments").contains("apps/v1")
        .contains("events.k8s.io/v1").contains("leases");
    assertThat(ok("version").out()).contains("Server Version: v1.32");
  }

  @Test
  void apiResourcesListTheDynamicResourceAllocationKinds() throws Exception {
    assertThat(ok("api-resources", "--api-group=resource.k8s.io").out()).contains("deviceclasses")
        .contains("resourceclaims").contains("resourceclaimtemplates").contains("resourceslices")
        .contains("resource.k8s.io/v1");
  }

  @Test
  void getAndDescribeNodesAndPods() throws Exception {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.boundPod("kc-pod", "kc-node-1")).create();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() ->
        "Running".equals(client.pods().withName("kc-pod").get().getStatus().getPhase()));
    assertThat(ok("get", "nodes").out()).contains("kc-node-1").contains("kc-node-2");
    assertThat(ok("describe", "node", "kc-node-1").out()).contains("topology.kubernetes.io/zone=zone-a")
        .contains("Ready");
    assertThat(ok("get", "pods", "-o", "wide").out()).contains("kc-pod");
    assertThat(ok("describe", "pod", "kc-pod").out()).contains("Node:").contains("kc-node-1")
        .contains("Running");
    assertThat(ok("get", "pod", "kc-pod", "-o", "jsonpath={.status.phase}").out()).isEqualTo("Running");
  }

  @Test
  void getEvents() throws Exception {
    KubernetesClient client = CLUSTER.client();
    client.v1().events().resource(new io.fabric8.kubernetes.api.model.EventBuilder().withNewMetadata()
        .withName("kc-event").endMetadata().withReason("Scheduled").withMessage("Successfully assigned")
        .withType("Normal").withNewInvolvedObject().withKind("Pod").withName("kc-pod").withNamespace("default")
        .endInvolvedObject().build()).create();
    assertThat(ok("get", "events").out()).contains("Scheduled");
  }

  @Test
  void applyScaleRolloutStatusAndDelete(@TempDir Path dir) throws Exception {
    Path manifest = dir.resolve("web.yaml");
    Files.writeString(manifest, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: kc-web
        spec:
          replicas: 2
          selector:
            matchLabels: {app: kc-web}
          template:
            metadata:
              labels: {app: kc-web}
            spec:
              containers:
              - name: nginx
                image: nginx:1.27
        """);
    assertThat(ok("apply", "-f", manifest.toString()).out()).contains("deployment.apps/kc-web created");
    assertThat(ok("apply", "-f", manifest.toString()).out()).contains("unchanged");
    Files.writeString(manifest, Files.readString(manifest).replace("nginx:1.27", "nginx:1.28"));
    assertThat(ok("apply", "-f", manifest.toString()).out()).contains("configured");
    KubernetesClient client = CLUSTER.client();
    assertThat(client.apps().deployments().withName("kc-web").get().getSpec().getTemplate().getSpec()
        .getContainers().get(0).getImage()).isEqualTo("nginx:1.28");
    assertThat(ok("get", "deployments").out()).contains("kc-web");
    assertThat(ok("describe", "deployment", "kc-web").out()).contains("RollingUpdate").contains("nginx:1.28");

    ok("scale", "deployment", "kc-web", "--replicas=3");
    Deployment scaled = client.apps().deployments().withName("kc-web").get();
    assertThat(scaled.getSpec().getReplicas()).isEqualTo(3);

    // No deployment controller runs here: report the rollout complete as one would.
    scaled.setStatus(new DeploymentStatusBuilder().withObservedGeneration(scaled.getMetadata().getGeneration())
        .withReplicas(3).withUpdatedReplicas(3).withReadyReplicas(3).withAvailableReplicas(3).build());
    client.apps().deployments().resource(scaled).updateStatus();
    assertThat(ok("rollout", "status", "deployment/kc-web", "--timeout=20s").out())
        .contains("successfully rolled out");

    ok("delete", "deployment", "kc-web");
    assertThat(client.apps().deployments().withName("kc-web").get()).isNull();
  }

  @Test
  void cordonAndDeleteAPod() throws Exception {
    ok("cordon", "kc-node-2");
    assertThat(CLUSTER.client().nodes().withName("kc-node-2").get().getSpec().getUnschedulable()).isTrue();
    ok("uncordon", "kc-node-2");
    assertThat(CLUSTER.client().nodes().withName("kc-node-2").get().getSpec().getUnschedulable()).isNotEqualTo(true);
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.boundPod("kc-doomed", "kc-node-2")).create();
    ok("delete", "pod", "kc-doomed", "--timeout=30s");
    assertThat(client.pods().withName("kc-doomed").get()).isNull();
  }

  @Test
  void podGroupCrdAppliedFromDeployServesKubectlGetPodgroups(@TempDir Path dir) throws Exception {
    Path cache = dir.resolve("cache");
    ok("apply", "--cache-dir", cache.toString(), "-f",
        Path.of("..", "deploy", "crds", "scheduling.x-k8s.io_podgroups.yaml").toString());
    Path manifest = dir.resolve("podgroup.yaml");
    Files.writeString(manifest, """
        apiVersion: scheduling.x-k8s.io/v1alpha1
        kind: PodGroup
        metadata:
          name: kc-gang
          namespace: default
        spec:
          minMember: 3
        """);
    ok("apply", "--cache-dir", cache.toString(), "-f", manifest.toString());
    assertThat(ok("get", "--cache-dir", cache.toString(), "podgroups").out()).contains("kc-gang");
    assertThat(ok("get", "--cache-dir", cache.toString(), "pg", "kc-gang", "-o", "jsonpath={.spec.minMember}").out())
        .isEqualTo("3");
    assertThat(ok("api-resources", "--cache-dir", cache.toString(), "--api-group=scheduling.x-k8s.io").out())
        .contains("podgroups").contains("pg");
    ok("delete", "--cache-dir", cache.toString(), "podgroup", "kc-gang");
  }
}
