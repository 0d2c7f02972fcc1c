package io.berth.framework.runtime;

import io.berth.framework.Code;
import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A pod parked by Permit: one timer per waiting plugin rejects it on timeout; {@link #allow} by
 * every plugin completes it with Success, the first {@link #reject} with Unschedulable. Thread-safe:
 * state guarded by {@code this}; the outcome is a future completed once.
 */
final class DefaultWaitingPod implements WaitingPod {
  private final Pod pod;
  // guarded by this
  private final Map<String, ScheduledFuture<?>> pendingPlugins = new LinkedHashMap<>();
  private final CompletableFuture<Status> outcome = new CompletableFuture<>();

  DefaultWaitingPod(Pod pod, Map<String, Duration> waitTimes, ScheduledExecutorService timers) {
    this.pod = pod;
    synchronized (this) {
      waitTimes.forEach((plugin, timeout) -> pendingPlugins.put(plugin, timers.schedule(
          () -> reject(plugin, "rejected due to timeout after waiting " + format(timeout)
              + " at plugin " + plugin),
          timeout.toNanos(), TimeUnit.NANOSECONDS)));
    }
  }

  @Override
  public Pod pod() {
    return pod;
  }

  @Override
  public synchronized List<String> pendingPlugins() {
    return new ArrayList<>(pendingPlugins.keySet());
  }

  @Override
  public void allow(String pluginName) {
    synchronized (this) {
      ScheduledFuture<?> timer = pendingPlugins.remove(pluginName);
      if (timer != null) {
        timer.cancel(false);
      }
      if (!pendingPlugins.isEmpty()) {
        return;
      }
    }
    outcome.complete(Status.SUCCESS);
  }

  @Override
  public void reject(String pluginName, String message) {
    synchronized (this) {
      pendingPlugins.values().forEach(t -> t.cancel(false));
      pendingPlugins.clear();
    }
    outcome.complete(Status.of(Code.UNSCHEDULABLE, message).withPlugin(pluginName));
  }

  CompletableFuture<Status> outcome() {
    return outcome;
  }

  private static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
