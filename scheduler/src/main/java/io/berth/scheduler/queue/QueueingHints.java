package io.berth.scheduler.queue;

import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a cluster event may make a rejected pod schedulable, by asking the queueing
 * hints its rejecting plugins registered for that event (upstream's {@code isPodWorthRequeuing}).
 * Immutable after construction; hint functions run on the caller's thread, under the queue's
 * lock.
 *
 * <p>Rules, as kube-scheduler 1.32 with SchedulerQueueingHints on: a pod without rejectors (it
 * failed with an error) and any wildcard event go after backoff; otherwise only hints of the
 * pod's own rejectors (Unschedulable and Pending plugins) whose registration matches the event
 * count; a hint that throws counts as QUEUE. QUEUE from a Pending plugin wins outright, QUEUE
 * from an Unschedulable plugin means after backoff. A rejector with no entry at all in its
 * profile's registrations is treated as registered for everything with an always-QUEUE hint, as
 * the framework does for plugins without EnqueueExtensions.
 */
final class QueueingHints {
  private static final Logger log = LoggerFactory.getLogger(QueueingHints.class);

  /** Registrations by profile, then by plugin. */
  private final Map<String, Map<String, List<ClusterEventWithHint>>> byProfile;

  QueueingHints(Map<String, QueueProfile> profiles) {
    Map<String, Map<String, List<ClusterEventWithHint>>> m = new HashMap<>();
    profiles.forEach((name, profile) -> m.put(name, copy(profile.enqueueExtensions())));
    this.byProfile = Map.copyOf(m);
  }

  static Map<String, List<ClusterEventWithHint>> copy(
      Map<String, List<ClusterEventWithHint>> registrations) {
    Map<String, List<ClusterEventWithHint>> out = new HashMap<>();
    registrations.forEach((plugin, list) -> out.put(plugin, List.copyOf(list)));
    return Map.copyOf(out);
  }

  QueueingStrategy evaluate(QueuedPodInfo pInfo, ClusterEvent event, Object oldObj,
      Object newObj) {
    Set<String> pending = pInfo.pendingPlugins();
    Set<String> unschedulable = pInfo.unschedulablePlugins();
    if ((unschedulable.isEmpty() && pending.isEmpty()) || event.isWildcard()) {
      return QueueingStrategy.QUEUE_AFTER_BACKOFF;
    }
    Pod pod = pInfo.pod();
    String profile = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
    Map<String, List<ClusterEventWithHint>> registrations =
        profile == null ? null : byProfile.get(profile);
    if (registrations == null) {
      log.warn("No queueing hints for profile {} of pod {}; requeuing it", profile,
          pInfo.key());
      return QueueingStrategy.QUEUE_AFTER_BACKOFF;
    }
    // the rejectors are the union of both sets; the common case (no Pending plugin) needs no copy
    Set<String> rejectors = unschedulable;
    if (!pending.isEmpty()) {
      rejectors = new HashSet<>(unschedulable);
      rejectors.addAll(pending);
    }
    QueueingStrategy strategy = QueueingStrategy.QUEUE_SKIP;
    for (String plugin : rejectors) {
      if (!saysQueue(plugin, registrations.get(plugin), pod, event, oldObj, newObj)) {
        continue;
      }
      if (pending.contains(plugin)) {
        return QueueingStrategy.QUEUE_IMMEDIATELY;
      }
      if (pending.isEmpty()) {
        return QueueingStrategy.QUEUE_AFTER_BACKOFF;
      }
      // A Pending rejector might still say QUEUE, which would send the pod straight to activeQ.
      strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF;
    }
    return strategy;
  }

  /** Whether any of the plugin's registrations matching the event says QUEUE. */
  private static boolean saysQueue(String plugin, List<ClusterEventWithHint> registrations,
      Pod pod, ClusterEvent event, Object oldObj, Object newObj) {
    if (registrations == null) {
      return true;
    }
    for (ClusterEventWithHint registration : registrations) {
      if (!registration.event().matches(event)) {
        continue;
      }
      QueueingHint hint;
      try {
        hint = registration.hint().hint(pod, oldObj, newObj);
      } catch (RuntimeException e) {
        log.error("Queueing hint of plugin {} failed on event {} for pod {}/{}; requeuing it: {}",
            plugin, event.label(), pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(), e.toString());
        hint = QueueingHint.QUEUE;
      }
      if (hint != QueueingHint.QUEUE_SKIP) {
        return true;
      }
    }
    return false;
  }
}
