package io.berth.controller.replicaset;

import io.berth.controller.Controller;
import io.berth.controller.ControllerContext;
import io.berth.controller.ControllerFactory;

/**
 * Creates the {@link ReplicaSetController} and carries its worker count, {@code --concurrent-replicaset-syncs}
 * (default {@value #DEFAULT_CONCURRENT_SYNCS}), for the daemon to pass to {@link Controller#start}. Immutable.
 */
public final class ReplicaSetControllerFactory implements ControllerFactory {

  /** kube-controller-manager's default for {@code --concurrent-replicaset-syncs}. */
  public static final int DEFAULT_CONCURRENT_SYNCS = 5;

  private final int concurrentSyncs;

  public ReplicaSetControllerFactory() {
    this(DEFAULT_CONCURRENT_SYNCS);
  }

  /** A factory for controllers meant to run {@code concurrentSyncs} workers. */
  public ReplicaSetControllerFactory(int concurrentSyncs) {
    if (concurrentSyncs < 1) {
      throw new IllegalArgumentException("--concurrent-replicaset-syncs must be at least 1, got " + concurrentSyncs);
    }
    this.concurrentSyncs = concurrentSyncs;
  }

  /** The worker count to start the controller with. */
  public int concurrentSyncs() {
    return concurrentSyncs;
  }

  @Override
  public Controller create(ControllerContext context) {
    return new ReplicaSetController(context);
  }
}
