package io.berth.plugins.schedulinggates;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.Handle;
import io.berth.framework.Plugin;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * PreEnqueue plugin keeping pods with {@code spec.schedulingGates} out of activeQ, as
 * kube-scheduler's {@code SchedulingGates}: a gated pod is rejected with
 * UnschedulableAndUnresolvable "waiting for scheduling gates: [a b]" and requeued when an update
 * removes its last gate. Stateless and thread-safe; the scheduling queue calls it under its lock.
 */
public final class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  public static final String NAME = "SchedulingGates";

  private static final SchedulingGates INSTANCE = new SchedulingGates();

  private SchedulingGates() {}

  /** The factory registered for {@link #NAME}; SchedulingGates takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return INSTANCE;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status preEnqueue(Pod pod) {
    List<PodSchedulingGate> gates = pod.getSpec() == null ? null
        : pod.getSpec().getSchedulingGates();
    if (gates == null || gates.isEmpty()) {
      return Status.SUCCESS;
    }
    List<String> names = new ArrayList<>(gates.size());
    for (PodSchedulingGate gate : gates) {
      names.add(gate.getName());
    }
    // Go's %v of a []string: "[a b]"
    return Status.unresolvable("waiting for scheduling gates: [" + String.join(" ", names) + "]");
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(new ClusterEventWithHint(
        new ClusterEvent(EventResource.UNSCHEDULED_POD,
            ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
        SchedulingGates::isSchedulableAfterGatesEliminated));
  }

  /** Only the gated pod's own update can release it, and only once no gate is left. */
  static QueueingHint isSchedulableAfterGatesEliminated(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Pod modified)) {
      return QueueingHint.QUEUE;
    }
    if (!Objects.equals(uid(pod), uid(modified))) {
      return QueueingHint.QUEUE_SKIP;
    }
    List<PodSchedulingGate> gates = modified.getSpec() == null ? null
        : modified.getSpec().getSchedulingGates();
    return gates == null || gates.isEmpty() ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  private static String uid(Pod pod) {
    return pod.getMetadata() == null ? null : pod.getMetadata().getUid();
  }
}
