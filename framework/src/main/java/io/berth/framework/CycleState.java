package io.berth.framework;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-cycle scratch space plugins share while one pod is scheduled. Thread-safe: backed by
 * concurrent maps, because Filter and Score run on many threads at once (writes normally happen in
 * PreFilter/PreScore, reads in parallel afterwards). Owned by one scheduling cycle and its binding
 * cycle; {@link #copy()} gives preemption an independent state to simulate on.
 */
public final class CycleState {
  // thread-safe maps: parallel Filter/Score read them while no one writes
  private final Map<String, StateData> storage = new ConcurrentHashMap<>();
  private final Set<String> skipFilterPlugins = ConcurrentHashMap.newKeySet();
  private final Set<String> skipScorePlugins = ConcurrentHashMap.newKeySet();
  private final Set<String> preFilterNodePlugins = ConcurrentHashMap.newKeySet();

  /** The data stored under {@code key}, cast to {@code type}. */
  public <T extends StateData> Optional<T> read(String key, Class<T> type) {
    StateData data = storage.get(key);
    return type.isInstance(data) ? Optional.of(type.cast(data)) : Optional.empty();
  }

  /** The data under {@code key}, or a {@link StatusException} with an error status if absent. */
  public <T extends StateData> T readOrFail(String key, Class<T> type) {
    return read(key, type).orElseThrow(() -> new StatusException(
        Status.error("reading \"" + key + "\" from cycleState: not found")));
  }

  public void write(String key, StateData data) {
    storage.put(key, data);
  }

  public void delete(String key) {
    storage.remove(key);
  }

  /** Plugins whose Filter is skipped in this cycle (their PreFilter returned Skip). */
  public Set<String> skipFilterPlugins() {
    return skipFilterPlugins;
  }

  /** Plugins whose Score is skipped in this cycle (their PreScore returned Skip). */
  public Set<String> skipScorePlugins() {
    return skipScorePlugins;
  }

  /** PreFilter plugins that narrowed the node set in this cycle (for diagnosis messages). */
  public Set<String> preFilterNodePlugins() {
    return preFilterNodePlugins;
  }

  /** An independent copy: every value copied with {@link StateData#copy()}. */
  public CycleState copy() {
    CycleState copy = new CycleState();
    storage.forEach((k, v) -> copy.storage.put(k, v.copy()));
    copy.skipFilterPlugins.addAll(skipFilterPlugins);
    copy.skipScorePlugins.addAll(skipScorePlugins);
    copy.preFilterNodePlugins.addAll(preFilterNodePlugins);
    return copy;
  }
}
