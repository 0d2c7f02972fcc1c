package io.berth.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.plugins.coscheduling.GroupRef;
import io.berth.plugins.coscheduling.PodGroup;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ReplayGroupsTest {
  private static final String V1ALPHA1 = "scheduling.x-k8s.io/v1alpha1";
  private static final String V1ALPHA2 = "scheduling.k8s.io/v1alpha2";

  private static GenericKubernetesResource group(String apiVersion, String name, Map<String, Object> spec) {
    return new GenericKubernetesResourceBuilder().withApiVersion(apiVersion).withKind("PodGroup")
        .withNewMetadata().withNamespace("ns").withName(name).withCreationTimestamp("2026-12-01T10:00:00Z")
        .endMetadata().addToAdditionalProperties("spec", spec).build();
  }

  @Test
  void bothApisAreKeptApartAndEachVersionParsedWhenApplied() {
    ReplayGroups groups = new ReplayGroups();
    assertThat(ReplayGroups.handles(V1ALPHA1, "PodGroup")).isTrue();
    assertThat(ReplayGroups.handles(V1ALPHA2, "PodGroup")).isTrue();
    assertThat(ReplayGroups.handles(V1ALPHA1, "ElasticQuota")).isTrue();
    assertThat(ReplayGroups.handles("v1", "Pod")).isFalse();

    groups.apply(V1ALPHA1, "PodGroup", group(V1ALPHA1, "g", Map.of("minMember", 3)), false);
    groups.apply(V1ALPHA2, "PodGroup", group(V1ALPHA2, "g", Map.of("schedulingPolicy",
        Map.of("gang", Map.of("minCount", 5)))), false);
    assertThat(groups.resolver().get(new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "g")))
        .map(PodGroup::minMember).hasValue(3);
    assertThat(groups.resolver().get(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "g")))
        .map(PodGroup::minMember).hasValue(5);

    groups.apply(V1ALPHA1, "PodGroup", group(V1ALPHA1, "bad", Map.of("minMember", 0)), false);
    assertThatThrownBy(() -> groups.resolver().get("ns", "bad")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.minMember");

    groups.apply(V1ALPHA1, "PodGroup", group(V1ALPHA1, "g", Map.of("minMember", 3)), true);
    assertThat(groups.resolver().get("ns", "g")).isEmpty();
    assertThat(groups.resolver().get(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "g"))).isPresent();
  }

  @Test
  void readersSeeWholeVersionsWhileTheReplayThreadApplies() throws Exception {
    ReplayGroups groups = new ReplayGroups();
    AtomicBoolean writing = new AtomicBoolean(true);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    CountDownLatch start = new CountDownLatch(1);
    int versions = 3_000;
    try {
      Future<?> writer = pool.submit(() -> {
        start.await();
        for (int i = 1; i <= versions; i++) {
          groups.apply(V1ALPHA1, "PodGroup", group(V1ALPHA1, "g" + (i % 5), Map.of("minMember", i)), i % 7 == 0);
        }
        writing.set(false);
        return null;
      });
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(pool.submit(() -> {
          start.await();
          while (writing.get()) {
            for (int g = 0; g < 5; g++) {
              Optional<PodGroup> got = groups.resolver().get("ns", "g" + g);
              int k = g;
              got.ifPresent(p -> assertThat(p.minMember() % 5).isEqualTo(k));
            }
          }
          return null;
        }));
      }
      start.countDown();
      writer.get(60, TimeUnit.SECONDS);
      for (Future<?> f : readers) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    // the last version of g0 is 3000 (3000 % 7 != 0): applied, not deleted
    assertThat(groups.resolver().get("ns", "g0")).map(PodGroup::minMember).hasValue(versions);
  }
}
