package io.berth.framework;

import java.util.AbstractSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Per-cycle scratch space plugins share while one pod is scheduled. Thread-safe and copy-on-write:
 * every map and set is an immutable value behind a volatile field, replaced whole by writers
 * (serialized on this object's monitor), so the parallel Filter and Score workers read without
 * locks, and {@link #copy()} (which preemption calls for every node it simulates on) shares
 * whatever the copy does not change: values whose {@link StateData#copy()} returns themselves and
 * the plugin-name sets. Writes normally happen in PreFilter/PreScore, reads in parallel afterwards.
 * Owned by one scheduling cycle and its binding cycle.
 */
public final class CycleState {
  // immutable, replaced under `this`; read lock-free
  private volatile Storage storage = Storage.EMPTY;
  private final NameSet skipFilterPlugins;
  private final NameSet skipScorePlugins;
  private final NameSet preFilterNodePlugins;
  // immutable set, replaced whole by the binding thread; Set.of() until PreBindPreFlight runs
  private volatile Set<String> skipPreBindPlugins = Set.of();

  public CycleState() {
    this(new NameSet(Set.of()), new NameSet(Set.of()), new NameSet(Set.of()));
  }

  private CycleState(NameSet skipFilter, NameSet skipScore, NameSet preFilterNode) {
    this.skipFilterPlugins = skipFilter;
    this.skipScorePlugins = skipScore;
    this.preFilterNodePlugins = preFilterNode;
  }

  /** The data stored under {@code key}, cast to {@code type}. */
  public <T extends StateData> Optional<T> read(String key, Class<T> type) {
    StateData data = storage.map().get(key);
    return type.isInstance(data) ? Optional.of(type.cast(data)) : Optional.empty();
  }

  /**
   * The data stored under {@code key} cast to {@code type}, or {@code absent} when there is none (as
   * {@link Map#getOrDefault}). For Filter and Score, which read their PreFilter/PreScore state once per node: unlike
   * {@link #read}, it allocates nothing per call.
   */
  public <T extends StateData> T readOrElse(String key, Class<T> type, T absent) {
    StateData data = storage.map().get(key);
    return type.isInstance(data) ? type.cast(data) : absent;
  }

  /** The data under {@code key}, or a {@link StatusException} with an error status if absent. */
  public <T extends StateData> T readOrFail(String key, Class<T> type) {
    return read(key, type).orElseThrow(() -> new StatusException(
        Status.error("reading \"" + key + "\" from cycleState: not found")));
  }

  public synchronized void write(String key, StateData data) {
    Map<String, StateData> next = new HashMap<>(storage.map());
    next.put(key, data);
    storage = Storage.of(next);
  }

  public synchronized void delete(String key) {
    if (storage.map().containsKey(key)) {
      Map<String, StateData> next = new HashMap<>(storage.map());
      next.remove(key);
      storage = Storage.of(next);
    }
  }

  /** Plugins whose Filter is skipped in this cycle (their PreFilter returned Skip). */
  public Set<String> skipFilterPlugins() {
    return skipFilterPlugins;
  }

  /**
   * The current contents of {@link #skipFilterPlugins()}, unmodifiable: the same instance until the set changes
   * (copies share it), so that the runtime can resolve the Filter plugins to run once per cycle instead of asking the
   * set for every plugin on every node.
   */
  public Set<String> skipFilterPluginsSnapshot() {
    return skipFilterPlugins.published();
  }

  /** Plugins whose Score is skipped in this cycle (their PreScore returned Skip). */
  public Set<String> skipScorePlugins() {
    return skipScorePlugins;
  }

  /** PreFilter plugins that narrowed the node set in this cycle (for diagnosis messages). */
  public Set<String> preFilterNodePlugins() {
    return preFilterNodePlugins;
  }

  /** PreBind plugins whose PreBind is skipped in this cycle (their PreBindPreFlight skipped). */
  public Set<String> skipPreBindPlugins() {
    return skipPreBindPlugins;
  }

  public void setSkipPreBindPlugins(Set<String> names) {
    this.skipPreBindPlugins = Set.copyOf(names);
  }

  /** An independent copy: every value copied with {@link StateData#copy()}. */
  public CycleState copy() {
    CycleState copy = new CycleState(skipFilterPlugins.copy(), skipScorePlugins.copy(),
        preFilterNodePlugins.copy());
    Storage current = storage;
    Map<String, StateData> copied = null; // allocated at the first value that copies itself
    String[] keys = current.keys();
    StateData[] values = current.values();
    for (int i = 0; i < values.length; i++) {
      StateData v = values[i];
      StateData c = v.copy();
      if (c != v) {
        if (copied == null) {
          copied = new HashMap<>(current.map());
        }
        copied.put(keys[i], c);
      }
    }
    copy.storage = copied == null ? current : Storage.of(copied);
    copy.skipPreBindPlugins = skipPreBindPlugins;
    return copy;
  }

  /**
   * The stored values, immutable: the map for lookups, and its entries in two arrays for {@link #copy()}, which
   * preemption and Filter with nominated pods call for every node they simulate on (a HashMap's entry iterator
   * was a tenth of those threads' samples).
   */
  private static final class Storage {
    static final Storage EMPTY = new Storage(Map.of(), new String[0], new StateData[0]);

    // never changed after construction
    private final Map<String, StateData> map;
    private final String[] keys;
    private final StateData[] values;

    private Storage(Map<String, StateData> map, String[] keys, StateData[] values) {
      this.map = map;
      this.keys = keys;
      this.values = values;
    }

    Map<String, StateData> map() {
      return map;
    }

    String[] keys() {
      return keys;
    }

    StateData[] values() {
      return values;
    }

    static Storage of(Map<String, StateData> map) {
      String[] keys = new String[map.size()];
      StateData[] values = new StateData[map.size()];
      int i = 0;
      for (Map.Entry<String, StateData> e : map.entrySet()) {
        keys[i] = e.getKey();
        values[i] = e.getValue();
        i++;
      }
      return new Storage(map, keys, values);
    }
  }

  /**
   * A set of plugin names that is a never-mutated set behind a volatile field: {@code add} and
   * {@code remove} replace it under the monitor, reads are lock-free, and a copy shares it. A
   * HashSet rather than {@code Set.copyOf}: Filter asks it for every plugin on every node, and the
   * immutable sets' probe divides where HashSet masks.
   */
  private static final class NameSet extends AbstractSet<String> {
    // never mutated once published (copy-on-write), replaced under `this`
    private volatile Set<String> names;

    NameSet(Set<String> names) {
      this.names = names;
    }

    NameSet copy() {
      return new NameSet(names);
    }

    /** The published set: unmodifiable, replaced (never changed) on every add, remove or clear. */
    Set<String> published() {
      return names;
    }

    @Override
    public boolean contains(Object o) {
      return names.contains(o);
    }

    @Override
    public synchronized boolean add(String name) {
      if (names.contains(name)) {
        return false;
      }
      Set<String> next = new HashSet<>(names);
      next.add(name);
      names = Collections.unmodifiableSet(next);
      return true;
    }

    @Override
    public synchronized boolean remove(Object o) {
      if (!names.contains(o)) {
        return false;
      }
      Set<String> next = new HashSet<>(names);
      next.remove(o);
      names = Collections.unmodifiableSet(next);
      return true;
    }

    @Override
    public synchronized void clear() {
      names = Set.of();
    }

    @Override
    public Iterator<String> iterator() {
      Iterator<String> it = names.iterator();
      return new Iterator<>() { // read-only view: the published set is never changed
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public String next() {
          return it.next();
        }
      };
    }

    @Override
    public int size() {
      return names.size();
    }

    @Override
    public boolean isEmpty() {
      return names.isEmpty();
    }
  }
}
