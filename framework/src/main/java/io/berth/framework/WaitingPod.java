package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * A pod parked by Permit plugins that returned Wait. Thread-safe: any plugin on any thread may
 * {@link #allow} or {@link #reject} it; the binding thread waits for the outcome.
 */
public interface WaitingPod {
  Pod pod();

  /** Plugins that still have to allow the pod. */
  List<String> pendingPlugins();

  /** One plugin allows; the pod proceeds when all have. */
  void allow(String pluginName);

  /** Rejects the pod: it is unreserved and requeued. */
  void reject(String pluginName, String message);
}
