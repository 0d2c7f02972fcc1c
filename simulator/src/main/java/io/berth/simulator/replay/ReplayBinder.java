package io.berth.simulator.replay;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The replay's {@code DefaultBinder}: registered under that name, so that any configuration's
 * binder binds in the {@link ReplayStore} instead of POSTing {@code pods/binding}, and tells the
 * run when (on the simulated clock) each pod was bound. Thread-safe: the store is, and the
 * listener must be (binding threads call it).
 */
final class ReplayBinder implements BindPlugin {
  /** Told of each binding. */
  interface Listener {
    void bound(Pod pod, String node);
  }

  private final ReplayStore store;
  private final Listener listener;

  ReplayBinder(ReplayStore store, Listener listener) {
    this.store = store;
    this.listener = listener;
  }

  @Override
  public String name() {
    return io.berth.plugins.defaultbinder.DefaultBinder.NAME;
  }

  @Override
  public Status bind(CycleState state, Pod pod, String nodeName) {
    if (!store.bind(pod, nodeName)) {
      return Status.error("binding pod " + ReplayStore.key(pod) + " to node " + nodeName
          + ": the pod no longer exists");
    }
    listener.bound(pod, nodeName);
    return Status.SUCCESS;
  }
}
