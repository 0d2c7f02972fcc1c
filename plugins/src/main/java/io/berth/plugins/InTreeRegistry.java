package io.berth.plugins;

import io.berth.framework.runtime.Registry;
import io.berth.plugins.defaultbinder.DefaultBinder;
import io.berth.plugins.noderesources.NodeResourcesFit;
import io.berth.plugins.queuesort.PrioritySort;

/**
 * The in-tree plugins: every plugin Berth ships, by upstream name. The one place plugins are
 * registered; the scheduler adds out-of-tree plugins found on the class path. Stateless.
 */
public final class InTreeRegistry {
  private InTreeRegistry() {}

  /** A new registry holding every in-tree plugin. */
  public static Registry create() {
    return new Registry()
        .register(PrioritySort.NAME, PrioritySort::create)
        .register(NodeResourcesFit.NAME, NodeResourcesFit::create)
        .register(DefaultBinder.NAME, DefaultBinder::create);
  }
}
