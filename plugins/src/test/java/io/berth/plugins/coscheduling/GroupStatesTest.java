package io.berth.plugins.coscheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** GroupStates: bounded, least recently used dropped first, removable, safe from many threads. */
class GroupStatesTest {

  private static GroupRef group(int i) {
    return new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "g" + i);
  }

  @Test
  void keepsAtMostCapacityGroupsDroppingTheLeastRecentlyUsed() {
    GroupStates states = new GroupStates(2);
    GroupStates.State a = states.of(group(0));
    states.of(group(1));
    assertThat(states.of(group(0))).isSameAs(a); // touched: group 1 is now the eldest
    states.of(group(2));
    assertThat(states.size()).isEqualTo(2);
    assertThat(states.contains(group(0))).isTrue();
    assertThat(states.contains(group(1))).isFalse();
  }

  @Test
  void aRemovedGroupIsForgottenAndTheApiIsPartOfTheKey() {
    GroupStates states = new GroupStates(4);
    GroupStates.State a = states.of(group(0));
    GroupRef workload = new GroupRef(GroupRef.Api.WORKLOAD, "ns", "g0");
    assertThat(states.of(workload)).isNotSameAs(a);
    states.remove(group(0));
    assertThat(states.contains(group(0))).isFalse();
    assertThat(states.contains(workload)).isTrue();
    assertThat(states.of(group(0))).isNotSameAs(a);
  }

  @Test
  void aCapacityBelowOneIsRejected() {
    assertThatThrownBy(() -> new GroupStates(0)).hasMessageContaining("at least 1");
  }

  @Test
  void manyThreadsAddingAndRemovingNeverExceedTheBoundAndShareOneStatePerGroup() throws Exception {
    GroupStates states = new GroupStates(16);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      results.add(pool.submit(() -> {
        go.await();
        int maxSeen = 0;
        for (int i = 0; i < 20_000; i++) {
          GroupRef g = group((i * 7 + seed) % 40);
          if (i % 5 == 0) {
            states.remove(g);
          } else {
            states.of(g).capacity = new GroupStates.CapacityVerdict(i, java.util.Map.of(), List.of());
          }
          maxSeen = Math.max(maxSeen, states.size());
        }
        return maxSeen;
      }));
    }
    go.countDown();
    for (Future<Integer> r : results) {
      assertThat(r.get(60, TimeUnit.SECONDS)).isLessThanOrEqualTo(16);
    }
    pool.shutdown();
    // one state per group at a time, whoever asks
    GroupStates.State s = states.of(group(3));
    assertThat(states.of(group(3))).isSameAs(s);
  }
}
