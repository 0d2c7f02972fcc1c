package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * A plugin that can sign pods for opportunistic batching (KEP-5598), as upstream's
 * {@code fwk.SignPlugin}: two pods whose fragments from every PreFilter, Filter, PreScore and
 * Score plugin are equal must get the same feasibility and scores on the same nodes. A profile
 * with one such plugin that does not implement this interface never batches. Called on the
 * scheduling thread once per scheduling attempt; must be cheap and must not mutate the pod.
 */
public interface SignPlugin extends Plugin {
  /** The fragments covering the pod fields this plugin reads, or an unsignable status. */
  SignResult signPod(Pod pod);
}
