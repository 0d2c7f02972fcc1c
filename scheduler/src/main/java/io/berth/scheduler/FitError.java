package io.berth.scheduler;

import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

  @Override
  public String getMessage() {
    StringBuilder msg = new StringBuilder("0/").append(numAllNodes).append(" nodes are available:");
    String preFilterMsg = diagnosis.preFilterMsg();
    if (!preFilterMsg.isEmpty()) {
      msg.append(' ').append(preFilterMsg).append('.');
    } else {
      // PreFilter passed: count the reasons of every node (with PreFilter's rejection every node
      // would carry the same status, so it is reported once above instead).
      Map<String, Integer> counts = new TreeMap<>();
      Map<String, Status> statuses = diagnosis.nodeToStatus().statuses();
      statuses.values().forEach(s -> s.reasons().forEach(r -> counts.merge(r, 1, Integer::sum)));
      int absent = numAllNodes - statuses.size();
      if (absent > 0) {
        for (String r : diagnosis.nodeToStatus().absentNodesStatus().reasons()) {
          counts.merge(r, absent, Integer::sum);
        }
      }
      List<String> parts = new ArrayList<>();
      counts.forEach((reason, n) -> parts.add(n + " " + reason));
      parts.sort(null);
      if (!parts.isEmpty()) {
        msg.append(' ').append(String.join(", ", parts)).append('.');
      }
    }
    if (!diagnosis.postFilterMsg().isEmpty()) {
      msg.append(' ').append(diagnosis.postFilterMsg()).append('.');
    }
    return msg.toString();
  }
}
