package io.berth.scheduler.debug;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Plugin;
import io.berth.framework.runtime.Registry;
import io.berth.framework.testing.TestHandle;
import io.berth.plugins.InTreeRegistry;
import io.berth.plugins.capacityscheduling.CapacityScheduling;
import io.berth.plugins.coscheduling.Coscheduling;
import io.berth.plugins.coscheduling.GroupResolver;
import io.berth.plugins.topologyplacement.TopologyPlacement;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/**
 * A simulation's registry keeps every plugin of the scheduler's and replaces the gang and quota factories; without
 * the daemon's state the plugins are still built, and the notes say what is missing, once each.
 */
class SimulationRegistryTest {

  private static KubernetesClient deadClient() {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:9")
        .withRequestRetryBackoffLimit(0).build()).build();
  }

  @Test
  void withoutLiveStateThePluginsAreBuiltAndTheNotesSaySoOnce() {
    Registry base = InTreeRegistry.create();
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try (KubernetesClient client = deadClient()) {
      List<String> notes = new ArrayList<>();
      Registry r = new SimulationRegistry(client).forCall(base, timers, notes);
      assertThat(r.names()).containsExactlyElementsOf(base.names());
      TestHandle handle = new TestHandle();
      for (String name : List.of(Coscheduling.NAME, Coscheduling.NAME, TopologyPlacement.NAME,
          CapacityScheduling.NAME)) {
        Plugin p = r.get(name).orElseThrow().create(Map.of(), handle);
        assertThat(p.name()).isEqualTo(name);
      }
      assertThat(notes).hasSize(3);
      assertThat(notes.get(0)).startsWith("Coscheduling: the scheduler watches no PodGroups");
      assertThat(notes.get(1)).startsWith("TopologyPlacement: the scheduler watches no PodGroups");
      assertThat(notes.get(2)).startsWith("CapacityScheduling: the scheduler runs no CapacityScheduling");
      assertThat(GroupResolver.existing(client)).as("simulating started no resolver").isEmpty();
    } finally {
      timers.shutdownNow();
    }
  }

  @Test
  void theDaemonsSharedResolverIsReadWithoutANote() throws Exception {
    Registry base = InTreeRegistry.create();
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try (KubernetesClient client = deadClient(); GroupResolver live = GroupResolver.shared(client, null)) {
      List<String> notes = new ArrayList<>();
      Registry r = new SimulationRegistry(client).forCall(base, timers, notes);
      r.get(Coscheduling.NAME).orElseThrow().create(Map.of(), new TestHandle());
      r.get(TopologyPlacement.NAME).orElseThrow().create(Map.of(), new TestHandle());
      assertThat(notes).isEmpty();
      assertThat(GroupResolver.existing(client)).containsSame(live);
      assertThat(SimulationRegistry.NONE.forCall(base, timers, notes)).isSameAs(base);
    } finally {
      timers.shutdownNow();
    }
  }
}
