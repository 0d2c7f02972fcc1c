package io.berth.framework.runtime;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.PermitPlugin;
import io.berth.framework.PermitResult;
import io.berth.framework.PostBindPlugin;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.ReservePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A plugin for runtime tests implementing every extension point: it appends "Name.Point" to a
 * shared log and answers with configurable results. Thread-safe for the parallel points (the log
 * is a synchronized list; answers are set before the run).
 */
final class RecordingPlugin implements QueueSortPlugin, PreFilterPlugin, FilterPlugin,
    PreScorePlugin, ScorePlugin, ReservePlugin, PermitPlugin, PreBindPlugin, BindPlugin,
    PostBindPlugin {
  final String name;
  final List<String> log;
  volatile PreFilterResult preFilter = PreFilterResult.SUCCESS;
  volatile Function<NodeInfo, Status> filter = n -> Status.SUCCESS;
  volatile Status preScore = Status.SUCCESS;
  volatile Function<NodeInfo, Long> score = n -> 0L;
  volatile Function<List<NodeScore>, Status> normalize;
  volatile Status reserve = Status.SUCCESS;
  volatile PermitResult permit = PermitResult.ALLOW;
  volatile Status preBind = Status.SUCCESS;
  volatile Status preBindPreFlight = Status.SUCCESS;
  volatile Status bind = Status.SUCCESS;

  RecordingPlugin(String name, List<String> log) {
    this.name = name;
    this.log = log;
  }

  static PluginFactoryHolder factory(RecordingPlugin p) {
    return new PluginFactoryHolder(p);
  }

  /** Wraps a prebuilt instance as a factory. */
  record PluginFactoryHolder(RecordingPlugin plugin) implements io.berth.framework.PluginFactory {
    @Override
    public io.berth.framework.Plugin create(Map<String, Object> args, io.berth.framework.Handle h) {
      return plugin;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean less(QueuedPodInfo a, QueuedPodInfo b) {
    return a.timestamp().isBefore(b.timestamp());
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    log.add(name + ".PreFilter");
    return preFilter;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    log.add(name + ".Filter(" + nodeInfo.nodeName() + ")");
    return filter.apply(nodeInfo);
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
    log.add(name + ".PreScore");
    return preScore;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    log.add(name + ".Score(" + nodeInfo.nodeName() + ")");
    return score.apply(nodeInfo);
  }

  @Override
  public Optional<ScoreExtensions> scoreExtensions() {
    Function<List<NodeScore>, Status> n = normalize;
    return n == null ? Optional.empty() : Optional.of((state, pod, scores) -> n.apply(scores));
  }

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".Reserve");
    return reserve;
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".Unreserve");
  }

  @Override
  public PermitResult permit(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".Permit");
    return permit;
  }

  @Override
  public Status preBindPreFlight(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".PreBindPreFlight");
    return preBindPreFlight;
  }

  @Override
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".PreBind");
    return preBind;
  }

  @Override
  public Status bind(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".Bind");
    return bind;
  }

  @Override
  public void postBind(CycleState state, Pod pod, String nodeName) {
    log.add(name + ".PostBind");
  }
}
