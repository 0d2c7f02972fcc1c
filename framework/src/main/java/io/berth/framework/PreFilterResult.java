package io.berth.framework;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * What a PreFilter plugin returns: a status and, optionally, the only nodes worth filtering
 * (empty means all nodes). Immutable.
 */
public record PreFilterResult(Status status, Optional<Set<String>> nodeNames) {
  public static final PreFilterResult SUCCESS = new PreFilterResult(Status.SUCCESS, Optional.empty());

  public PreFilterResult {
    nodeNames = nodeNames.map(Set::copyOf);
  }

  public static PreFilterResult of(Status status) {
    return status.isSuccess() ? SUCCESS : new PreFilterResult(status, Optional.empty());
  }

  /** Success, restricted to {@code nodeNames}. */
  public static PreFilterResult nodes(Set<String> nodeNames) {
    return new PreFilterResult(Status.SUCCESS, Optional.of(nodeNames));
  }

  /** Whether every node is eligible. */
  public boolean allNodes() {
    return nodeNames.isEmpty();
  }

  /** The intersection of two results' node sets (an absent set means all nodes). */
  public Optional<Set<String>> mergeNodes(Optional<Set<String>> other) {
    if (nodeNames.isEmpty()) {
      return other;
    }
    if (other.isEmpty()) {
      return nodeNames;
    }
    Set<String> both = new HashSet<>(nodeNames.get());
    both.retainAll(other.get());
    return Optional.of(both);
  }
}
