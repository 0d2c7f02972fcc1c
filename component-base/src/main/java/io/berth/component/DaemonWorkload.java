package io.berth.component;

import java.time.Duration;

/**
 * The work a {@link Daemon} runs: the controllers of the controller manager, the scheduling loop of the scheduler.
 * The daemon calls, in order and each at most once: {@link #build} on the starting thread, before the informers
 * start; {@link #startWork()} once every informer has synced and this instance leads (or election is off); and
 * {@link #stopWork} when the daemon stops, whether or not work was started. Implementations are thread-safe: the
 * three calls come from different threads.
 */
public interface DaemonWorkload {

  /** The resync period of the shared informer factory's handlers; none by default. */
  default Duration informerResyncPeriod() {
    return Duration.ZERO;
  }

  /** Creates the components and registers their informers and handlers on {@code context.informers()}. */
  void build(DaemonContext context) throws Exception;

  /** Starts working (worker threads) and returns at once. */
  void startWork();

  /**
   * Stops taking new work (queues shut down with drain) and waits up to {@code timeout} for work in flight; a zero
   * timeout does not wait. Returns whether everything finished in time. Must also work if {@link #startWork()} was
   * never called.
   */
  boolean stopWork(Duration timeout) throws InterruptedException;
}
