package io.berth.scheduler.apidispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ApiCacher.Outcome;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Many producers queue calls for few objects on a dispatcher with several threads: no write is
 * lost (every item added reaches an execution, directly or merged into a newer call), an object's
 * calls never run at the same time, each producer's writes to an object run in the order it made
 * them (the last run carrying any of a producer's writes carries its last one), and every
 * completion completes.
 */
class ApiDispatcherConcurrencyTest {
  private static final int PRODUCERS = 8;
  private static final int OBJECTS = 5;
  private static final int CALLS_PER_PRODUCER = 1_000;

  /** A call carrying items; a newer call absorbs the older one's (a patch merging a patch). */
  private static final class ItemsCall implements ApiCall {
    final String uid;
    final String type;
    // guarded by this
    final Set<Item> items = new java.util.HashSet<>();
    final Recorder recorder;

    ItemsCall(String uid, String type, Item item, Recorder recorder) {
      this.uid = uid;
      this.type = type;
      this.items.add(item);
      this.recorder = recorder;
    }

    @Override
    public String type() {
      return type;
    }

    @Override
    public String uid() {
      return uid;
    }

    @Override
    public void execute() {
      Set<Item> copy;
      synchronized (this) {
        copy = Set.copyOf(items);
      }
      recorder.run(uid, copy);
    }

    @Override
    public void mergeFrom(ApiCall older) {
      ItemsCall o = (ItemsCall) older;
      Set<Item> theirs;
      synchronized (o) {
        theirs = Set.copyOf(o.items);
      }
      synchronized (this) {
        items.addAll(theirs);
      }
    }

    @Override
    public Pod sync(Pod current) {
      return current;
    }

    @Override
    public boolean isNoOp() {
      return false;
    }
  }

  private record Item(int producer, int seq) { }

  /** What ran, per object, in order; and whether two calls for one object ever overlapped. */
  private static final class Recorder {
    final Map<String, List<Set<Item>>> runs = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    final AtomicInteger overlaps = new AtomicInteger();

    void run(String uid, Set<Item> items) {
      AtomicInteger n = inFlight.computeIfAbsent(uid, k -> new AtomicInteger());
      if (n.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
      // the list of one object is appended by one thread at a time when the dispatcher is right
      runs.computeIfAbsent(uid, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
          .add(items);
      Thread.yield();
      n.decrementAndGet();
    }
  }

  @Test
  void manyProducersLoseNothingAndKeepEachObjectsOrder() throws Exception {
    Recorder recorder = new Recorder();
    ApiDispatcher dispatcher = new ApiDispatcher(4, ApiDispatcherMetrics.NOOP);
    dispatcher.start();
    ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
    CyclicBarrier go = new CyclicBarrier(PRODUCERS);
    List<Future<List<CompletableFuture<Outcome>>>> results = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      results.add(producers.submit(() -> {
        go.await();
        List<CompletableFuture<Outcome>> out = new ArrayList<>(CALLS_PER_PRODUCER);
        for (int s = 0; s < CALLS_PER_PRODUCER; s++) {
          String uid = "pod-" + (s % OBJECTS);
          out.add(dispatcher.add(new ItemsCall(uid, ApiCalls.POD_STATUS_PATCH,
              new Item(producer, s), recorder)).toCompletableFuture());
        }
        return out;
      }));
    }
    List<CompletableFuture<Outcome>> all = new ArrayList<>();
    for (Future<List<CompletableFuture<Outcome>>> f : results) {
      all.addAll(f.get(60, TimeUnit.SECONDS));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    producers.shutdown();
    assertThat(dispatcher.close(Duration.ofSeconds(10))).isTrue();

    assertThat(recorder.overlaps).as("an object's calls ran at the same time").hasValue(0);
    Map<Outcome, Integer> outcomes = new HashMap<>();
    for (CompletableFuture<Outcome> f : all) {
      outcomes.merge(f.get(), 1, Integer::sum);
    }
    assertThat(outcomes).containsOnlyKeys(Outcome.EXECUTED, Outcome.OVERWRITTEN);
    assertThat(outcomes.get(Outcome.EXECUTED)).isEqualTo(
        recorder.runs.values().stream().mapToInt(List::size).sum());
    for (int o = 0; o < OBJECTS; o++) {
      String uid = "pod-" + o;
      List<Set<Item>> runs = recorder.runs.get(uid);
      Set<Item> seen = new java.util.HashSet<>();
      int[] highest = new int[PRODUCERS];
      java.util.Arrays.fill(highest, -1);
      for (Set<Item> run : runs) {
        seen.addAll(run);
        for (int p = 0; p < PRODUCERS; p++) {
          int producer = p;
          int max = run.stream().filter(i -> i.producer() == producer).mapToInt(Item::seq).max()
              .orElse(-1);
          if (max >= 0) {
            assertThat(max).as("producer %d's writes to %s ran out of order", p, uid)
                .isGreaterThanOrEqualTo(highest[p]);
            highest[p] = max;
          }
        }
      }
      Set<Item> expected = new TreeSet<>(java.util.Comparator.comparingInt(Item::producer)
          .thenComparingInt(Item::seq));
      for (int p = 0; p < PRODUCERS; p++) {
        for (int s = o; s < CALLS_PER_PRODUCER; s += OBJECTS) {
          expected.add(new Item(p, s));
        }
      }
      assertThat(seen).as("writes to %s lost", uid).containsExactlyInAnyOrderElementsOf(expected);
      for (int p = 0; p < PRODUCERS; p++) {
        int producer = p;
        int lastSeq = o + ((CALLS_PER_PRODUCER - 1 - o) / OBJECTS) * OBJECTS;
        Set<Item> lastWithP = runs.stream().filter(r -> r.stream()
            .anyMatch(i -> i.producer() == producer)).reduce((a, b) -> b).orElseThrow();
        assertThat(lastWithP).as("an older write of producer %d to %s ran after its last", p, uid)
            .contains(new Item(p, lastSeq));
      }
    }
  }
}
