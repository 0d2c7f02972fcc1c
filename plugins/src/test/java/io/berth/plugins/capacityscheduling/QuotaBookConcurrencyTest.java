package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.capacityscheduling.QuotaFixtures.charge;
import static io.berth.plugins.capacityscheduling.QuotaFixtures.cpuQuota;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The book shared by the scheduling thread (Reserve), binding threads (Unreserve) and the informer (the same pods
 * reported again): charges and releases from many threads, with duplicate reports, sum up exactly, and every
 * snapshot read meanwhile is internally consistent (its summed used equals its quotas' used).
 */
class QuotaBookConcurrencyTest {
  private static final int THREADS = 8;
  private static final int PODS_PER_THREAD = 2000;

  @Test
  void concurrentChargesDuplicatesAndReleasesSumUpExactlyAndSnapshotsStayConsistent() throws Exception {
    QuotaBook book = new QuotaBook();
    book.putQuota(cpuQuota("a", 4, null));
    book.putQuota(cpuQuota("b", 4, null));
    ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
    CyclicBarrier start = new CyclicBarrier(THREADS + 1);
    AtomicBoolean done = new AtomicBoolean();
    List<Future<?>> writers = new ArrayList<>();
    try {
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        writers.add(pool.submit(() -> {
          start.await();
          String ns = thread % 2 == 0 ? "a" : "b";
          for (int i = 0; i < PODS_PER_THREAD; i++) {
            PodCharge c = charge(ns, "t" + thread + "-" + i, 100, 0, i % 3 == 0);
            book.charge(c);
            book.charge(c); // the informer reports the pod again
            if (i % 2 == 1) {
              book.release(ns, c.uid()); // Unreserve or deletion
              book.release(ns, c.uid());
            }
          }
          return null;
        }));
      }
      Future<Integer> reader = pool.submit(() -> {
        start.await();
        int reads = 0;
        while (!done.get()) {
          QuotaSnapshot s = book.snapshot();
          long sum = 0;
          for (QuotaSnapshot.View v : s.views().values()) {
            sum += Amounts.get(v.used(), "cpu");
            assertThat(Amounts.get(v.guaranteed(), "cpu")).isLessThanOrEqualTo(Amounts.get(v.used(), "cpu"));
          }
          assertThat(s.sumUsed("cpu")).isEqualTo(sum);
          reads++;
        }
        return reads;
      });
      for (Future<?> w : writers) {
        w.get();
      }
      done.set(true);
      assertThat(reader.get()).isPositive();
    } finally {
      pool.shutdownNow();
    }
    // each thread keeps the even-numbered half: 1000 pods of 100m; four threads per namespace
    long perNamespace = 4L * (PODS_PER_THREAD / 2) * 100;
    assertThat(book.used("a")).containsEntry("cpu", perNamespace);
    assertThat(book.used("b")).containsEntry("cpu", perNamespace);
    assertThat(book.snapshot().sumUsed("cpu")).isEqualTo(2 * perNamespace);
    // kept pods with i % 3 == 0 are preemptible: i even and divisible by 3, i.e. i % 6 == 0
    long preemptiblePerThread = (PODS_PER_THREAD + 5) / 6 * 100;
    assertThat(book.snapshot().view("a").orElseThrow().guaranteed())
        .containsEntry("cpu", perNamespace - 4 * preemptiblePerThread);
  }
}
