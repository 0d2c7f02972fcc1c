package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.QueueingHint;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SchedulerPopFromBackoffQ (KEP-5142) through the whole queue: pop serves backoffQ's head when
 * activeQ is empty, never a pod backing off after an error; PreEnqueue runs on entry to backoffQ
 * and not when backoff completes; backoff ends at the window after the aligned expiry.
 */
class PopFromBackoffQTest {
  private final QueueFixture f = new QueueFixture();
  private final ExecutorService poppers = Executors.newCachedThreadPool();
  /** When set, the profile's PreEnqueue gates every pod. */
  private final AtomicBoolean hold = new AtomicBoolean();
  private final AtomicInteger preEnqueueCalls = new AtomicInteger();
  private SchedulingQueue queue;

  @BeforeEach
  void setUp() {
    f.popFromBackoffQ = true;
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE)
        .withPreEnqueue(pod -> {
          preEnqueueCalls.incrementAndGet();
          return hold.get() ? Status.unresolvable("held").withPlugin("Hold") : Status.SUCCESS;
        });
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (f.queue != null) {
      f.queue.close();
    }
    poppers.shutdownNow();
    assertThat(poppers.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /** Adds, pops and rejects the pod by Fit, then a NodeAdd moves it to backoffQ. */
  private void intoBackoffQ(String name, int priority) {
    f.addPopReject(TestPods.withPriority(name, priority), "Fit");
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    assertThat(f.where(name)).isEqualTo(QueueName.BACKOFF);
  }

  private QueuedPodInfo popAtOnce() throws Exception {
    return poppers.submit(() -> queue.pop().orElseThrow()).get(5, TimeUnit.SECONDS);
  }

  @Test
  void anEmptyActiveQServesBackoffQsHeadBeforeItsBackoffEnds() throws Exception {
    queue = f.build();
    intoBackoffQ("a", 0);

    QueuedPodInfo p = popAtOnce();

    assertThat(p.pod().getMetadata().getName()).isEqualTo("a");
    assertThat(p.attempts()).isEqualTo(2);
    assertThat(queue.backoffSize()).isZero();
    assertThat(queue.inFlightSize()).isEqualTo(1);
    assertThat(f.moves).endsWith("active:PopFromBackoffQ");
  }

  @Test
  void activeQIsServedBeforeBackoffQ() throws Exception {
    queue = f.build();
    intoBackoffQ("backingOff", 100);
    queue.add(TestPods.withPriority("active", 0));

    assertThat(popAtOnce().pod().getMetadata().getName()).isEqualTo("active");
    assertThat(popAtOnce().pod().getMetadata().getName()).isEqualTo("backingOff");
  }

  @Test
  void backoffQServesTheEarliestWindowThenTheHighestPriority() throws Exception {
    queue = f.build();
    f.clock.advance(Duration.ofMillis(100));
    intoBackoffQ("low", 1);
    f.clock.advance(Duration.ofMillis(500));
    intoBackoffQ("high", 9);
    f.clock.advance(Duration.ofSeconds(1));
    intoBackoffQ("nextWindow", 100);

    List<String> order = List.of(popAtOnce().pod().getMetadata().getName(),
        popAtOnce().pod().getMetadata().getName(), popAtOnce().pod().getMetadata().getName());

    assertThat(order).containsExactly("high", "low", "nextWindow");
  }

  @Test
  void aPodBackingOffAfterAnErrorIsNotPoppedEarly() throws Exception {
    queue = f.build();
    queue.add(TestPods.named("errored"));
    f.reject(f.popNow());
    assertThat(f.where("errored")).isEqualTo(QueueName.BACKOFF);

    Future<Optional<QueuedPodInfo>> popped = blockedPop();
    assertThat(popped).isNotDone();

    f.clock.advance(Duration.ofSeconds(2));
    queue.flushBackoffQCompleted();

    assertThat(popped.get(5, TimeUnit.SECONDS)).get()
        .extracting(p -> p.pod().getMetadata().getName()).isEqualTo("errored");
    assertThat(f.moves).contains("active:BackoffComplete").doesNotContain("active:PopFromBackoffQ");
  }

  @Test
  void aBlockedPopWakesWhenAPodEntersBackoffQ() throws Exception {
    queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");
    Future<Optional<QueuedPodInfo>> popped = blockedPop();

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);

    assertThat(popped.get(5, TimeUnit.SECONDS)).get()
        .extracting(p -> p.pod().getMetadata().getName()).isEqualTo("a");
  }

  @Test
  void aPodGatedByPreEnqueueNeverEntersBackoffQ() {
    queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null); // seen in flight
    hold.set(true);

    f.reject(p, "Fit");

    assertThat(f.where("a")).isEqualTo(QueueName.GATED);
    assertThat(queue.backoffSize()).isZero();
    assertThat(f.moves).endsWith("gated:ScheduleAttemptFailure");
  }

  @Test
  void backoffCompleteDoesNotRunPreEnqueueAgain() {
    queue = f.build();
    intoBackoffQ("a", 0);
    int callsOnEntry = preEnqueueCalls.get();
    hold.set(true);

    f.clock.advance(Duration.ofSeconds(2));
    queue.flushBackoffQCompleted();

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
    assertThat(preEnqueueCalls.get()).isEqualTo(callsOnEntry);
  }

  @Test
  void backoffEndsAtTheWindowAfterTheAlignedExpiry() {
    queue = f.build();
    f.clock.advance(Duration.ofMillis(300));
    intoBackoffQ("a", 0); // rejected at .3: expiry 1.3, aligned to 1.0

    f.clock.advance(Duration.ofMillis(1_600)); // 1.9: still in the expiry's window
    queue.flushBackoffQCompleted();
    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);

    f.clock.advance(Duration.ofMillis(100)); // 2.0: the next window
    queue.flushBackoffQCompleted();
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void activatingAPodThatPreEnqueueNowGatesTakesItOutOfBackoffQ() {
    queue = f.build();
    intoBackoffQ("a", 0);
    hold.set(true);

    queue.activate(List.of(TestPods.named("a")));

    assertThat(f.where("a")).isEqualTo(QueueName.GATED);
    assertThat(queue.backoffSize()).isZero();
  }

  @Test
  void withTheGateOffPopWaitsForTheBackoffToEnd() throws Exception {
    f.popFromBackoffQ = false;
    queue = f.build();
    intoBackoffQ("a", 0);
    hold.set(true);

    Future<Optional<QueuedPodInfo>> popped = blockedPop();
    assertThat(popped).isNotDone();
    f.clock.advance(Duration.ofSeconds(1));
    queue.flushBackoffQCompleted();

    assertThat(f.where("a")).as("PreEnqueue runs when backoff completes").isEqualTo(QueueName.GATED);
    assertThat(popped).isNotDone();
    assertThat(f.moves).doesNotContain("active:PopFromBackoffQ");
  }

  @Test
  void startFlushesBackoffQOnItsOwnThreadAtWholeSeconds() {
    queue = f.build();
    queue.add(TestPods.named("errored"));
    f.reject(f.popNow());
    f.clock.advance(Duration.ofSeconds(2));

    queue.start();

    await().atMost(Duration.ofSeconds(5)).until(() -> queue.activeSize() == 1);
    assertThat(f.moves).endsWith("active:BackoffComplete");
  }

  /** Starts a pop on a pool thread and returns once that thread is parked inside it. */
  private Future<Optional<QueuedPodInfo>> blockedPop() throws Exception {
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
