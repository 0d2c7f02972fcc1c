package io.berth.plugins.defaultpreemption;

import io.berth.framework.Status;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Words why preemption found no candidate as upstream's {@code FitError.Error()}:
 * {@code "0/N nodes are available: <count> <reason>, ...."}, where each reason is counted over the
 * nodes that have a status and the absent-nodes status's reasons count once for every other node;
 * the "count reason" strings are sorted as strings (so "10 x" sorts before "2 y", as upstream).
 * Also joins several errors as upstream's aggregate error does. Stateless.
 */
final class FitErrorMessage {
  private FitErrorMessage() {}

  static String of(int numAllNodes, Map<String, Status> nodeStatuses, Status absentNodesStatus) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Status s : nodeStatuses.values()) {
      for (String reason : s.reasons()) {
        counts.merge(reason, 1, Integer::sum);
      }
    }
    int absent = numAllNodes - nodeStatuses.size();
    if (absent > 0) {
      for (String reason : absentNodesStatus.reasons()) {
        counts.merge(reason, absent, Integer::sum);
      }
    }
    List<String> histogram = new ArrayList<>();
    counts.forEach((reason, count) -> histogram.add(count + " " + reason));
    histogram.sort(null);
    String msg = "0/" + numAllNodes + " nodes are available:";
    return histogram.isEmpty() ? msg : msg + " " + String.join(", ", histogram) + ".";
  }

  /** Upstream's aggregate error text: one message as is, several distinct ones as "[a, b]". */
  static String aggregate(Collection<Status> errors) {
    List<String> distinct = errors.stream().map(Status::message).distinct().toList();
    if (errors.size() == 1 || distinct.size() == 1) {
      return distinct.get(0);
    }
    return "[" + String.join(", ", distinct) + "]";
  }
}
