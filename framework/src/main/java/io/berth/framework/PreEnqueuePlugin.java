package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * PreEnqueue: decides whether a pod may enter activeQ. Anything but Success keeps the pod gated
 * (out of activeQ) until an event the plugin registered for re-runs the check. Called under the
 * scheduling queue's lock, so it must be quick and must not call back into the queue.
 */
public interface PreEnqueuePlugin extends Plugin {
  Status preEnqueue(Pod pod);
}
