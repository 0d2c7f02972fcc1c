package io.berth.framework;

import java.util.List;

/**
 * The pods nominated to run on a node (by preemption) but not yet bound there. Thread-safe: the
 * scheduling queue maintains it, plugins read it from any thread.
 */
public interface PodNominator {
  List<PodInfo> nominatedPodsForNode(String nodeName);
}
