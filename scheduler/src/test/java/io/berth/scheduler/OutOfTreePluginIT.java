package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.framework.runtime.Registry;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Out-of-tree plugins join the registry through ServiceLoader and can be enabled by config. */
class OutOfTreePluginIT {
  private static final String CONFIG = String.join("\n",
      "apiVersion: kubescheduler.config.k8s.io/v1",
      "kind: KubeSchedulerConfiguration",
      "profiles:",
      "- schedulerName: default-scheduler",
      "  plugins:",
      "    filter:",
      "      enabled: [{name: " + OutOfTreePlugins.NAME + "}]");

  @Test
  void aServiceLoadedPluginIsRegisteredAndFiltersNodes() throws Exception {
    Registry registry = SchedulerMain.registry();
    assertThat(registry.contains(OutOfTreePlugins.NAME)).isTrue();
    SchedulerConfiguration config = SchedulerConfigLoader.load(CONFIG, registry);
    SchedulerAssembly.validate(config, registry);
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      cluster.nodes().add(NodeSpec.node("node-1"));
      cluster.nodes().add(NodeSpec.node("node-2"));
      KubernetesClient client = cluster.client();
      try (InProcessScheduler scheduler = new InProcessScheduler(client, CONFIG, registry)) {
        for (int i = 0; i < 4; i++) {
          client.pods().inNamespace("default").resource(SchedulerIT.pod("p" + i, "100m",
              "default-scheduler")).create();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> client.pods().inNamespace("default")
            .list().getItems().stream().allMatch(p -> p.getSpec().getNodeName() != null));
        assertThat(client.pods().inNamespace("default").list().getItems())
            .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo("node-2"));
      }
    }
  }
}
