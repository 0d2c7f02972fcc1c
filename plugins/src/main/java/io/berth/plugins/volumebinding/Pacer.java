package io.berth.plugins.volumebinding;

import java.time.Duration;

/**
 * Time for PreBind's wait loop: a monotonic clock and a way to pause, so that tests can run the
 * loop against a manual clock instead of sleeping. Implementations must be thread-safe.
 */
interface Pacer {
  /** The real clock and {@link Thread#sleep}. */
  Pacer SYSTEM = new Pacer() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(Duration d) throws InterruptedException {
      Thread.sleep(d.toMillis());
    }
  };

  long nanoTime();

  void sleep(Duration d) throws InterruptedException;
}
