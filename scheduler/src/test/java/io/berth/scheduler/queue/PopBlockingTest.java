package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PopBlockingTest {
  private final QueueFixture f = new QueueFixture();
  private final ExecutorService poppers = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws InterruptedException {
    if (f.queue != null) {
      f.queue.close();
    }
    poppers.shutdownNow();
    assertThat(poppers.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void popBlocksUntilAPodIsAdded() throws Exception {
    SchedulingQueue queue = f.build();
    Future<Optional<QueuedPodInfo>> popped = blockedPop(queue);
    assertThat(popped).isNotDone();

    queue.add(TestPods.named("a"));

    Optional<QueuedPodInfo> result = popped.get(5, TimeUnit.SECONDS);
    assertThat(result).get().extracting(p -> p.pod().getMetadata().getName()).isEqualTo("a");
  }

  @Test
  void popReturnsEmptyOnceClosed() throws Exception {
    SchedulingQueue queue = f.build();
    queue.close();

    assertThat(queue.pop()).isEmpty();
  }

  @Test
  void closeWakesEveryBlockedPop() throws Exception {
    SchedulingQueue queue = f.build();
    Future<Optional<QueuedPodInfo>> first = blockedPop(queue);
    Future<Optional<QueuedPodInfo>> second = blockedPop(queue);

    queue.close();

    assertThat(first.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(second.get(5, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void closedQueueStillHandsOutPodsAlreadyActive() throws Exception {
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    queue.close();

    assertThat(queue.pop()).isPresent();
    assertThat(queue.pop()).isEmpty();
  }

  @Test
  void startFlushesBackoffQOnItsOwnThread() {
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    f.reject(f.popNow());
    f.clock.advance(Duration.ofSeconds(1));

    queue.start();

    await().atMost(Duration.ofSeconds(5)).until(() -> queue.activeSize() == 1);
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void interruptedPopThrows() throws Exception {
    SchedulingQueue queue = f.build();
    CompletableFuture<Thread> popper = new CompletableFuture<>();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    poppers.submit(() -> {
      popper.complete(Thread.currentThread());
      try {
        queue.pop();
        outcome.complete(null);
      } catch (Throwable e) {
        outcome.complete(e);
      }
    });
    Thread t = popper.get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> t.getState() == Thread.State.WAITING);

    t.interrupt();

    assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }

  /** Starts a pop on a pool thread and returns once that thread is parked inside it. */
  private Future<Optional<QueuedPodInfo>> blockedPop(SchedulingQueue queue) throws Exception {
    CompletableFuture<Thread> popper = new CompletableFuture<>();
    Future<Optional<QueuedPodInfo>> popped = poppers.submit(() -> {
      popper.complete(Thread.currentThread());
      return queue.pop();
    });
    Thread t = popper.get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> t.getState() == Thread.State.WAITING);
    return popped;
  }
}
