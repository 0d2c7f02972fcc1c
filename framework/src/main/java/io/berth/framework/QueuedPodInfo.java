package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A pod in the scheduling queue with its queueing history: when it was last added (the QueueSort
 * tiebreak), how many scheduling attempts it has had, when the first one started, which plugins
 * rejected it last (the only ones whose queueing hints can move it back) and which plugin gates
 * it. Not thread-safe: guarded by the scheduling queue's lock while queued, then confined to the
 * scheduling cycle that popped it.
 */
public final class QueuedPodInfo {
  private PodInfo podInfo;
  private Instant timestamp;
  private int attempts;
  private Instant initialAttemptTimestamp;
  private final Set<String> unschedulablePlugins = new HashSet<>();
  private final Set<String> pendingPlugins = new HashSet<>();
  private String gatingPlugin;
  /** The queue's computed backoff expiry for this timestamp and attempt count; null when stale. */
  private Instant backoffExpiration;

  public QueuedPodInfo(PodInfo podInfo, Instant timestamp) {
    this.podInfo = podInfo;
    this.timestamp = timestamp;
  }

  public PodInfo podInfo() {
    return podInfo;
  }

  public Pod pod() {
    return podInfo.pod();
  }

  public void setPodInfo(PodInfo podInfo) {
    this.podInfo = podInfo;
  }

  /** When the pod was last added to the queue. */
  public Instant timestamp() {
    return timestamp;
  }

  public void setTimestamp(Instant timestamp) {
    this.timestamp = timestamp;
    this.backoffExpiration = null;
  }

  /** Scheduling attempts so far. */
  public int attempts() {
    return attempts;
  }

  public void incrementAttempts() {
    attempts++;
    backoffExpiration = null;
  }

  /**
   * The backoff expiry the scheduling queue computed for the current timestamp and attempt count
   * (upstream's {@code BackoffExpiration}); null until computed. Changing either clears it.
   */
  public Instant backoffExpiration() {
    return backoffExpiration;
  }

  public void setBackoffExpiration(Instant expiry) {
    this.backoffExpiration = expiry;
  }

  /** When the first scheduling attempt started; empty before it. */
  public Optional<Instant> initialAttemptTimestamp() {
    return Optional.ofNullable(initialAttemptTimestamp);
  }

  public void setInitialAttemptTimestamp(Instant at) {
    this.initialAttemptTimestamp = at;
  }

  /** Plugins that rejected the pod in its last attempt (Unschedulable or unresolvable). */
  public Set<String> unschedulablePlugins() {
    return unschedulablePlugins;
  }

  /** Plugins that returned Pending in its last attempt. */
  public Set<String> pendingPlugins() {
    return pendingPlugins;
  }

  /** The PreEnqueue plugin keeping the pod out of activeQ; empty when not gated. */
  public Optional<String> gatingPlugin() {
    return Optional.ofNullable(gatingPlugin);
  }

  public void setGatingPlugin(String plugin) {
    this.gatingPlugin = plugin;
  }

  public boolean isGated() {
    return gatingPlugin != null;
  }

  public String key() {
    return podInfo.key();
  }

  @Override
  public String toString() {
    return "QueuedPodInfo{" + key() + ", attempts=" + attempts + ", unschedulablePlugins="
        + unschedulablePlugins + "}";
  }
}
