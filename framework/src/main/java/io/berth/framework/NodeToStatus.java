package io.berth.framework;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Why each node was rejected in a cycle: the statuses of nodes that were filtered, plus the status
 * that applies to every node not in the map ({@link #absentNodesStatus()}, e.g. when PreFilter
 * narrowed the node set or rejected the pod outright). Setting a node's status again replaces it.
 * Not thread-safe: confined to the scheduling thread, which builds it and then reads it in
 * PostFilter (lookups build an index lazily, so even reads must stay on that thread).
 *
 * <p>A failing cycle sets a status for every node (1,000 sets per preemptor in PreemptionBasic), and a HashMap put
 * per node was 15% of the scheduling thread there: the statuses are kept in two dense arrays in the order they were
 * set, and {@link #set} only appends. The open-addressing index by name is built on the first lookup (or iteration)
 * and kept up to date after that; while it is not built, {@link #set} may append a name twice, and building the
 * index keeps the later status in the earlier slot (as a map's put would).
 */
public final class NodeToStatus {
  private static final String[] NO_NAMES = new String[0];
  private static final Status[] NO_STATUSES = new Status[0];
  // how often statusesOf may re-place its cursor by a scan before it falls back to lookups by name: a walk in
  // Filter's rotated order needs one or two
  private static final int MAX_SCANS = 4;

  // all fields confined to the scheduling thread
  /** Names and statuses in the order first set; entries {@code [0, count)} are live. */
  private String[] names = NO_NAMES;
  private Status[] statuses = NO_STATUSES;
  private int count;
  /**
   * Open-addressing table (linear probing, power-of-two length at least twice {@code count}) of entry index + 1, 0
   * for a free slot; null while not built. Once built, every entry is in it exactly once and no name is duplicated.
   */
  private int[] index;
  /**
   * Entries {@code [0, count)} are known to hold no name twice without the index: {@link #statusesOf} proved it
   * (every entry matched one node by identity). Lets size and iteration (the failure message counts every node's
   * reasons) skip building the index; cleared by a set that appends while the index is not built.
   */
  private boolean distinct;
  private Status absentNodesStatus = Status.unresolvable();
  private Map<String, Status> view;

  /** Sizes the storage for {@code n} more statuses, so that setting them does not grow it. */
  public void reserve(int n) {
    if (n > names.length - count) {
      grow(count + n);
    }
  }

  public void set(String nodeName, Status status) {
    if (index != null) {
      int slot = find(nodeName);
      if (slot >= 0) {
        statuses[slot] = status;
        return;
      }
    }
    if (count == names.length) {
      grow(Math.max(16, count * 2));
    }
    names[count] = nodeName;
    statuses[count] = status;
    count++;
    distinct = false;
    if (index != null) {
      if (count * 2 > index.length) {
        buildIndex();
      } else {
        insert(index, nodeName, count);
      }
    }
  }

  /** The status of a node: its own, or the absent-nodes status. */
  public Status get(String nodeName) {
    int slot = lookup(nodeName);
    return slot < 0 ? absentNodesStatus : statuses[slot];
  }

  /**
   * The status of each of {@code nodes}, by position: {@code get(nodes.get(i).nodeName())}. For preemption's walk
   * over every node of the snapshot after a failing Filter: Filter set the statuses in the snapshot's order (from a
   * rotated start), holding the very name instances of those NodeInfos, so while the index is not built the walk
   * follows the entries by identity with a cursor (re-placed by a scan of the names when the order breaks) instead of
   * hashing every name. That answer is used only when it is provably the map's: every entry matched exactly once, so no
   * name was set twice and no node was left to the absent status; otherwise every node is looked up as by {@link #get}.
   */
  public Status[] statusesOf(List<NodeInfo> nodes) {
    int n = nodes.size();
    Status[] out = new Status[n];
    if (index == null && count > 0 && n == count && followInOrder(nodes, out)) {
      distinct = true;
      return out;
    }
    for (int i = 0; i < n; i++) {
      out[i] = get(nodes.get(i).nodeName());
    }
    return out;
  }

  /**
   * Fills {@code out} by following the entries by identity; false (and {@code out} partly filled) when some node's
   * name is not an entry's instance, an entry would be matched twice, or the order breaks more than a few times.
   * Requires {@code nodes.size() == count}: then every entry matched once means every node has its own entry and no
   * name was set twice.
   */
  private boolean followInOrder(List<NodeInfo> nodes, Status[] out) {
    boolean[] matched = new boolean[count];
    int cursor = 0;
    int scans = 0;
    for (int i = 0; i < out.length; i++) {
      String name = nodes.get(i).nodeName();
      if (names[cursor] != name) {
        if (++scans > MAX_SCANS) {
          return false;
        }
        cursor = identityScan(name);
        if (cursor < 0) {
          return false;
        }
      }
      if (matched[cursor]) {
        return false;
      }
      matched[cursor] = true;
      out[i] = statuses[cursor];
      cursor = cursor + 1 == count ? 0 : cursor + 1;
    }
    return true;
  }

  /** The entry holding this very instance, or -1. */
  private int identityScan(String name) {
    for (int e = 0; e < count; e++) {
      if (names[e] == name) {
        return e;
      }
    }
    return -1;
  }

  /** The nodes' own statuses by name (the absent-nodes status not included): a read-only view. */
  public Map<String, Status> statuses() {
    if (view == null) {
      view = new View();
    }
    return view;
  }

  public Status absentNodesStatus() {
    return absentNodesStatus;
  }

  public void setAbsentNodesStatus(Status status) {
    this.absentNodesStatus = status;
  }

  /** The number of nodes with a status of their own. */
  public int size() {
    ensureFolded();
    return count;
  }

  /** The entry index of {@code nodeName}, or -1; builds the index first if needed. */
  private int lookup(Object nodeName) {
    if (count == 0 || !(nodeName instanceof String)) {
      return -1;
    }
    ensureIndex();
    return find((String) nodeName);
  }

  private void ensureIndex() {
    if (index == null && count > 0) {
      buildIndex();
    }
  }

  /** Makes entries {@code [0, count)} hold each name once: they do when indexed or known distinct. */
  private void ensureFolded() {
    if (!distinct) {
      ensureIndex();
    }
  }

  private int find(String name) {
    int mask = index.length - 1;
    for (int i = spread(name.hashCode()) & mask; ; i = (i + 1) & mask) {
      int e = index[i];
      if (e == 0) {
        return -1;
      }
      String n = names[e - 1];
      if (n == name || n.equals(name)) {
        return e - 1;
      }
    }
  }

  /**
   * Indexes entries {@code [0, count)}, folding duplicates: a later entry's status moves into the first entry of its
   * name and the later entry is dropped, so entries stay in first-set order.
   */
  private void buildIndex() {
    int capacity = Integer.highestOneBit(Math.max(8, count * 2 - 1)) << 1;
    int[] table = new int[capacity];
    int mask = capacity - 1;
    int live = 0;
    for (int e = 0; e < count; e++) {
      String name = names[e];
      int i = spread(name.hashCode()) & mask;
      while (true) {
        int at = table[i];
        if (at == 0) {
          names[live] = name;
          statuses[live] = statuses[e];
          table[i] = ++live;
          break;
        }
        String n = names[at - 1];
        if (n == name || n.equals(name)) {
          statuses[at - 1] = statuses[e];
          break;
        }
        i = (i + 1) & mask;
      }
    }
    Arrays.fill(names, live, count, null);
    Arrays.fill(statuses, live, count, null);
    count = live;
    index = table;
  }

  private static void insert(int[] table, String name, int entryPlusOne) {
    int mask = table.length - 1;
    int i = spread(name.hashCode()) & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = entryPlusOne;
  }

  /** Mixes the hash's high bits into the low ones the mask keeps, as HashMap does. */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  private void grow(int capacity) {
    names = Arrays.copyOf(names, capacity);
    statuses = Arrays.copyOf(statuses, capacity);
  }

  /** The read-only map over the entries, in first-set order. */
  private final class View extends AbstractMap<String, Status> {
    @Override
    public Status get(Object key) {
      int slot = lookup(key);
      return slot < 0 ? null : statuses[slot];
    }

    @Override
    public boolean containsKey(Object key) {
      return lookup(key) >= 0;
    }

    @Override
    public int size() {
      return NodeToStatus.this.size();
    }

    @Override
    public Set<Entry<String, Status>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public int size() {
          return NodeToStatus.this.size();
        }

        @Override
        public Iterator<Entry<String, Status>> iterator() {
          ensureFolded();
          return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
              return next < count;
            }

            @Override
            public Entry<String, Status> next() {
              if (next >= count) {
                throw new NoSuchElementException();
              }
              int e = next++;
              return new SimpleImmutableEntry<>(names[e], statuses[e]);
            }
          };
        }
      };
    }
  }
}
