package io.berth.scheduler.cache;

import io.berth.framework.NodeInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cache's NodeInfos by node name, also threaded on a doubly linked list ordered by most recent
 * change: whoever changes a NodeInfo moves it to the head. Because every change also draws a new
 * generation from NodeInfo's global counter, generations strictly decrease from the head, and a
 * snapshot taken at generation g only needs the prefix of the list with generation above g
 * (upstream's nodeInfoListItem and headNode).
 *
 * <p>Not thread-safe: owned by {@link SchedulerCache} and only used under its lock. The invariant
 * "generations decrease from the head" holds between two critical sections, provided each one
 * that mutates a NodeInfo calls {@link #moveToHead} for it.
 */
final class CachedNodeInfos {
  private static final class Item {
    final NodeInfo info;
    Item prev;
    Item next;

    Item(NodeInfo info) {
      this.info = info;
    }
  }

  // Guarded by the cache's lock, like head: every Item in items is linked, and only those.
  private final Map<String, Item> items = new HashMap<>();
  private Item head;

  /** The NodeInfo for {@code name}, or null. */
  NodeInfo get(String name) {
    Item item = items.get(name);
    return item == null ? null : item.info;
  }

  /** The NodeInfo for {@code name}, created empty (without node) and linked at the head if new. */
  NodeInfo getOrCreate(String name) {
    Item item = items.get(name);
    if (item == null) {
      item = new Item(new NodeInfo());
      items.put(name, item);
      linkAtHead(item);
    }
    return item.info;
  }

  /** Marks {@code name} as the most recently changed node. */
  void moveToHead(String name) {
    Item item = items.get(name);
    if (item == null || item == head) {
      return;
    }
    unlink(item);
    linkAtHead(item);
  }

  /** Drops the NodeInfo for {@code name}. */
  void remove(String name) {
    Item item = items.remove(name);
    if (item != null) {
      unlink(item);
    }
  }

  int size() {
    return items.size();
  }

  /** Every NodeInfo, in no particular order. */
  Collection<NodeInfo> all() {
    return items.values().stream().map(i -> i.info).toList();
  }

  /** Name to NodeInfo for every node; a fresh map. */
  Map<String, NodeInfo> byName() {
    Map<String, NodeInfo> out = new HashMap<>();
    items.forEach((name, item) -> out.put(name, item.info));
    return out;
  }

  /** The generation of the most recently changed NodeInfo; 0 when there is none. */
  long headGeneration() {
    return head == null ? 0 : head.info.generation();
  }

  /**
   * The NodeInfos whose generation is above {@code generation}, most recent first: the list's
   * prefix up to the first older one.
   */
  List<NodeInfo> changedSince(long generation) {
    List<NodeInfo> out = new ArrayList<>();
    for (Item item = head; item != null && item.info.generation() > generation; item = item.next) {
      out.add(item.info);
    }
    return out;
  }

  private void linkAtHead(Item item) {
    item.prev = null;
    item.next = head;
    if (head != null) {
      head.prev = item;
    }
    head = item;
  }

  private void unlink(Item item) {
    if (item.prev != null) {
      item.prev.next = item.next;
    }
    if (item.next != null) {
      item.next.prev = item.prev;
    }
    if (item == head) {
      head = item.next;
    }
    item.prev = null;
    item.next = null;
  }
}
