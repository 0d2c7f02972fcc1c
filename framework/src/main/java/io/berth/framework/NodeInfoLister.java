package io.berth.framework;

import java.util.List;
import java.util.Optional;

/**
 * Read access to the cycle's snapshot of the cluster: every node's {@link NodeInfo}, in the
 * zone-interleaved order the scheduler iterates. Thread-safe for reads; the snapshot does not
 * change during a scheduling cycle. Plugins must not mutate what it returns.
 */
public interface NodeInfoLister {
  List<NodeInfo> list();

  /** Nodes with at least one pod that has (anti-)affinity terms. */
  List<NodeInfo> havePodsWithAffinityList();

  /** Nodes with at least one pod that has required anti-affinity terms. */
  List<NodeInfo> havePodsWithRequiredAntiAffinityList();

  Optional<NodeInfo> get(String nodeName);

  /** Whether some scheduled pod uses the PVC {@code namespace/claimName}. */
  boolean isPvcUsedByPods(String key);

  /**
   * A number that changes whenever the nodes or their pods change, except when a group scheduling
   * cycle tentatively places members of the group it is placing (so a gang plugin may cache, per
   * group and version, figures that count the group's own members as free); negative when the
   * lister cannot tell (then nothing may be cached). By default -1.
   */
  default long version() {
    return -1;
  }
}
