package io.berth.plugins.queuesort;

import io.berth.framework.Handle;
import io.berth.framework.Plugin;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * The default QueueSort plugin, as kube-scheduler's {@code PrioritySort}: pods with a higher
 * {@code spec.priority} (absent means 0) come first; among equal priorities the pod added to the
 * queue earlier comes first. Stateless and thread-safe; the scheduling queue calls {@link #less}
 * under its lock.
 */
public final class PrioritySort implements QueueSortPlugin {
  public static final String NAME = "PrioritySort";

  private static final PrioritySort INSTANCE = new PrioritySort();

  private PrioritySort() {}

  /** The factory registered for {@link #NAME}; PrioritySort takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return INSTANCE;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean less(QueuedPodInfo a, QueuedPodInfo b) {
    int p1 = podPriority(a.pod());
    int p2 = podPriority(b.pod());
    return p1 > p2 || (p1 == p2 && a.timestamp().isBefore(b.timestamp()));
  }

  /** The pod's {@code spec.priority}, or 0 when it has none (as upstream's PodPriority). */
  public static int podPriority(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getPriority() == null) {
      return 0;
    }
    return pod.getSpec().getPriority();
  }
}
