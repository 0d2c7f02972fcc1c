package io.berth.plugins.defaultpreemption;

import io.berth.framework.CycleState;
import io.berth.framework.EventRecorder;
import io.berth.framework.FeatureGates;
import io.berth.framework.NodeInfo;
import io.berth.framework.ObjectLister;
import io.berth.framework.Parallelizer;
import io.berth.framework.PluginFactory;
import io.berth.framework.PodApi;
import io.berth.framework.PodNominator;
import io.berth.framework.PreFilterResult;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.ListerProvider;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.framework.testing.ListNodeInfoLister;
import io.berth.plugins.defaultbinder.DefaultBinder;
import io.berth.plugins.interpodaffinity.InterPodAffinity;
import io.berth.plugins.noderesources.NodeResourcesFit;
import io.berth.plugins.podtopologyspread.PodTopologySpread;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntUnaryOperator;

/**
 * A real {@link FrameworkRuntime} around DefaultPreemption, as upstream's tests build one with
 * {@code tf.NewFramework}: PrioritySort, DefaultBinder, DefaultPreemption and the filter plugins a
 * test names (NodeResourcesFit, InterPodAffinity, PodTopologySpread or extra test plugins), over a
 * fixed snapshot. Built once per test on the test thread; the runtime itself is thread-safe.
 */
final class PreemptionRuntime {
  /** The clock the plugin reads: pods without a start time started "now", at 1000 s. */
  static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(1000), ZoneOffset.UTC);

  final FrameworkRuntime fw;
  final DefaultPreemption plugin;
  final List<NodeInfo> nodes;

  private PreemptionRuntime(FrameworkRuntime fw, List<NodeInfo> nodes) {
    this.fw = fw;
    this.plugin = (DefaultPreemption) fw.plugin(DefaultPreemption.NAME).orElseThrow();
    this.nodes = nodes;
  }

  static Builder builder() {
    return new Builder();
  }

  /** Runs PreFilter for {@code pod} into a new state, as the scheduling cycle would have. */
  CycleState preFiltered(Pod pod) {
    CycleState state = new CycleState();
    PreFilterResult r = fw.runPreFilterPlugins(state, pod, nodes);
    if (!r.status().isSuccess()) {
      throw new AssertionError("unexpected PreFilter status " + r.status());
    }
    return state;
  }

  /** Collects the runtime's pieces; not thread-safe. */
  static final class Builder {
    private final Map<String, PluginFactory> filters = new LinkedHashMap<>();
    private List<NodeInfo> nodes = List.of();
    private final List<HasMetadata> objects = new ArrayList<>();
    private Map<String, Object> args = Map.of();
    private IntUnaryOperator offsets = n -> 0;
    private Parallelizer parallelizer = new SequentialParallelizer();
    private PodNominator nominator = nodeName -> List.of();
    private KubernetesClient client;
    private EventRecorder events = EventRecorder.NOOP;
    private PodApi podApi;
    /**
     * Synchronous preemption: the cases translated from upstream's default_preemption_test.go
     * check victims deleted within PostFilter (v1.36 defaults to asynchronous; tests that want it
     * say so, as AsyncPreemptionTest does).
     */
    private FeatureGates gates = FeatureGates.parse("SchedulerAsyncPreemption=false");
    private Consumer<Collection<Pod>> activator = pods -> { };

    Builder fit() {
      return plugin(NodeResourcesFit.NAME, NodeResourcesFit::create);
    }

    Builder interPodAffinity() {
      return plugin(InterPodAffinity.NAME, InterPodAffinity::create);
    }

    Builder podTopologySpread() {
      return plugin(PodTopologySpread.NAME, PodTopologySpread::create);
    }

    /** A further plugin, enabled in multiPoint in the order added. */
    Builder plugin(String name, PluginFactory factory) {
      filters.put(name, factory);
      return this;
    }

    Builder nodes(List<NodeInfo> value) {
      this.nodes = List.copyOf(value);
      return this;
    }

    /** Objects served by the listers (PodDisruptionBudgets); other kinds list empty. */
    Builder objects(List<? extends HasMetadata> value) {
      objects.addAll(value);
      return this;
    }

    Builder args(Map<String, Object> value) {
      this.args = value;
      return this;
    }

    Builder offsets(IntUnaryOperator value) {
      this.offsets = value;
      return this;
    }

    Builder parallelizer(Parallelizer value) {
      this.parallelizer = value;
      return this;
    }

    Builder nominator(PodNominator value) {
      this.nominator = value;
      return this;
    }

    Builder client(KubernetesClient value) {
      this.client = value;
      return this;
    }

    Builder podApi(PodApi value) {
      this.podApi = value;
      return this;
    }

    Builder featureGates(FeatureGates value) {
      this.gates = value;
      return this;
    }

    Builder activator(Consumer<Collection<Pod>> value) {
      this.activator = value;
      return this;
    }

    Builder events(EventRecorder value) {
      this.events = value;
      return this;
    }

    PreemptionRuntime build() {
      Registry registry = new Registry()
          .register(PrioritySort.NAME, PrioritySort::create)
          .register(DefaultBinder.NAME, DefaultBinder::create)
          .register(DefaultPreemption.NAME,
              (a, h) -> DefaultPreemption.create(a, h, offsets, CLOCK));
      List<PluginRef> refs = new ArrayList<>();
      filters.forEach((name, factory) -> {
        registry.register(name, factory);
        refs.add(PluginRef.of(name));
      });
      refs.add(PluginRef.of(PrioritySort.NAME));
      refs.add(PluginRef.of(DefaultPreemption.NAME));
      refs.add(PluginRef.of(DefaultBinder.NAME));
      ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
          new PluginSet(refs, List.of()), Map.of(DefaultPreemption.NAME, args),
          OptionalInt.empty());
      ListNodeInfoLister snapshot = new ListNodeInfoLister(nodes);
      FrameworkRuntime.Builder b = FrameworkRuntime.builder(registry, profile)
          .snapshot(() -> snapshot).listers(listers(List.copyOf(objects)))
          .parallelizer(parallelizer).nominator(nominator).eventRecorder(events)
          .featureGates(gates).activator(activator);
      if (client != null) {
        b.client(client);
      }
      if (podApi != null) {
        b.podApi(podApi);
      }
      return new PreemptionRuntime(b.build(), nodes);
    }
  }

  private static ListerProvider listers(List<HasMetadata> objects) {
    return new ListerProvider() {
      @Override
      public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
        List<T> all = objects.stream().filter(type::isInstance).map(type::cast).toList();
        return new ObjectLister<>() {
          @Override
          public List<T> list() {
            return all;
          }

          @Override
          public List<T> list(String namespace) {
            return all.stream()
                .filter(o -> Objects.equals(namespace, o.getMetadata().getNamespace())).toList();
          }

          @Override
          public Optional<T> get(String namespace, String name) {
            return list(namespace).stream()
                .filter(o -> name.equals(o.getMetadata().getName())).findFirst();
          }
        };
      }
    };
  }

  /** Runs pieces in order on the caller's thread, like upstream's parallelism 1. */
  static final class SequentialParallelizer implements Parallelizer {
    @Override
    public int parallelism() {
      return 1;
    }

    @Override
    public void until(int pieces, IntConsumer work, BooleanSupplier stop) {
      for (int i = 0; i < pieces && !stop.getAsBoolean(); i++) {
        work.accept(i);
      }
    }
  }
}
