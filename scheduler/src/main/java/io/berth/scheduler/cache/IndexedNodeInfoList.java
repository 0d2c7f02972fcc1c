package io.berth.scheduler.cache;

import io.berth.framework.NodeInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One of the snapshot's ordered NodeInfo lists, with the position of every node so that a
 * changed node's new copy can take its old copy's place in O(1). Upstream overwrites the
 * NodeInfo struct in place to keep its lists valid; Berth puts a fresh copy in instead, so that a
 * NodeInfo handed out by an earlier snapshot is never mutated behind its reader's back.
 *
 * <p>Not thread-safe: part of a {@link Snapshot}, under the same confinement.
 */
final class IndexedNodeInfoList {
  // Both confined like the owning Snapshot; positions maps each node name to its index in infos.
  private final ArrayList<NodeInfo> infos = new ArrayList<>();
  private final Map<String, Integer> positions = new HashMap<>();
  private final List<NodeInfo> view = Collections.unmodifiableList(infos);

  void clear() {
    infos.clear();
    positions.clear();
  }

  void add(NodeInfo info) {
    positions.put(info.nodeName(), infos.size());
    infos.add(info);
  }

  /** Puts {@code info} in the place of the node of the same name, if the list has it. */
  void replace(NodeInfo info) {
    Integer position = positions.get(info.nodeName());
    if (position != null) {
      infos.set(position, info);
    }
  }

  boolean contains(String nodeName) {
    return positions.containsKey(nodeName);
  }

  /** Removes the node of that name, moving the last node into its place (order is not kept). */
  void remove(String nodeName) {
    Integer position = positions.remove(nodeName);
    if (position == null) {
      return;
    }
    int last = infos.size() - 1;
    NodeInfo moved = infos.remove(last);
    if (position != last) {
      infos.set(position, moved);
      positions.put(moved.nodeName(), position);
    }
  }

  int size() {
    return infos.size();
  }

  /** A read-only live view. */
  List<NodeInfo> view() {
    return view;
  }
}
