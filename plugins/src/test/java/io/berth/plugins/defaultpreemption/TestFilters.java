package io.berth.plugins.defaultpreemption;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeInfo;
import io.berth.framework.PluginFactory;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fake plugins of upstream's preemption tests ({@code tf.FakeFilterPlugin}, True/False/Match
 * filters and the {@code test-plugin} whose AddPod/RemovePod fail on nodes labelled
 * {@code error=true}). Thread-safe: immutable apart from an atomic call counter.
 */
final class TestFilters {
  static final String FAKE_REASON = "injecting failure for pod test-pod";

  private TestFilters() {}

  /** Counts Filter calls and answers {@code code} (Success when null) on every node. */
  static final class FakeFilter implements FilterPlugin {
    static final String NAME = "FakeFilter";
    final AtomicInteger calls = new AtomicInteger();
    private final Code code;

    FakeFilter(Code code) {
      this.code = code;
    }

    PluginFactory factory() {
      return (args, handle) -> this;
    }

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
      calls.incrementAndGet();
      return code == null ? Status.SUCCESS : Status.of(code, FAKE_REASON);
    }
  }

  /** Rejects every node (upstream's FalseFilter). */
  static PluginFactory falseFilter() {
    return (args, handle) -> named("FalseFilter",
        (state, pod, node) -> Status.unschedulable(FAKE_REASON));
  }

  /** Accepts every node (upstream's TrueFilter). */
  static PluginFactory trueFilter() {
    return (args, handle) -> named("TrueFilter", (state, pod, node) -> Status.SUCCESS);
  }

  /** Accepts only the node named as the pod (upstream's MatchFilter). */
  static PluginFactory matchFilter() {
    return (args, handle) -> named("MatchFilter",
        (state, pod, node) -> node.nodeName().equals(pod.getMetadata().getName())
            ? Status.SUCCESS : Status.unschedulable(FAKE_REASON));
  }

  interface FilterFn {
    Status filter(CycleState state, Pod pod, NodeInfo nodeInfo);
  }

  private static FilterPlugin named(String name, FilterFn fn) {
    return new FilterPlugin() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
        return fn.filter(state, pod, nodeInfo);
      }
    };
  }

  /** PreFilter with extensions that fail on nodes labelled error=true (upstream's TestPlugin). */
  static final class ErrorOnLabelPlugin implements PreFilterPlugin, PreFilterExtensions {
    static final String NAME = "test-plugin";

    static PluginFactory factory() {
      return (args, handle) -> new ErrorOnLabelPlugin();
    }

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
      return PreFilterResult.SUCCESS;
    }

    @Override
    public Optional<PreFilterExtensions> preFilterExtensions() {
      return Optional.of(this);
    }

    @Override
    public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd,
        NodeInfo nodeInfo) {
      return failing(nodeInfo) ? Status.error("failed to add pod: "
          + podToSchedule.getMetadata().getName()) : Status.SUCCESS;
    }

    @Override
    public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove,
        NodeInfo nodeInfo) {
      return failing(nodeInfo) ? Status.error("failed to remove pod: "
          + podToSchedule.getMetadata().getName()) : Status.SUCCESS;
    }

    private static boolean failing(NodeInfo nodeInfo) {
      var labels = nodeInfo.getNode().getMetadata().getLabels();
      return labels != null && "true".equals(labels.get("error"));
    }
  }
}
