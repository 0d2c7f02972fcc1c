package io.berth.component;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An {@link Exiter} that records exit statuses instead of ending the JVM, for hosting a daemon inside another
 * process (tests, the simulator): the host reads what the daemon would have exited with. Thread-safe: the list is
 * concurrent and the latch is released by the first status.
 */
public final class RecordingExiter implements Exiter {

  private final List<Integer> statuses = new CopyOnWriteArrayList<>();
  private final CountDownLatch first = new CountDownLatch(1);

  @Override
  public void exit(int status) {
    statuses.add(status);
    first.countDown();
  }

  /** The statuses recorded so far, oldest first. */
  public List<Integer> statuses() {
    return List.copyOf(statuses);
  }

  /**
   * Waits up to 30 s until a status was recorded and returns them all.
   *
   * @throws IllegalStateException if none came in time
   */
  public List<Integer> awaitStatuses() throws InterruptedException {
    if (!first.await(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("no exit status was recorded within 30 s");
    }
    return statuses();
  }
}
