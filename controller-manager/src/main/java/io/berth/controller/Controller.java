package io.berth.controller;

import java.time.Duration;

/**
 * One controller of the controller manager (kube-controller-manager's {@code replicaset}, {@code deployment}).
 *
 * <p>Lifecycle, driven by the daemon: the controller is created by its {@link ControllerFactory} before the shared
 * informers start (that is when it asks the {@link ControllerContext}'s informer factory for the informers it needs
 * and registers its event handlers); once the informers have synced and this instance leads, {@link #start(int)}
 * starts its workers; on shutdown {@link #shutDown(Duration)} stops taking work and waits for in-flight syncs.
 * Implementations are thread-safe: start and shutDown may be called from any thread, once each.
 */
public interface Controller {

  /** The name used by {@code --controllers} ({@code replicaset}, {@code deployment}). */
  String name();

  /** Starts {@code workers} worker threads and returns at once. */
  void start(int workers);

  /**
   * Stops taking new work (the queue shuts down with drain) and waits up to {@code timeout} for in-flight syncs.
   * Returns whether everything finished in time. A zero timeout means: stop taking work and return at once (the
   * daemon does this when it loses the leader Lease, then exits). May be called without {@link #start(int)} having
   * been called (the daemon stopped before this instance led): then it only shuts the queue down and returns true.
   */
  boolean shutDown(Duration timeout) throws InterruptedException;
}
