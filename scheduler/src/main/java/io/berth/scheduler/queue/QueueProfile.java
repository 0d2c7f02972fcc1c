package io.berth.scheduler.queue;

import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Framework;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * What the scheduling queue needs from one scheduling profile: its PreEnqueue check and the
 * cluster events (with queueing hints) each of its rejecting plugins registered. The queue holds
 * one per {@code schedulerName} and calls it under its lock, so implementations must be quick,
 * thread-safe and must not call back into the queue. {@link #enqueueExtensions()} is read once,
 * when the queue is built.
 */
public interface QueueProfile {
  /** Runs the profile's PreEnqueue plugins; a non-success status names the gating plugin. */
  Status runPreEnqueuePlugins(Pod pod);

  /**
   * Registrations by plugin name. A rejecting plugin absent from the map is treated as interested
   * in every event (its hint always says QUEUE); a plugin mapped to an empty list is interested
   * in none, so only the unschedulable timeout or a flush moves the pods it rejected.
   */
  Map<String, List<ClusterEventWithHint>> enqueueExtensions();

  /** The queue's view of a framework profile. */
  static QueueProfile of(Framework framework) {
    return new FrameworkQueueProfile(framework);
  }
}
