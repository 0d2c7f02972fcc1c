package io.berth.scheduler.queue;

import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;

/** QueueSort for tests: higher spec.priority first, then earlier queue timestamp. Stateless. */
final class PrioritySortForTest implements QueueSortPlugin {
  @Override
  public String name() {
    return "TestPrioritySort";
  }

  @Override
  public boolean less(QueuedPodInfo a, QueuedPodInfo b) {
    int pa = priority(a);
    int pb = priority(b);
    return pa > pb || (pa == pb && a.timestamp().isBefore(b.timestamp()));
  }

  private static int priority(QueuedPodInfo p) {
    Integer v = p.pod().getSpec().getPriority();
    return v == null ? 0 : v;
  }
}
