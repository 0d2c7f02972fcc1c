package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.framework.FeatureGates;
import io.berth.plugins.InTreeRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code SchedulerAsyncAPICalls} on the embedded cluster, on and off: an unschedulable pod still
 * gets its {@code PodScheduled=False} condition, a preempting pod its nomination (seen by a
 * watch) and then its node, through the API dispatcher's threads when the gate is on (its
 * metrics count the status patches and the bindings) and synchronously when it is off (no such
 * metrics).
 */
class AsyncApiCallsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private InProcessScheduler scheduler;

  @BeforeEach
  void startCluster() {
    // a victim takes a while to go, so the preemptor's nomination is visible before it binds
    cluster = EmbeddedCluster.builder().kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ofMillis(20)).withTerminationDelay(Duration.ofMillis(300)))
        .start();
    client = cluster.client();
  }

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    cluster.close();
  }

  private Pod pod(String name, String cpu, String priorityClass) {
    return new PodBuilder(SchedulerIT.pod(name, cpu, "default-scheduler")).editSpec()
        .withPriorityClassName(priorityClass).endSpec().build();
  }

  private Optional<Pod> get(String name) {
    return Optional.ofNullable(client.pods().inNamespace("default").withName(name).get());
  }

  private Optional<String> nodeOf(String name) {
    return get(name).map(p -> p.getSpec().getNodeName());
  }

  private Optional<PodCondition> scheduledCondition(String name) {
    return get(name).filter(p -> p.getStatus() != null && p.getStatus().getConditions() != null)
        .flatMap(p -> p.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType())).findFirst());
  }

  @ParameterizedTest(name = "feature gates \"{0}\"")
  @ValueSource(strings = {"SchedulerAsyncAPICalls=true", "SchedulerAsyncAPICalls=false"})
  void theFailureHandlersWritesAndTheBindingsReachTheServer(String gates) throws Exception {
    boolean async = gates.endsWith("true");
    cluster.nodes().add(NodeSpec.node("n1").withCpu("1"));
    for (var pc : new Object[][] {{"low", 10}, {"high", 1000}}) {
      client.resource(new PriorityClassBuilder().withNewMetadata().withName((String) pc[0])
          .endMetadata().withValue((Integer) pc[1]).build()).create();
    }
    scheduler = new InProcessScheduler(client, null, InTreeRegistry.create(),
        FeatureGates.parse(gates));

    client.pods().inNamespace("default").resource(pod("huge", "8", "low")).create();
    await().atMost(WAIT).untilAsserted(() -> assertThat(scheduledCondition("huge"))
        .hasValueSatisfying(c -> {
          assertThat(c.getStatus()).isEqualTo("False");
          assertThat(c.getReason()).isEqualTo("Unschedulable");
          assertThat(c.getMessage()).startsWith("0/1 nodes are available: 1 Insufficient cpu.");
        }));

    client.pods().inNamespace("default").resource(pod("low", "800m", "low")).create();
    await().atMost(WAIT).until(() -> nodeOf("low").isPresent());
    Set<String> nominations = ConcurrentHashMap.newKeySet();
    try (Watch w = client.pods().inNamespace("default").withName("high").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod p) {
        if (p.getStatus() != null && p.getStatus().getNominatedNodeName() != null) {
          nominations.add(p.getStatus().getNominatedNodeName());
        }
      }

      @Override
      public void onClose(WatcherException cause) { }
    })) {
      client.pods().inNamespace("default").resource(pod("high", "800m", "high")).create();
      await().atMost(WAIT).until(() -> nodeOf("high").equals(Optional.of("n1")));
      await().atMost(WAIT).until(() -> get("low").isEmpty());
      assertThat(nominations).as("the preemptor's nomination").containsExactly("n1");
    }

    String metrics = scheduler.scrape();
    if (async) {
      assertThat(metrics)
          .containsPattern("(?m)^scheduler_async_api_call_execution_total\\{call_type="
              + "\"pod_status_patch\",result=\"success\"\\} [1-9]")
          .containsPattern("(?m)^scheduler_async_api_call_execution_total\\{call_type="
              + "\"pod_binding\",result=\"success\"\\} [2-9]")
          .containsPattern("(?m)^scheduler_async_api_call_execution_duration_seconds_count"
              + "\\{call_type=\"pod_binding\",result=\"success\"\\} [2-9]")
          .containsPattern("(?m)^scheduler_pending_async_api_calls\\{call_type=\"pod_binding\"\\}"
              + " 0\\.0$");
    } else {
      assertThat(metrics).doesNotContain("scheduler_async_api_call")
          .doesNotContain("scheduler_pending_async_api_calls");
    }
  }
}
