package io.berth.framework.runtime;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeToStatus;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the runtime saw of each plugin in one scheduling attempt, for the scheduler's explanations
 * ({@code /debug/explain}, kube-scheduler-simulator's result annotations). Installed by the
 * scheduler into the attempt's {@link CycleState} under {@link #KEY} when recording is on; the
 * runtime looks it up once per extension point ({@link #of}) and does nothing more when it is
 * absent, so an attempt without it costs one map lookup per extension point.
 *
 * <p>The runtime appends here from the scheduling thread and, for Permit-to-Bind results, from
 * the pod's binding thread; those writes are ordered by the hand-over between the two threads, and
 * every method is {@code synchronized} on this object (uncontended), so a reader that runs after
 * the attempt (the scheduler's recorder thread) sees them all. Score arrays are handed over, not
 * copied: the runtime never touches them again once {@link #scores} is called. {@link #copy()}
 * returns {@code this}: preemption's copies of the cycle state must not fork the record.
 */
public final class PluginResults implements StateData {
  /** The CycleState key the scheduler installs this under. */
  public static final String KEY = "berth.io/plugin-results";

  /** One plugin's verdict at one extension point (its status, with the plugin name). */
  public record Entry(String extensionPoint, String plugin, Status status,
      Optional<Set<String>> nodeNames) {
  }

  /**
   * The Score phase: {@code raw[p][i]} is plugin {@code plugins.get(p)}'s score of
   * {@code nodes.get(i)} before NormalizeScore, {@code normalized[p][i]} after it (equal when the
   * plugin does not normalize); weights as configured; {@code nodeNames[i]} is
   * {@code nodes.get(i).nodeName()}, read on the scheduling thread so that a recorder need not
   * touch the nodes again. Arrays are owned by this record once built.
   */
  public record Scores(List<String> plugins, int[] weights, List<NodeInfo> nodes,
      String[] nodeNames, long[][] raw, long[][] normalized) {
  }

  /** Where Filter ended: the nodes that passed and the statuses of those rejected. */
  public record Filtered(List<NodeInfo> feasible, NodeToStatus rejected, int totalNodes) {
  }

  // all guarded by `this`
  private final List<Entry> entries = new ArrayList<>();
  private Scores scores;
  private Filtered filtered;

  /** The results installed in {@code state}, or null when recording is off (the common case). */
  public static PluginResults of(CycleState state) {
    return state.read(KEY, PluginResults.class).orElse(null);
  }

  /** A new, empty record installed into {@code state}; returns it. */
  public static PluginResults install(CycleState state) {
    PluginResults r = new PluginResults();
    state.write(KEY, r);
    return r;
  }

  /** Appends a plugin's status at an extension point ("PreFilter", "Reserve", ...). */
  public synchronized void add(String extensionPoint, String plugin, Status status) {
    entries.add(new Entry(extensionPoint, plugin, status, Optional.empty()));
  }

  /** Appends a PreFilter result, with the node set it narrowed to, if it did. */
  public synchronized void addPreFilter(String plugin, Status status,
      Optional<Set<String>> nodeNames) {
    entries.add(new Entry("PreFilter", plugin, status,
        nodeNames.map(Collections::unmodifiableSet)));
  }

  /** Stores the Score phase; see {@link Scores}. */
  public synchronized void scores(Scores value) {
    this.scores = value;
  }

  /** Stores where Filter ended (called by the scheduling algorithm). */
  public synchronized void filtered(Filtered value) {
    this.filtered = value;
  }

  /** The entries so far, in the order the runtime ran them. */
  public synchronized List<Entry> entries() {
    return List.copyOf(entries);
  }

  /** The entries of one extension point, in order. */
  public synchronized List<Entry> entries(String extensionPoint) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries) {
      if (e.extensionPoint().equals(extensionPoint)) {
        out.add(e);
      }
    }
    return out;
  }

  /** The Score phase, if it ran with at least one plugin. */
  public synchronized Optional<Scores> scores() {
    return Optional.ofNullable(scores);
  }

  /** Where Filter ended, if it ran. */
  public synchronized Optional<Filtered> filtered() {
    return Optional.ofNullable(filtered);
  }

  @Override
  public StateData copy() {
    return this;
  }
}
