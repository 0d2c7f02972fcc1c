package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.WorkloadFixtures.gang;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The resolver routes each API to its lister; {@link GroupResolver#shared} hands one resolver per client. */
class GroupResolverTest {

  @Test
  void eachApiIsResolvedByItsOwnLister() {
    Map<String, GenericKubernetesResource> w = Map.of("ns/g", gang("g", 2));
    GroupResolver r = new GroupResolver((ns, name) -> Optional.of(new PodGroup(ns, name, java.time.Instant.EPOCH,
        5, Map.of(), Optional.empty())),
        (ns, name) -> Optional.ofNullable(w.get(ns + "/" + name)).map(WorkloadPodGroups::from));
    assertThat(r.get(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "g")).map(PodGroup::minMember)).contains(2);
    assertThat(r.get(new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "g")).map(PodGroup::minMember)).contains(5);
    assertThat(r.get(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "other"))).isEmpty();
    assertThat(r.get("ns", "g").map(PodGroup::api)).contains(GroupRef.Api.SCHEDULER_PLUGINS);
  }

  @Test
  void aMalformedGroupThrowsNamingTheField() {
    GenericKubernetesResource bad = WorkloadFixtures.workloadGroup("bad", Map.of(), null);
    GroupResolver r = new GroupResolver(PodGroupLister.EMPTY,
        (ns, name) -> Optional.of(bad).map(WorkloadPodGroups::from));
    assertThatThrownBy(() -> r.get(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "bad")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spec.schedulingPolicy");
  }

  @Test
  void concurrentCallersOfOneClientShareOneResolver() throws Exception {
    KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0).build()).build();
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Set<GroupResolver> seen = ConcurrentHashMap.newKeySet();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      futures.add(pool.submit(() -> {
        start.await();
        seen.add(GroupResolver.shared(client, g -> { }));
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    assertThat(seen).hasSize(1);
    GroupResolver only = seen.iterator().next();
    assertThat(only.get(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "none"))).as("nothing listed yet").isEmpty();
    only.close();
    client.close();
  }

  @Test
  void existingStartsNothingAndFromManyThreadsFindsOnlyTheOneSharedResolver() throws Exception {
    KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0).build()).build();
    KubernetesClient other = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0).build()).build();
    for (int i = 0; i < 3; i++) {
      assertThat(GroupResolver.existing(client)).as("no plugin asked: nothing is started").isEmpty();
    }
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Set<GroupResolver> shared = ConcurrentHashMap.newKeySet();
    Set<GroupResolver> found = ConcurrentHashMap.newKeySet();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      boolean starter = i % 2 == 0;
      futures.add(pool.submit(() -> {
        start.await();
        for (int j = 0; j < 200; j++) {
          if (starter && j == 0) {
            shared.add(GroupResolver.shared(client, null));
          }
          GroupResolver.existing(client).ifPresent(found::add);
          assertThat(GroupResolver.existing(other)).isEmpty();
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    assertThat(shared).hasSize(1);
    GroupResolver only = shared.iterator().next();
    assertThat(found).containsExactly(only);
    assertThat(GroupResolver.existing(client)).containsSame(only);
    assertThat(GroupResolver.existing(other)).as("another client's resolver is never started by existing")
        .isEmpty();
    only.close();
    client.close();
    other.close();
  }
}
