package io.berth.scheduler.queue;

import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.QueueingHintFn;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A {@link QueueProfile} for tests: an optional PreEnqueue function and hand-made registrations.
 * Configure before building the queue; then read-only (thread-safe).
 */
final class FakeProfile implements QueueProfile {
  /** The PreEnqueue plugin that gates pods with spec.schedulingGates, as upstream names it. */
  static final String SCHEDULING_GATES = "SchedulingGates";

  private Function<Pod, Status> preEnqueue = pod -> Status.SUCCESS;
  private final Map<String, List<ClusterEventWithHint>> registrations = new HashMap<>();

  /** Gates pods that have scheduling gates, as the SchedulingGates plugin does. */
  FakeProfile withSchedulingGates() {
    return withPreEnqueue(pod -> pod.getSpec().getSchedulingGates() == null
        || pod.getSpec().getSchedulingGates().isEmpty()
        ? Status.SUCCESS
        : Status.unresolvable("waiting for scheduling gates").withPlugin(SCHEDULING_GATES));
  }

  FakeProfile withPreEnqueue(Function<Pod, Status> fn) {
    this.preEnqueue = fn;
    return this;
  }

  FakeProfile register(String plugin, ClusterEvent event, QueueingHintFn hint) {
    registrations.computeIfAbsent(plugin, p -> new ArrayList<>())
        .add(new ClusterEventWithHint(event, hint));
    return this;
  }

  /** The plugin registers for nothing: only wildcard events move pods it rejected. */
  FakeProfile registerNothing(String plugin) {
    registrations.put(plugin, new ArrayList<>());
    return this;
  }

  @Override
  public Status runPreEnqueuePlugins(Pod pod) {
    return preEnqueue.apply(pod);
  }

  @Override
  public Map<String, List<ClusterEventWithHint>> enqueueExtensions() {
    return registrations;
  }
}
