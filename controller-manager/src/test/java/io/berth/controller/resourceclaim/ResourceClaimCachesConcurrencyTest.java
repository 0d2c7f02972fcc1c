package io.berth.controller.resourceclaim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link DeletedPods} and {@link CreatedClaims} under many threads, as the informer handlers and workers use them. */
class ResourceClaimCachesConcurrencyTest {

  private static final int THREADS = 8;
  private static final int PER_THREAD = 1_000;

  private static void race(ExecutorService pool, java.util.function.IntConsumer body) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      futures.add(pool.submit(() -> {
        start.await();
        body.accept(thread);
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
  }

  /** A cheap check for the hot loops (AssertJ there would dominate the run time). */
  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError(what);
    }
  }

  @Test
  void deletedPodsStayBoundedAndKeepTheNewestUids() throws Exception {
    DeletedPods deleted = new DeletedPods(100);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      race(pool, thread -> {
        for (int i = 0; i < PER_THREAD; i++) {
          deleted.add("uid-" + thread + "-" + i);
          deleted.contains("uid-" + thread + "-" + (i / 2));
          check(deleted.size() <= 100, "bounded");
        }
      });
    } finally {
      pool.shutdownNow();
    }
    assertThat(deleted.size()).isEqualTo(100);
    // After the race the structure still evicts in insertion order: 100 fresh UIDs push every raced one out.
    for (int i = 0; i < 100; i++) {
      deleted.add("fresh-" + i);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(deleted.contains("fresh-" + i)).isTrue();
    }
    for (int t = 0; t < THREADS; t++) {
      assertThat(deleted.contains("uid-" + t + "-" + (PER_THREAD - 1))).isFalse();
    }
  }

  private static ResourceClaim claim(String uid, String podClaim) {
    return new ResourceClaimBuilder().withNewMetadata().withName("c-" + uid).withNamespace("default").withUid(uid)
        .withAnnotations(Map.of(PodClaims.POD_CLAIM_NAME_ANNOTATION, podClaim)).endMetadata().build();
  }

  @Test
  void createdClaimsAreFoundUntilObservedAndNeverLostOrDuplicated() throws Exception {
    CreatedClaims created = new CreatedClaims();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      race(pool, thread -> {
        for (int i = 0; i < PER_THREAD; i++) {
          String pod = "pod-" + thread + "-" + i;
          ResourceClaim c = claim("claim-" + thread + "-" + i, "gpus");
          created.add(pod, c);
          check(created.find(pod, "gpus").orElse(null) == c, "found until observed");
          check(created.find(pod, "other").isEmpty(), "matched by the pod claim name");
          if (i % 2 == 0) {
            created.observed(c);
            check(created.find(pod, "gpus").isEmpty(), "forgotten once observed");
          } else if (i % 3 == 0) {
            created.podDeleted(pod);
          }
        }
      });
    } finally {
      pool.shutdownNow();
    }
    // Odd i not divisible by 3 remain.
    long remaining = java.util.stream.IntStream.range(0, PER_THREAD).filter(i -> i % 2 == 1 && i % 3 != 0).count();
    assertThat(created.size()).isEqualTo(THREADS * (int) remaining);
  }
}
