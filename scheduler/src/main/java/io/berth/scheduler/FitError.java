package io.berth.scheduler;

import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod fits on no node. Its message is upstream's FitError text, e.g. "0/5 nodes are available:
 * 3 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}. preemption: ...": the
 * reasons are counted over all nodes (nodes absent from the map count with the absent-nodes
 * status) and sorted as strings. Immutable once thrown; built on the scheduling thread.
 */
public final class FitError extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient Pod pod;
  private final int numAllNodes;
  private final transient Diagnosis diagnosis;
  // computed once on first use; a racing second computation yields an equal string
  private transient String nodeReasons;

  public FitError(Pod pod, int numAllNodes, Diagnosis diagnosis) {
    super(null, null, false, false);
    this.pod = pod;
    this.numAllNodes = numAllNodes;
    this.diagnosis = diagnosis;
  }

  public Pod pod() {
    return pod;
  }

  public int numAllNodes() {
    return numAllNodes;
  }

  public Diagnosis diagnosis() {
    return diagnosis;
  }

  /**
   * The counted reasons of every node (PreFilter passed; with PreFilter's rejection every node
   * would carry the same status, so it is reported once instead), as " 3 Insufficient cpu, 2
   * ...." or "". Counted once: the node statuses no longer change once the error is built.
   */
  private String nodeReasons() {
    String cached = nodeReasons;
    if (cached != null) {
      return cached;
    }
    Map<String, int[]> counts = new HashMap<>();
    Map<String, Status> statuses = diagnosis.nodeToStatus().statuses();
    // plugins often return one shared Status for many nodes: count instances first
    Map<Status, int[]> byInstance = new IdentityHashMap<>();
    for (Status s : statuses.values()) {
      byInstance.computeIfAbsent(s, k -> new int[1])[0]++;
    }
    byInstance.forEach((s, n) -> {
      for (String r : s.reasons()) {
        counts.computeIfAbsent(r, k -> new int[1])[0] += n[0];
      }
    });
    int absent = numAllNodes - statuses.size();
    if (absent > 0) {
      for (String r : diagnosis.nodeToStatus().absentNodesStatus().reasons()) {
        counts.computeIfAbsent(r, k -> new int[1])[0] += absent;
      }
    }
    List<String> parts = new ArrayList<>(counts.size());
    counts.forEach((reason, n) -> parts.add(n[0] + " " + reason));
    parts.sort(null);
    cached = parts.isEmpty() ? "" : " " + String.join(", ", parts) + ".";
    nodeReasons = cached;
    return cached;
  }

  @Override
  public String getMessage() {
    StringBuilder msg = new StringBuilder("0/").append(numAllNodes).append(" nodes are available:");
    String preFilterMsg = diagnosis.preFilterMsg();
    if (!preFilterMsg.isEmpty()) {
      msg.append(' ').append(preFilterMsg).append('.');
    } else {
      msg.append(nodeReasons());
    }
    if (!diagnosis.postFilterMsg().isEmpty()) {
      msg.append(' ').append(diagnosis.postFilterMsg()).append('.');
    }
    return msg.toString();
  }
}
