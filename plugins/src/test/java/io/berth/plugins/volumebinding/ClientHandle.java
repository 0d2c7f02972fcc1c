package io.berth.plugins.volumebinding;

import io.berth.framework.CycleState;
import io.berth.framework.EventRecorder;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.ObjectLister;
import io.berth.framework.Parallelizer;
import io.berth.framework.PodInfo;
import io.berth.framework.PodNominator;
import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A test {@link Handle} whose client is a real one and whose listers read through it (always
 * current, unlike an informer); everything else comes from a {@link TestHandle}. Thread-safe as
 * far as the client is.
 */
final class ClientHandle implements Handle {
  private final KubernetesClient client;
  private final Map<Class<?>, ObjectLister<?>> overrides;
  private final TestHandle rest = new TestHandle();

  ClientHandle(KubernetesClient client) {
    this(client, Map.of());
  }

  /** Serves {@code overrides} instead of client reads for their classes. */
  ClientHandle(KubernetesClient client, Map<Class<?>, ObjectLister<?>> overrides) {
    this.client = client;
    this.overrides = Map.copyOf(overrides);
  }

  /** A lister over API reads. */
  static <T extends HasMetadata> ObjectLister<T> clientLister(KubernetesClient client,
      Class<T> type) {
    boolean namespaced = Namespaced.class.isAssignableFrom(type);
    return new ObjectLister<>() {
      @Override
      public List<T> list() {
        return namespaced ? client.resources(type).inAnyNamespace().list().getItems()
            : client.resources(type).list().getItems();
      }

      @Override
      public List<T> list(String namespace) {
        return client.resources(type).inNamespace(namespace).list().getItems();
      }

      @Override
      public Optional<T> get(String namespace, String name) {
        return Optional.ofNullable(namespaced
            ? client.resources(type).inNamespace(namespace).withName(name).get()
            : client.resources(type).withName(name).get());
      }
    };
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    ObjectLister<?> override = overrides.get(type);
    return override != null ? (ObjectLister<T>) override : clientLister(client, type);
  }

  @Override
  public io.berth.framework.PreemptionMetrics preemptionMetrics() {
    return io.berth.framework.PreemptionMetrics.NOOP;
  }

  @Override
  public io.berth.framework.FeatureGates featureGates() {
    return io.berth.framework.FeatureGates.defaults();
  }

  @Override
  public void activate(java.util.Collection<io.fabric8.kubernetes.api.model.Pod> pods) {
    // no queue behind this handle
  }

  @Override
  public io.berth.framework.PodApi podApi() {
    return new io.berth.framework.runtime.ClientPodApi(client);
  }

  @Override
  public KubernetesClient client() {
    return client;
  }

  @Override
  public NodeInfoLister snapshotLister() {
    return rest.snapshotLister();
  }

  @Override
  public EventRecorder eventRecorder() {
    return rest.eventRecorder();
  }

  @Override
  public Parallelizer parallelizer() {
    return rest.parallelizer();
  }

  @Override
  public PodNominator nominator() {
    return rest.nominator();
  }

  @Override
  public Optional<WaitingPod> getWaitingPod(String podUid) {
    return rest.getWaitingPod(podUid);
  }

  @Override
  public void iterateOverWaitingPods(Consumer<WaitingPod> action) {
    rest.iterateOverWaitingPods(action);
  }

  @Override
  public void rejectWaitingPod(String podUid) {
    rest.rejectWaitingPod(podUid);
  }

  @Override
  public Status runFilterPluginsWithNominatedPods(CycleState state, Pod pod, NodeInfo nodeInfo) {
    return rest.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
  }

  @Override
  public Status runPreFilterExtensionAddPod(CycleState state, Pod podToSchedule, PodInfo podToAdd,
      NodeInfo nodeInfo) {
    return rest.runPreFilterExtensionAddPod(state, podToSchedule, podToAdd, nodeInfo);
  }

  @Override
  public Status runPreFilterExtensionRemovePod(CycleState state, Pod podToSchedule,
      PodInfo podToRemove, NodeInfo nodeInfo) {
    return rest.runPreFilterExtensionRemovePod(state, podToSchedule, podToRemove, nodeInfo);
  }
}
