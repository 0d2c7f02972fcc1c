package io.berth.simulator.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventBufferTest {

  private static long add(EventBuffer b, String message) {
    return b.append(Instant.EPOCH, "Normal", "Test", "pod/x", message, "test");
  }

  @Test
  void keepsTheNewestCapacityEventsNumberedInOrder() {
    EventBuffer b = new EventBuffer(3);
    for (int i = 1; i <= 5; i++) {
      assertThat(add(b, "m" + i)).isEqualTo(i);
    }
    assertThat(b.after(0, 10)).extracting(EventBuffer.Entry::message).containsExactly("m3", "m4", "m5");
    assertThat(b.after(3, 10)).extracting(EventBuffer.Entry::seq).containsExactly(4L, 5L);
    assertThat(b.after(3, 1)).extracting(EventBuffer.Entry::seq).containsExactly(4L);
    assertThat(b.after(5, 10)).isEmpty();
    assertThat(b.lastSeq()).isEqualTo(5);
  }

  @Test
  void awaitAfterReturnsEmptyWhenNothingCameInTime() throws Exception {
    EventBuffer b = new EventBuffer(4);
    add(b, "old");
    assertThat(b.awaitAfter(1, 10, Duration.ofMillis(20))).isEmpty();
  }

  @Test
  void aWaitingReaderWakesForAnAppend() throws Exception {
    EventBuffer b = new EventBuffer(4);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<List<EventBuffer.Entry>> read = pool.submit(() -> b.awaitAfter(0, 10, Duration.ofSeconds(30)));
      add(b, "hello");
      assertThat(read.get(30, TimeUnit.SECONDS)).extracting(EventBuffer.Entry::message).containsExactly("hello");
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Four writers and four streaming readers at once: every reader sees strictly increasing numbers, nothing twice,
   * and, with room for everything, every event exactly once.
   */
  @Test
  void concurrentWritersAndStreamingReadersSeeEveryEventOnceInOrder() throws Exception {
    int writers = 4;
    int perWriter = 2_000;
    int total = writers * perWriter;
    EventBuffer b = new EventBuffer(total);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 4);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<Long>>> readers = new ArrayList<>();
    ConcurrentLinkedQueue<Long> written = new ConcurrentLinkedQueue<>();
    try {
      for (int r = 0; r < 4; r++) {
        readers.add(pool.submit(() -> {
          start.await();
          List<Long> seen = new ArrayList<>();
          long last = 0;
          while (seen.size() < total) {
            for (EventBuffer.Entry e : b.awaitAfter(last, 97, Duration.ofSeconds(30))) {
              assertThat(e.seq()).isGreaterThan(last);
              last = e.seq();
              seen.add(e.seq());
            }
          }
          return seen;
        }));
      }
      List<Future<?>> writing = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int id = w;
        writing.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perWriter; i++) {
            written.add(add(b, id + ":" + i));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : writing) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertThat(written).doesNotHaveDuplicates().hasSize(total);
      for (Future<List<Long>> f : readers) {
        List<Long> seen = f.get(60, TimeUnit.SECONDS);
        assertThat(seen).hasSize(total).doesNotHaveDuplicates().isSorted();
      }
      // each writer's own events keep their order in the stream
      for (int w = 0; w < writers; w++) {
        String prefix = w + ":";
        List<Integer> order = b.after(0, total).stream().map(EventBuffer.Entry::message)
            .filter(m -> m.startsWith(prefix)).map(m -> Integer.parseInt(m.substring(prefix.length()))).toList();
        assertThat(order).hasSize(perWriter).isSorted();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
