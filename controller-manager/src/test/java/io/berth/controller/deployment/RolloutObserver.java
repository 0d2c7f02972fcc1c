package io.berth.controller.deployment;

import io.berth.informer.Fabric8ListerWatcher;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Watches the pods and ReplicaSets of one namespace and records, after every change, the extremes a rollout must
 * respect: the largest sum of the ReplicaSets' {@code spec.replicas} (what maxSurge bounds upstream), the most pods
 * that existed at once (terminating ones excluded), the fewest available ones (Ready and not terminating), and
 * whether pods of two templates (two {@code pod-template-hash} values) ever existed at the same time, terminating
 * ones included. Thread-safe: every method synchronizes on the observer (the informer calls it from one thread).
 */
final class RolloutObserver implements AutoCloseable {

  private final SharedIndexInformer<Pod> informer;
  private final SharedIndexInformer<ReplicaSet> replicaSets;
  private int maxPods;
  private int maxReplicaSetReplicas;
  private int minAvailable = Integer.MAX_VALUE;
  private boolean templatesOverlapped;
  private boolean recording;

  RolloutObserver(KubernetesClient client, String namespace) {
    informer = SharedIndexInformer.create(Fabric8ListerWatcher.of(client, Pod.class).inNamespace(namespace),
        Duration.ZERO);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        sample();
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        sample();
      }

      @Override
      public void onDelete(Pod obj, boolean finalStateUnknown) {
        sample();
      }
    });
    informer.start();
    replicaSets = SharedIndexInformer.create(Fabric8ListerWatcher.of(client, ReplicaSet.class)
        .inNamespace(namespace), Duration.ZERO);
    replicaSets.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(ReplicaSet obj, boolean isInInitialList) {
        sampleReplicaSets();
      }

      @Override
      public void onUpdate(ReplicaSet oldObj, ReplicaSet newObj) {
        sampleReplicaSets();
      }
    });
    replicaSets.start();
  }

  boolean synced() {
    return informer.hasSynced() && replicaSets.hasSynced();
  }

  private synchronized void sampleReplicaSets() {
    if (!recording) {
      return;
    }
    int sum = 0;
    for (ReplicaSet rs : replicaSets.getStore().list()) {
      sum += rs.getSpec().getReplicas() == null ? 0 : rs.getSpec().getReplicas();
    }
    maxReplicaSetReplicas = Math.max(maxReplicaSetReplicas, sum);
  }

  synchronized int maxReplicaSetReplicas() {
    return maxReplicaSetReplicas;
  }

  /** Starts recording extremes from the current state on. */
  synchronized void startRecording() {
    maxPods = 0;
    maxReplicaSetReplicas = 0;
    minAvailable = Integer.MAX_VALUE;
    templatesOverlapped = false;
    recording = true;
    sample();
    sampleReplicaSets();
  }

  private synchronized void sample() {
    if (!recording) {
      return;
    }
    List<Pod> pods = informer.getStore().list();
    int live = 0;
    int available = 0;
    Set<String> hashes = new HashSet<>();
    for (Pod p : pods) {
      String hash = p.getMetadata().getLabels() == null ? null : p.getMetadata().getLabels().get("pod-template-hash");
      if (hash != null) {
        hashes.add(hash);
      }
      if (p.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      live++;
      if (p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
          .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))) {
        available++;
      }
    }
    maxPods = Math.max(maxPods, live);
    minAvailable = Math.min(minAvailable, available);
    templatesOverlapped |= hashes.size() > 1;
  }

  synchronized int maxPods() {
    return maxPods;
  }

  synchronized int minAvailable() {
    return minAvailable;
  }

  synchronized boolean templatesOverlapped() {
    return templatesOverlapped;
  }

  @Override
  public void close() {
    informer.stop();
    replicaSets.stop();
  }
}
