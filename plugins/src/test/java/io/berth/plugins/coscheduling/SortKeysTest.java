package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** SortKeys: QueueSort's per-pod fields derived once per pod object, the group key once per PodGroup object. */
class SortKeysTest {
  private static final PodGroup PG = new PodGroup("ns", "pg", Instant.EPOCH, 2, Map.of(), Optional.empty());

  @Test
  void aPodsKeyIsDerivedOnceAndNamesItsGroupAndItself() {
    SortKeys keys = new SortKeys();
    Pod p = member("p1", "pg").build();
    SortKeys.Key k = keys.of(p);
    assertThat(k.ref()).isEqualTo(new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "pg"));
    assertThat(k.podKey()).isEqualTo("ns/p1");
    assertThat(keys.of(p)).isSameAs(k);
    assertThat(keys.of(member("solo", null).build()).ref()).isNull();
  }

  @Test
  void aChangedPodIsANewObjectAndGetsItsOwnKey() {
    SortKeys keys = new SortKeys();
    Pod p = member("p1", "pg").build();
    keys.of(p);
    Pod relabelled = new PodBuilder(p).editMetadata().addToLabels(PodGroup.LABEL, "other").endMetadata().build();
    assertThat(keys.of(relabelled).ref().name()).isEqualTo("other");
    // an equal copy is another object: keyed by identity, it never reads the original's entry
    Pod equalCopy = new PodBuilder(p).build();
    assertThat(keys.of(equalCopy).pod()).isSameAs(equalCopy);
    assertThat(keys.of(p).pod()).isSameAs(p);
  }

  @Test
  void theGroupKeyIsReusedForTheSamePodGroupObjectAndDerivedForAnotherOne() {
    SortKeys keys = new SortKeys();
    Pod p = member("p1", "pg").build();
    SortKeys.Key k = keys.of(p);
    assertThat(keys.groupKey(k, PG)).isEqualTo("ns/pg");
    SortKeys.Key resolved = keys.of(p);
    assertThat(resolved.group()).isSameAs(PG);
    String key = resolved.groupKey();
    assertThat(keys.groupKey(resolved, PG)).isSameAs(key);
    // the PodGroup changed (a new object from the lister): its key is derived from it
    PodGroup renamed = new PodGroup("ns2", "pg", Instant.EPOCH, 2, Map.of(), Optional.empty());
    assertThat(keys.groupKey(keys.of(p), renamed)).isEqualTo("ns2/pg");
    assertThat(keys.of(p).group()).isSameAs(renamed);
  }

  @Test
  void collidingPodsEvictEachOtherButNeverReadAnothersKey() {
    SortKeys keys = new SortKeys();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < SortKeys.SIZE * 3; i++) {
      pods.add(member("p" + i, "g" + (i % 7)).build());
    }
    for (int round = 0; round < 3; round++) {
      for (Pod p : pods) {
        SortKeys.Key k = keys.of(p);
        assertThat(k.pod()).isSameAs(p);
        assertThat(k.podKey()).isEqualTo("ns/" + p.getMetadata().getName());
      }
    }
  }

  @Test
  void manyThreadsReadingAndResolvingAlwaysGetTheirOwnPodsKey() throws Exception {
    SortKeys keys = new SortKeys();
    List<Pod> pods = new ArrayList<>();
    List<PodGroup> groups = new ArrayList<>();
    for (int i = 0; i < SortKeys.SIZE * 2; i++) {
      pods.add(member("p" + i, "g" + (i % 13)).build());
    }
    for (int g = 0; g < 13; g++) {
      groups.add(new PodGroup("ns", "g" + g, Instant.EPOCH, 1, Map.of(), Optional.empty()));
    }
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      results.add(pool.submit(() -> {
        go.await();
        int checked = 0;
        for (int i = 0; i < 50_000; i++) {
          int n = (i * 31 + seed * 17) % pods.size();
          Pod p = pods.get(n);
          SortKeys.Key k = keys.of(p);
          assertThat(k.pod()).isSameAs(p);
          assertThat(k.podKey()).isEqualTo("ns/p" + n);
          assertThat(k.ref().name()).isEqualTo("g" + (n % 13));
          // alternate two PodGroup objects per group, as a lister handing out a new version would
          PodGroup g = (i & 1) == 0 ? groups.get(n % 13)
              : new PodGroup("ns", "g" + (n % 13), Instant.EPOCH, 1, Map.of(), Optional.empty());
          assertThat(keys.groupKey(k, g)).isEqualTo("ns/g" + (n % 13));
          checked++;
        }
        return checked;
      }));
    }
    go.countDown();
    for (Future<Integer> r : results) {
      assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(50_000);
    }
    pool.shutdown();
  }
}
