package io.berth.framework.testing;

import io.berth.framework.CycleState;
import io.berth.framework.EventRecorder;
import io.berth.framework.FeatureGates;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.ObjectLister;
import io.berth.framework.Parallelizer;
import io.berth.framework.PodApi;
import io.berth.framework.PodInfo;
import io.berth.framework.PodNominator;
import io.berth.framework.PreemptionMetrics;
import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.berth.framework.runtime.ClientPodApi;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A {@link Handle} for plugin unit tests: a settable snapshot, listers over objects the test adds,
 * a sequential parallelizer, no nominated pods, and recorded events. Not for production. Setters
 * are not thread-safe; reads are safe once the test has set it up.
 */
public final class TestHandle implements Handle {
  private volatile NodeInfoLister snapshot = new ListNodeInfoLister(List.of());
  private final Map<Class<?>, List<HasMetadata>> objects = new HashMap<>();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private KubernetesClient client;
  private PodApi podApi;
  private io.berth.framework.ApiCacher apiCacher;
  private FeatureGates featureGates = FeatureGates.defaults();
  private final List<String> activated = Collections.synchronizedList(new ArrayList<>());

  /** Uses {@code nodes} as the cycle's snapshot. */
  public TestHandle withNodes(List<NodeInfo> nodes) {
    this.snapshot = new ListNodeInfoLister(nodes);
    return this;
  }

  /** Makes {@code items} visible through {@link #lister(Class)} for their class. */
  public TestHandle withObjects(HasMetadata... items) {
    for (HasMetadata item : items) {
      objects.computeIfAbsent(item.getClass(), k -> new ArrayList<>()).add(item);
    }
    return this;
  }

  public TestHandle withClient(KubernetesClient client) {
    this.client = client;
    return this;
  }

  public TestHandle withFeatureGates(FeatureGates gates) {
    this.featureGates = gates;
    return this;
  }

  /** The pods passed to {@link #activate}, as "namespace/name", in order. */
  public List<String> activated() {
    return List.copyOf(activated);
  }

  /** Uses {@code api} for {@link #podApi()} instead of one over the client. */
  public TestHandle withPodApi(PodApi api) {
    this.podApi = api;
    return this;
  }

  /** Makes {@link #apiCacher()} answer {@code cacher} (the {@code SchedulerAsyncAPICalls} path). */
  public TestHandle withApiCacher(io.berth.framework.ApiCacher cacher) {
    this.apiCacher = cacher;
    return this;
  }

  @Override
  public java.util.Optional<io.berth.framework.ApiCacher> apiCacher() {
    return java.util.Optional.ofNullable(apiCacher);
  }

  /** Recorded events as "type reason message". */
  public List<String> events() {
    return List.copyOf(events);
  }

  @Override
  public NodeInfoLister snapshotLister() {
    return snapshot;
  }

  @Override
  public KubernetesClient client() {
    if (client == null) {
      throw new IllegalStateException("TestHandle has no client");
    }
    return client;
  }

  @Override
  public FeatureGates featureGates() {
    return featureGates;
  }

  @Override
  public PreemptionMetrics preemptionMetrics() {
    return PreemptionMetrics.NOOP;
  }

  @Override
  public void activate(Collection<Pod> pods) {
    for (Pod p : pods) {
      activated.add(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName());
    }
  }

  @Override
  public PodApi podApi() {
    if (podApi != null) {
      return podApi;
    }
    return new ClientPodApi(client());
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    return new ObjectLister<>() {
      private List<T> all() {
        return (List<T>) (List<?>) objects.getOrDefault(type, List.of());
      }

      @Override
      public List<T> list() {
        return List.copyOf(all());
      }

      @Override
      public List<T> list(String namespace) {
        return all().stream()
            .filter(o -> Objects.equals(namespace, o.getMetadata().getNamespace())).toList();
      }

      @Override
      public Optional<T> get(String namespace, String name) {
        return all().stream()
            .filter(o -> name.equals(o.getMetadata().getName()))
            .filter(o -> namespace == null || namespace.isEmpty()
                || namespace.equals(o.getMetadata().getNamespace()))
            .findFirst();
      }
    };
  }

  @Override
  public EventRecorder eventRecorder() {
    return (regarding, type, reason, action, message) ->
        events.add(type + " " + reason + " " + message);
  }

  @Override
  public Parallelizer parallelizer() {
    return new Parallelizer() {
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
    };
  }

  @Override
  public PodNominator nominator() {
    return nodeName -> List.of();
  }

  @Override
  public Optional<WaitingPod> getWaitingPod(String podUid) {
    return Optional.empty();
  }

  @Override
  public void iterateOverWaitingPods(Consumer<WaitingPod> action) {}

  @Override
  public void rejectWaitingPod(String podUid) {}

  @Override
  public Status runFilterPluginsWithNominatedPods(CycleState state, Pod pod, NodeInfo nodeInfo) {
    throw new UnsupportedOperationException("TestHandle does not run plugins");
  }

  @Override
  public Status runPreFilterExtensionAddPod(CycleState state, Pod podToSchedule, PodInfo podToAdd,
      NodeInfo nodeInfo) {
    throw new UnsupportedOperationException("TestHandle does not run plugins");
  }

  @Override
  public Status runPreFilterExtensionRemovePod(CycleState state, Pod podToSchedule,
      PodInfo podToRemove, NodeInfo nodeInfo) {
    throw new UnsupportedOperationException("TestHandle does not run plugins");
  }
}
