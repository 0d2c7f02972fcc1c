package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.capacityscheduling.QuotaFixtures.cpuQuota;
import static io.berth.plugins.capacityscheduling.QuotaFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.PreFilterResult;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
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

/**
 * What {@code /debug/simulate} reads of the live plugin: {@link CapacityScheduling#copyOf} starts from the live
 * quotas, charges and malformed quotas, and the two never see each other's later changes;
 * {@link CapacityScheduling#live} finds one plugin per client, the first registered, from many threads.
 */
class CapacitySchedulingCopyTest {

  private static PreFilterResult preFilter(CapacityScheduling plugin, Pod pod) {
    return plugin.preFilter(new CycleState(), pod, List.of());
  }

  @Test
  void theCopyStartsFromTheLiveBookAndItsReservesChargeOnlyTheCopy() {
    CapacityScheduling live = (CapacityScheduling) CapacityScheduling.withQuotas(Map.of(), new TestHandle(),
        List.of(cpuQuota("a", 3, 3L)));
    live.reserve(new CycleState(), pod("a", "running", "2", 0, false), "n1");
    live.quotaChanged(new GenericKubernetesResourceBuilder().withApiVersion("scheduling.x-k8s.io/v1alpha1")
        .withKind("ElasticQuota").withNewMetadata().withNamespace("bad").withName("q").endMetadata()
        .addToAdditionalProperties("spec", Map.of("max", Map.of("cpu", "-1"))).build());

    TestHandle simulated = new TestHandle();
    CapacityScheduling copy = (CapacityScheduling) CapacityScheduling.copyOf(live, Map.of(), simulated);
    assertThat(copy.book().used("a")).containsEntry("cpu", 2000L);
    assertThat(preFilter(copy, pod("bad", "p", "1", 0, false)).status().message())
        .startsWith("ElasticQuota \"bad/q\": spec.max[cpu]");

    Pod next = pod("a", "next", "1", 0, false);
    assertThat(preFilter(copy, next).status().isSuccess()).isTrue();
    assertThat(copy.reserve(new CycleState(), next, "n1").isSuccess()).isTrue();
    PreFilterResult over = preFilter(copy, pod("a", "over", "1", 0, false));
    assertThat(over.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(over.status().message()).isEqualTo("ElasticQuota \"a/quota-a\" is at its max: cpu: used 3"
        + " + requested 1 exceeds max 3 (min 3)");

    assertThat(live.book().used("a")).as("the live book is not charged").containsEntry("cpu", 2000L);
    assertThat(live.book().isCharged("a", next.getMetadata().getUid())).isFalse();
    assertThat(preFilter(live, pod("a", "other", "1", 0, false)).status().isSuccess()).isTrue();

    live.reserve(new CycleState(), pod("a", "later", "1", 0, false), "n1");
    copy.unreserve(new CycleState(), next, "n1");
    assertThat(copy.book().used("a")).as("the copy does not follow the live book").containsEntry("cpu", 2000L);
    assertThat(live.book().used("a")).containsEntry("cpu", 3000L);
  }

  @Test
  void concurrentRegistrationsAndLookupsFindOnePluginPerClientTheFirstRegistered() throws Exception {
    KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0).build()).build();
    KubernetesClient unused = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0).build()).build();
    assertThat(CapacityScheduling.live(client)).isEmpty();
    int threads = 8;
    List<CapacityScheduling> plugins = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      plugins.add((CapacityScheduling) CapacityScheduling.withQuotas(Map.of(), new TestHandle(), List.of()));
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Set<CapacityScheduling> found = ConcurrentHashMap.newKeySet();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      CapacityScheduling mine = plugins.get(i);
      futures.add(pool.submit(() -> {
        start.await();
        for (int j = 0; j < 500; j++) {
          if (j == 10) {
            CapacityScheduling.registerLive(client, mine);
          }
          CapacityScheduling.live(client).ifPresent(found::add);
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    Optional<CapacityScheduling> winner = CapacityScheduling.live(client);
    assertThat(winner).isPresent();
    assertThat(plugins).contains(winner.get());
    assertThat(found).as("every lookup saw the first registered plugin").containsExactly(winner.get());
    assertThat(CapacityScheduling.live(unused)).isEmpty();
    client.close();
    unused.close();
  }
}
