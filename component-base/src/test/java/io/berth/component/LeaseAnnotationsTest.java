package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LeaseAnnotationsTest {

  private static Lease lease(String holder, Map<String, String> annotations) {
    return new LeaseBuilder().withNewMetadata().withName("l").withAnnotations(annotations).endMetadata()
        .withNewSpec().withHolderIdentity(holder).endSpec().build();
  }

  @Test
  void aWriteAsHolderAddsOursAndAnyOtherWriteTakesOnlyOursAway() {
    LeaseAnnotations a = new LeaseAnnotations();
    a.publish("ours", "1");
    Map<String, String> current = Map.of("theirs", "x", "ours", "old");
    assertThat(a.annotationsForWrite(current, true)).containsExactlyInAnyOrderEntriesOf(
        Map.of("theirs", "x", "ours", "1"));
    assertThat(a.annotationsForWrite(current, false)).containsExactlyInAnyOrderEntriesOf(Map.of("theirs", "x"));
    assertThat(a.annotationsForWrite(null, true)).containsExactlyInAnyOrderEntriesOf(Map.of("ours", "1"));
  }

  @Test
  void observedIsTheLastLeaseReadAndEmptyBeforeAny() {
    LeaseAnnotations a = new LeaseAnnotations();
    assertThat(a.observed()).isEmpty();
    a.observe(lease("x_1", Map.of("k", "v")));
    assertThat(a.observed()).hasValue(new LeaseAnnotations.Observed("x_1", Map.of("k", "v")));
    a.observe(null);
    assertThat(a.observed()).hasValue(new LeaseAnnotations.Observed("", Map.of()));
  }

  @Test
  void publishersObserversAndWritersRunConcurrently() throws Exception {
    LeaseAnnotations a = new LeaseAnnotations();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    int rounds = 5_000;
    try {
      List<Future<?>> all = new ArrayList<>();
      all.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < rounds; i++) {
          a.publish("k" + (i % 10), Integer.toString(i));
        }
        return null;
      }));
      all.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < rounds; i++) {
          a.observe(lease("h_" + i, Map.of("n", Integer.toString(i))));
        }
        return null;
      }));
      for (int r = 0; r < 2; r++) {
        all.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < rounds; i++) {
            Map<String, String> out = a.annotationsForWrite(Map.of("theirs", "x"), i % 2 == 0);
            assertThat(out).containsEntry("theirs", "x");
            a.observed().ifPresent(o -> assertThat(o.annotations().get("n"))
                .isEqualTo(o.holderIdentity().substring(2)));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : all) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(a.annotationsForWrite(Map.of(), true)).hasSize(10).containsEntry("k9", Integer.toString(rounds - 1));
    assertThat(a.observed().orElseThrow().holderIdentity()).isEqualTo("h_" + (rounds - 1));
  }
}
