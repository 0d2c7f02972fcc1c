package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Decides whether a cluster event may make a pod that this plugin rejected schedulable.
 * {@code oldObj} is null for adds, {@code newObj} null for deletes. Called under the scheduling
 * queue's lock: must be quick and pure. Throwing counts as QUEUE (as upstream treats errors).
 */
@FunctionalInterface
public interface QueueingHintFn {
  QueueingHintFn ALWAYS_QUEUE = (pod, oldObj, newObj) -> QueueingHint.QUEUE;

  QueueingHint hint(Pod pod, Object oldObj, Object newObj);
}
