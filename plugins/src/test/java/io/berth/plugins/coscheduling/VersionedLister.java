package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.testing.ListNodeInfoLister;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot lister with a {@link #version()}, as the scheduler's snapshot has: {@link #nodes} replaces the nodes and
 * bumps the version, {@link #touch} bumps it alone. Thread-safe: the current nodes and version are replaced whole.
 */
final class VersionedLister implements NodeInfoLister {
  private record Current(ListNodeInfoLister nodes, long version) { }

  private volatile Current current;

  VersionedLister(NodeInfo... nodes) {
    current = new Current(new ListNodeInfoLister(List.of(nodes)), 1);
  }

  synchronized VersionedLister nodes(NodeInfo... nodes) {
    current = new Current(new ListNodeInfoLister(List.of(nodes)), current.version() + 1);
    return this;
  }

  synchronized void touch() {
    current = new Current(current.nodes(), current.version() + 1);
  }

  @Override
  public long version() {
    return current.version();
  }

  @Override
  public List<NodeInfo> list() {
    return current.nodes().list();
  }

  @Override
  public List<NodeInfo> havePodsWithAffinityList() {
    return current.nodes().havePodsWithAffinityList();
  }

  @Override
  public List<NodeInfo> havePodsWithRequiredAntiAffinityList() {
    return current.nodes().havePodsWithRequiredAntiAffinityList();
  }

  @Override
  public Optional<NodeInfo> get(String nodeName) {
    return current.nodes().get(nodeName);
  }

  @Override
  public boolean isPvcUsedByPods(String key) {
    return current.nodes().isPvcUsedByPods(key);
  }
}
