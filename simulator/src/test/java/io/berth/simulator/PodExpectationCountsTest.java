package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.simulator.scenario.PodExpectation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PodExpectationCountsTest {

  private static final PodExpectation BATCH_RUNNING = new PodExpectation("workloads", Map.of("app", "batch"),
      Optional.of("Running"), Optional.empty(), 3);
  private static final PodExpectation WEB_ON_A_NODE = new PodExpectation("workloads", Map.of("app", "web"),
      Optional.empty(), Optional.of(true), 2);
  private static final PodExpectation ANY_PENDING_UNBOUND = new PodExpectation("workloads", Map.of(),
      Optional.of("Pending"), Optional.of(false), 0);
  private static final List<PodExpectation> ALL = List.of(BATCH_RUNNING, WEB_ON_A_NODE, ANY_PENDING_UNBOUND);

  private static Pod pod(String ns, String name, String app, String node, String phase, boolean deleting, int rv) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name)
        .withResourceVersion(String.valueOf(rv)).endMetadata()
        .withNewSpec().withNodeName(node).endSpec();
    if (app != null) {
      b.editMetadata().withLabels(Map.of("app", app)).endMetadata();
    }
    if (deleting) {
      b.editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata();
    }
    if (phase != null) {
      b.withNewStatus().withPhase(phase).endStatus();
    }
    return b.build();
  }

  /* What the scenario run counted before: a filter over every pod, written out independently of the counter. */
  private static long scan(PodExpectation e, Iterable<Pod> pods) {
    long n = 0;
    for (Pod p : pods) {
      Map<String, String> labels = p.getMetadata().getLabels();
      boolean labelled = e.labels().entrySet().stream()
          .allMatch(w -> labels != null && w.getValue().equals(labels.get(w.getKey())));
      if (e.namespace().equals(p.getMetadata().getNamespace()) && labelled
          && p.getMetadata().getDeletionTimestamp() == null
          && e.phase().map(ph -> p.getStatus() != null && ph.equals(p.getStatus().getPhase())).orElse(true)
          && e.scheduled().map(s -> s == (p.getSpec().getNodeName() != null)).orElse(true)) {
        n++;
      }
    }
    return n;
  }

  @Test
  void eachEventReplacesThePodsPreviousContribution() {
    PodExpectationCounts counts = new PodExpectationCounts(ALL);
    Pod pending = pod("workloads", "b-0", "batch", null, "Pending", false, 1);
    counts.onAdd(pending, true);
    assertThat(counts.count(0)).isZero();
    assertThat(counts.count(2)).isEqualTo(1);

    Pod running = pod("workloads", "b-0", "batch", "n1", "Running", false, 2);
    counts.onUpdate(pending, running);
    assertThat(counts.count(0)).isEqualTo(1);
    assertThat(counts.count(2)).isZero();

    counts.onAdd(pod("workloads", "w-0", "web", "n1", "Pending", false, 3), false);
    counts.onAdd(pod("elsewhere", "w-1", "web", "n1", "Running", false, 4), false);
    assertThat(counts.count(1)).as("only workloads counts").isEqualTo(1);

    Pod terminating = pod("workloads", "b-0", "batch", "n1", "Running", true, 5);
    counts.onUpdate(running, terminating);
    assertThat(counts.count(0)).as("a terminating pod no longer counts").isZero();
  }

  @Test
  void aDeletionTakesAwayWhatThePodsLastSeenStateAddedWhateverTheDeletedObjectCarries() {
    PodExpectationCounts counts = new PodExpectationCounts(ALL);
    counts.onAdd(pod("workloads", "b-0", "batch", "n1", "Running", false, 1), false);
    counts.onAdd(pod("workloads", "b-1", "batch", "n1", "Running", false, 1), false);
    assertThat(counts.count(0)).isEqualTo(2);
    // the server's final state of a deleted pod is terminal and terminating: it met nothing, yet it counted
    counts.onDelete(pod("workloads", "b-0", "batch", "n1", "Succeeded", true, 2), false);
    assertThat(counts.count(0)).isEqualTo(1);
    counts.onDelete(pod("workloads", "b-0", "batch", "n1", "Running", false, 2), true);
    assertThat(counts.count(0)).as("a second deletion of the same pod changes nothing").isEqualTo(1);
  }

  @Test
  void moreThanSixtyFourExpectationsAreRefused() {
    assertThatThrownBy(() -> new PodExpectationCounts(Collections.nCopies(65, BATCH_RUNNING)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /*
   * Random adds, updates and deletions of pods as an informer reports them: after every event each count equals
   * the old filter over the pods then in the cache.
   */
  @Test
  void theCountsEqualAFilterOverTheCachedPodsAfterEveryEvent() {
    PodExpectationCounts counts = new PodExpectationCounts(ALL);
    Map<String, Pod> cache = new HashMap<>();
    Random random = new Random(16);
    for (int rv = 1; rv <= 5_000; rv++) {
      String name = "p-" + random.nextInt(60);
      String key = name;
      Pod old = cache.get(key);
      if (old != null && random.nextInt(8) == 0) {
        cache.remove(key);
        counts.onDelete(randomPod(random, name, rv), random.nextBoolean());
      } else {
        Pod now = randomPod(random, name, rv);
        cache.put(key, now);
        if (old == null) {
          counts.onAdd(now, false);
        } else {
          counts.onUpdate(old, now);
        }
      }
      for (int i = 0; i < ALL.size(); i++) {
        assertThat(counts.count(i)).as("expectation %d after event %d", i, rv).isEqualTo(scan(ALL.get(i),
            cache.values()));
      }
    }
  }

  /** A random state of pod {@code name}; its namespace is fixed by its name, as an informer key's is. */
  private static Pod randomPod(Random random, String name, int rv) {
    String ns = name.endsWith("7") ? "elsewhere" : "workloads";
    String app = List.of("batch", "web", "other").get(random.nextInt(3));
    String node = random.nextBoolean() ? "n" + random.nextInt(3) : null;
    String phase = random.nextInt(5) == 0 ? null : List.of("Pending", "Running", "Succeeded").get(random.nextInt(3));
    return pod(ns, name, random.nextInt(10) == 0 ? null : app, node, phase, random.nextInt(10) == 0, rv);
  }

  /*
   * One thread delivers events (as the informer's handler thread does) while another reads the counts: no read
   * sees a count below zero or above the number of pods, and at the end the counts equal the filter.
   */
  @Test
  void readsWhileTheHandlerWritesStayWithinBoundsAndEndExact() throws Exception {
    PodExpectationCounts counts = new PodExpectationCounts(ALL);
    int podCount = 200;
    Map<String, Pod> cache = new HashMap<>(); // confined to the writer until it is joined
    ExecutorService pool = Executors.newFixedThreadPool(2);
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger badReads = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    try {
      Future<?> writer = pool.submit(() -> {
        go.await();
        Random random = new Random(3);
        for (int rv = 1; rv <= 50_000; rv++) {
          String name = "p-" + random.nextInt(podCount);
          Pod old = cache.get(name);
          Pod now = randomPod(random, name, rv);
          if (old != null && random.nextInt(8) == 0) {
            cache.remove(name);
            counts.onDelete(now, false);
          } else if (old == null) {
            cache.put(name, now);
            counts.onAdd(now, false);
          } else {
            cache.put(name, now);
            counts.onUpdate(old, now);
          }
        }
        writing.set(false);
        return null;
      });
      Future<?> reader = pool.submit(() -> {
        go.await();
        while (writing.get()) {
          for (int i = 0; i < ALL.size(); i++) {
            long c = counts.count(i);
            if (c < 0 || c > podCount) {
              badReads.incrementAndGet();
            }
          }
          reads.incrementAndGet();
        }
        return null;
      });
      go.countDown();
      writer.get(60, TimeUnit.SECONDS);
      reader.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(reads.get()).isPositive();
    assertThat(badReads.get()).isZero();
    List<Pod> finalPods = new ArrayList<>(cache.values());
    for (int i = 0; i < ALL.size(); i++) {
      assertThat(counts.count(i)).isEqualTo(scan(ALL.get(i), finalPods));
    }
  }
}
