package io.berth.framework.testing;

import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import java.util.List;
import java.util.Optional;

/**
 * A {@link NodeInfoLister} over a fixed list of NodeInfos, for plugin tests and simulations.
 * Immutable after construction (the NodeInfos themselves belong to the caller).
 */
public final class ListNodeInfoLister implements NodeInfoLister {
  private final List<NodeInfo> nodes;

  public ListNodeInfoLister(List<NodeInfo> nodes) {
    this.nodes = List.copyOf(nodes);
  }

  @Override
  public List<NodeInfo> list() {
    return nodes;
  }

  @Override
  public List<NodeInfo> havePodsWithAffinityList() {
    return nodes.stream().filter(n -> !n.podsWithAffinity().isEmpty()).toList();
  }

  @Override
  public List<NodeInfo> havePodsWithRequiredAntiAffinityList() {
    return nodes.stream().filter(n -> !n.podsWithRequiredAntiAffinity().isEmpty()).toList();
  }

  @Override
  public Optional<NodeInfo> get(String nodeName) {
    return nodes.stream().filter(n -> n.nodeName().equals(nodeName)).findFirst();
  }

  @Override
  public boolean isPvcUsedByPods(String key) {
    return nodes.stream().anyMatch(n -> n.pvcRefCounts().containsKey(key));
  }
}
