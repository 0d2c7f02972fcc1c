package io.berth.plugins.podtopologyspread;

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
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import java.util.function.Consumer;

/** A Handle forwarding to another, for tests that override one method. */
class DelegatingHandle implements Handle {
  private final Handle delegate;

  DelegatingHandle(Handle delegate) {
    this.delegate = delegate;
  }

  @Override
  public NodeInfoLister snapshotLister() {
    return delegate.snapshotLister();
  }

  @Override
  public io.berth.framework.PreemptionMetrics preemptionMetrics() {
    return delegate.preemptionMetrics();
  }

  @Override
  public io.berth.framework.FeatureGates featureGates() {
    return delegate.featureGates();
  }

  @Override
  public void activate(java.util.Collection<io.fabric8.kubernetes.api.model.Pod> pods) {
    delegate.activate(pods);
  }

  @Override
  public io.berth.framework.PodApi podApi() {
    return delegate.podApi();
  }

  @Override
  public KubernetesClient client() {
    return delegate.client();
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    return delegate.lister(type);
  }

  @Override
  public EventRecorder eventRecorder() {
    return delegate.eventRecorder();
  }

  @Override
  public Parallelizer parallelizer() {
    return delegate.parallelizer();
  }

  @Override
  public PodNominator nominator() {
    return delegate.nominator();
  }

  @Override
  public Optional<WaitingPod> getWaitingPod(String podUid) {
    return delegate.getWaitingPod(podUid);
  }

  @Override
  public void iterateOverWaitingPods(Consumer<WaitingPod> action) {
    delegate.iterateOverWaitingPods(action);
  }

  @Override
  public void rejectWaitingPod(String podUid) {
    delegate.rejectWaitingPod(podUid);
  }

  @Override
  public Status runFilterPluginsWithNominatedPods(CycleState state, Pod pod, NodeInfo nodeInfo) {
    return delegate.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
  }

  @Override
  public Status runPreFilterExtensionAddPod(CycleState state, Pod podToSchedule,
      PodInfo podToAdd, NodeInfo nodeInfo) {
    return delegate.runPreFilterExtensionAddPod(state, podToSchedule, podToAdd, nodeInfo);
  }

  @Override
  public Status runPreFilterExtensionRemovePod(CycleState state, Pod podToSchedule,
      PodInfo podToRemove, NodeInfo nodeInfo) {
    return delegate.runPreFilterExtensionRemovePod(state, podToSchedule, podToRemove, nodeInfo);
  }
}
