package io.berth.framework.runtime;

import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * The pods a profile's Permit plugins parked, by UID: Permit parks them on the scheduling thread,
 * the binding thread waits for the outcome and removes them, plugins allow or reject them from any
 * thread. Thread-safe: a concurrent map of {@link DefaultWaitingPod}s, each safe on its own.
 */
final class WaitingPods {
  private final ScheduledExecutorService timers;
  // thread-safe: Permit adds, binding threads remove, plugins look up from anywhere
  private final Map<String, DefaultWaitingPod> pods = new ConcurrentHashMap<>();

  WaitingPods(ScheduledExecutorService timers) {
    this.timers = timers;
  }

  /** Parks the pod until every plugin in {@code waitTimes} allows it or one rejects it. */
  void park(Pod pod, Map<String, Duration> waitTimes) {
    pods.put(pod.getMetadata().getUid(), new DefaultWaitingPod(pod, waitTimes, timers));
  }

  Optional<WaitingPod> get(String uid) {
    return Optional.ofNullable(pods.get(uid));
  }

  void forEach(Consumer<WaitingPod> action) {
    pods.values().forEach(action);
  }

  void reject(String uid) {
    DefaultWaitingPod wp = pods.get(uid);
    if (wp != null) {
      wp.reject("", "removed");
    }
  }

  /** Blocks until the parked pod's outcome; Success when it was not parked. Removes it. */
  Status await(Pod pod) throws InterruptedException {
    String uid = pod.getMetadata().getUid();
    DefaultWaitingPod wp = pods.get(uid);
    if (wp == null) {
      return Status.SUCCESS;
    }
    try {
      Status s = wp.outcome().get();
      if (!s.isSuccess() && !s.isRejected()) {
        return PluginCalls.wrapError(s, "waiting on permit for pod " + PluginCalls.podKey(pod),
            s.plugin());
      }
      return s;
    } catch (ExecutionException e) {
      return Status.asError(e.getCause());
    } finally {
      pods.remove(uid, wp);
    }
  }
}
