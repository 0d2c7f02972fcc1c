package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CycleStateTest {
  /** Mutable data whose copy must be independent. */
  static final class Counter implements StateData {
    final AtomicInteger value;

    Counter(int v) {
      value = new AtomicInteger(v);
    }

    @Override
    public StateData copy() {
      return new Counter(value.get());
    }
  }

  @Test
  void copyIsIndependentOfTheOriginal() {
    CycleState state = new CycleState();
    state.write("c", new Counter(1));
    state.skipFilterPlugins().add("X");
    CycleState copy = state.copy();
    state.readOrFail("c", Counter.class).value.set(5);
    state.skipFilterPlugins().add("Y");
    assertThat(copy.readOrFail("c", Counter.class).value.get()).isEqualTo(1);
    assertThat(copy.skipFilterPlugins()).containsExactly("X");
    assertThat(copy.read("missing", Counter.class)).isEmpty();
  }

  @Test
  void concurrentReadersAndWritersSeeConsistentEntries() throws Exception {
    CycleState state = new CycleState();
    Thread[] threads = new Thread[8];
    for (int t = 0; t < threads.length; t++) {
      int id = t;
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 500; i++) {
          state.write("k" + id + "-" + i, new Counter(i));
          assertThat(state.readOrFail("k" + id + "-" + i, Counter.class).value.get()).isEqualTo(i);
          if (i % 100 == 0) {
            state.copy();
          }
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    for (int t = 0; t < threads.length; t++) {
      assertThat(state.read("k" + t + "-499", Counter.class)).isPresent();
    }
  }

  /**
   * Copies taken while a writer adds keys each hold a whole earlier state: every key written before the highest one
   * they hold, every mutable value copied (not shared with the original), the immutable ones shared.
   */
  @Test
  void copiesTakenDuringWritesHoldAWholeEarlierState() throws Exception {
    CycleState state = new CycleState();
    Fixed shared = new Fixed(0);
    state.write("fixed", shared);
    int keys = 2_000;
    java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    Thread writer = new Thread(() -> {
      try {
        go.await();
        for (int i = 0; i < keys; i++) {
          state.write("k" + i, new Counter(i));
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    });
    Thread[] copiers = new Thread[4];
    for (int t = 0; t < copiers.length; t++) {
      copiers[t] = new Thread(() -> {
        try {
          go.await();
          for (int n = 0; n < 300; n++) {
            CycleState copy = state.copy();
            assertThat(copy.readOrElse("fixed", Fixed.class, null)).isSameAs(shared);
            int highest = -1;
            for (int i = keys - 1; i >= 0 && highest < 0; i--) {
              if (copy.read("k" + i, Counter.class).isPresent()) {
                highest = i;
              }
            }
            for (int i = 0; i <= highest; i++) {
              Counter c = copy.readOrFail("k" + i, Counter.class);
              assertThat(c.value.get()).isEqualTo(i);
              assertThat(c).isNotSameAs(state.readOrFail("k" + i, Counter.class));
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      });
      copiers[t].start();
    }
    writer.start();
    go.countDown();
    writer.join();
    for (Thread t : copiers) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    CycleState last = state.copy();
    assertThat(last.readOrFail("k" + (keys - 1), Counter.class).value.get()).isEqualTo(keys - 1);
  }

  /** Immutable data: its copy is itself. */
  record Fixed(int value) implements StateData {
    @Override
    public StateData copy() {
      return this;
    }
  }

  @Test
  void readOrElseGivesTheValueOfTheTypeOrTheDefault() {
    CycleState state = new CycleState();
    Fixed fallback = new Fixed(-1);
    assertThat(state.readOrElse("f", Fixed.class, fallback)).isSameAs(fallback);
    Fixed fixed = new Fixed(3);
    state.write("f", fixed);
    assertThat(state.readOrElse("f", Fixed.class, fallback)).isSameAs(fixed);
    // another type under the key reads as absent, as read() does
    assertThat(state.readOrElse("f", Counter.class, null)).isNull();
    state.delete("f");
    assertThat(state.readOrElse("f", Fixed.class, null)).isNull();
  }

  @Test
  void aCopySharesImmutableValuesButNotLaterWrites() {
    CycleState state = new CycleState();
    Fixed fixed = new Fixed(7);
    state.write("f", fixed);
    state.write("c", new Counter(1));
    CycleState copy = state.copy();
    assertThat(copy.readOrFail("f", Fixed.class)).isSameAs(fixed);
    assertThat(copy.readOrFail("c", Counter.class))
        .isNotSameAs(state.readOrFail("c", Counter.class));
    copy.write("only-copy", new Fixed(1));
    copy.delete("f");
    copy.skipScorePlugins().add("S");
    assertThat(state.read("only-copy", Fixed.class)).isEmpty();
    assertThat(state.read("f", Fixed.class)).contains(fixed);
    assertThat(state.skipScorePlugins()).isEmpty();
    assertThat(copy.skipScorePlugins()).containsExactly("S");
  }

  @Test
  void concurrentAddsToAPluginSetAreAllKept() throws Exception {
    CycleState state = new CycleState();
    Thread[] threads = new Thread[8];
    for (int t = 0; t < threads.length; t++) {
      int id = t;
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 200; i++) {
          state.skipFilterPlugins().add("p" + id + "-" + i);
          assertThat(state.skipFilterPlugins().contains("p" + id + "-" + i)).isTrue();
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(state.skipFilterPlugins()).hasSize(1600);
    assertThat(state.copy().skipFilterPlugins()).hasSize(1600);
  }

  @Test
  void theSkipFilterSnapshotIsOneUnmodifiableInstanceUntilTheSetChanges() {
    CycleState state = new CycleState();
    Set<String> empty = state.skipFilterPluginsSnapshot();
    assertThat(empty).isEmpty();
    state.skipFilterPlugins().add("X");
    Set<String> withX = state.skipFilterPluginsSnapshot();
    assertThat(withX).containsExactly("X").isNotSameAs(empty);
    assertThat(state.skipFilterPluginsSnapshot()).isSameAs(withX);
    assertThat(state.copy().skipFilterPluginsSnapshot()).isSameAs(withX);
    state.skipFilterPlugins().add("X"); // already there: no change
    assertThat(state.skipFilterPluginsSnapshot()).isSameAs(withX);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> withX.add("Y"))
        .isInstanceOf(UnsupportedOperationException.class);
    state.skipFilterPlugins().remove("X");
    assertThat(state.skipFilterPluginsSnapshot()).isEmpty();
    assertThat(withX).containsExactly("X");
  }
}
