package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** deploy/kind/cluster.yaml turns off exactly kube-controller-manager's deployment and replicaset controllers. */
class KindClusterTest {
  private static final ObjectMapper YAML = YAMLMapper.builder().build();

  @Test
  void kubeControllerManagerRunsEverythingButDeploymentAndReplicaSet() throws IOException {
    JsonNode cluster = YAML.readTree(Files.readString(DeployPaths.deployDir().resolve("kind/cluster.yaml")));

    assertThat(cluster.path("kind").asString()).isEqualTo("Cluster");
    assertThat(cluster.path("apiVersion").asString()).isEqualTo("kind.x-k8s.io/v1alpha4");
    List<String> controllers = new ArrayList<>();
    for (JsonNode patchText : cluster.path("kubeadmConfigPatches")) {
      JsonNode patch = YAML.readTree(patchText.asString());
      if (patch.path("kind").asString().equals("ClusterConfiguration")) {
        assertThat(patch.path("apiVersion").asString()).isEqualTo("kubeadm.k8s.io/v1beta3");
        controllers.add(patch.path("controllerManager").path("extraArgs").path("controllers").asString());
      }
    }
    assertThat(controllers).containsExactly("*,-deployment-controller,-replicaset-controller");
    int workers = 0;
    for (JsonNode node : cluster.path("nodes")) {
      workers += node.path("role").asString().equals("worker") ? 1 : 0;
    }
    assertThat(workers).as("workers, for the two replicas spread over nodes").isGreaterThanOrEqualTo(2);
  }
}
