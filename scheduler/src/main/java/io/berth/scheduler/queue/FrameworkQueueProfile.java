package io.berth.scheduler.queue;

import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Framework;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link QueueProfile} over a {@link Framework}. Immutable after construction: the framework's
 * plugin lists are fixed once it is built, so its registrations are copied here once.
 */
final class FrameworkQueueProfile implements QueueProfile {
  private final Framework framework;
  private final boolean hasPreEnqueuePlugins;
  private final Map<String, List<ClusterEventWithHint>> enqueueExtensions;

  FrameworkQueueProfile(Framework framework) {
    this.framework = Objects.requireNonNull(framework, "framework");
    this.hasPreEnqueuePlugins = framework.hasPreEnqueuePlugins();
    this.enqueueExtensions = QueueingHints.copy(framework.enqueueExtensions());
  }

  @Override
  public Status runPreEnqueuePlugins(Pod pod) {
    return hasPreEnqueuePlugins ? framework.runPreEnqueuePlugins(pod) : Status.SUCCESS;
  }

  @Override
  public Map<String, List<ClusterEventWithHint>> enqueueExtensions() {
    return enqueueExtensions;
  }

  @Override
  public String toString() {
    return "QueueProfile{" + framework.profileName() + "}";
  }
}
