package io.berth.controller.replicaset;

import io.berth.controller.ControllerExpectations;
import io.berth.controller.OwnerReferences;
import io.berth.controller.Pods;
import io.berth.controller.Selector;
import io.berth.informer.Cache;
import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.workqueue.DelayingQueue;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer handlers of the ReplicaSet controller (upstream's {@code addRS}/{@code updateRS}/{@code deleteRS},
 * {@code addPod}/{@code updatePod}/{@code deletePod}): they turn pod and ReplicaSet changes into ReplicaSet keys on
 * the queue and lower the expectations as creations and deletions are observed.
 * <ul>
 *   <li>A pod with a controller reference wakes only that controller (if it is a ReplicaSet of the same UID); an
 *       orphan wakes every ReplicaSet whose selector matches it, so one may adopt it.
 *   <li>A pod that appears is a creation observed; one that gets a deletionTimestamp or disappears is a deletion
 *       observed (counted once per pod by key).
 *   <li>A pod changing controller reference wakes the old controller too; a pod becoming ready wakes its
 *       ReplicaSet again after {@code minReadySeconds + 1 s} for the availability count.
 *   <li>A deleted ReplicaSet's expectations are dropped so a new one of the same name starts clean.
 * </ul>
 * Called on the informers' delivery threads, one at a time per handler; all shared state is in thread-safe
 * collaborators.
 */
final class ReplicaSetEventHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSetEventHandlers.class);

  private final Lister<ReplicaSet> replicaSets;
  private final ControllerExpectations expectations;
  private final DelayingQueue<String> queue;

  ReplicaSetEventHandlers(Lister<ReplicaSet> replicaSets, ControllerExpectations expectations,
      DelayingQueue<String> queue) {
    this.replicaSets = Objects.requireNonNull(replicaSets, "replicaSets");
    this.expectations = Objects.requireNonNull(expectations, "expectations");
    this.queue = Objects.requireNonNull(queue, "queue");
  }

  /** The handler for the ReplicaSet informer. */
  ResourceEventHandler<ReplicaSet> replicaSetHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ReplicaSet rs, boolean isInInitialList) {
        queue.add(Cache.metaNamespaceKey(rs));
      }

      @Override
      public void onUpdate(ReplicaSet oldRs, ReplicaSet curRs) {
        if (!Objects.equals(oldRs.getMetadata().getUid(), curRs.getMetadata().getUid())) {
          // deleted and re-created under the same name between two observations
          deleteReplicaSet(oldRs);
        }
        // always sync: a resync must retry ReplicaSets whose last creations failed
        queue.add(Cache.metaNamespaceKey(curRs));
      }

      @Override
      public void onDelete(ReplicaSet rs, boolean finalStateUnknown) {
        deleteReplicaSet(rs);
      }
    };
  }

  /** The handler for the pod informer. */
  ResourceEventHandler<Pod> podHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod, boolean isInInitialList) {
        addPod(pod);
      }

      @Override
      public void onUpdate(Pod oldPod, Pod curPod) {
        updatePod(oldPod, curPod);
      }

      @Override
      public void onDelete(Pod pod, boolean finalStateUnknown) {
        deletePod(pod);
      }
    };
  }

  private void deleteReplicaSet(ReplicaSet rs) {
    String key = Cache.metaNamespaceKey(rs);
    expectations.deleteExpectations(key);
    queue.add(key);
  }

  void addPod(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      // a controller restart can find pods already terminating: not a creation to observe
      deletePod(pod);
      return;
    }
    Optional<OwnerReference> ref = OwnerReferences.controllerOf(pod);
    if (ref.isPresent()) {
      resolveControllerRef(pod.getMetadata().getNamespace(), ref.get()).ifPresent(rs -> {
        String key = Cache.metaNamespaceKey(rs);
        expectations.creationObserved(key);
        queue.add(key);
      });
      return;
    }
    // an orphan: wake whoever might adopt it, without observing a creation nobody is waiting for
    for (ReplicaSet rs : podReplicaSets(pod)) {
      queue.add(Cache.metaNamespaceKey(rs));
    }
  }

  void updatePod(Pod oldPod, Pod curPod) {
    if (Objects.equals(oldPod.getMetadata().getResourceVersion(), curPod.getMetadata().getResourceVersion())) {
      return; // a resync: nothing changed
    }
    boolean labelsChanged = !Objects.equals(labels(oldPod), labels(curPod));
    if (curPod.getMetadata().getDeletionTimestamp() != null) {
      // graceful deletion started: replace the pod now rather than when the kubelet is done with it
      deletePod(curPod);
      if (labelsChanged) {
        deletePod(oldPod);
      }
      return;
    }
    Optional<OwnerReference> curRef = OwnerReferences.controllerOf(curPod);
    Optional<OwnerReference> oldRef = OwnerReferences.controllerOf(oldPod);
    boolean refChanged = !curRef.equals(oldRef);
    if (refChanged && oldRef.isPresent()) {
      resolveControllerRef(oldPod.getMetadata().getNamespace(), oldRef.get())
          .ifPresent(rs -> queue.add(Cache.metaNamespaceKey(rs)));
    }
    if (curRef.isPresent()) {
      Optional<ReplicaSet> owner = resolveControllerRef(curPod.getMetadata().getNamespace(), curRef.get());
      if (owner.isEmpty()) {
        return;
      }
      ReplicaSet rs = owner.get();
      String key = Cache.metaNamespaceKey(rs);
      queue.add(key);
      int minReadySeconds = ReplicaSetStatuses.orZero(rs.getSpec().getMinReadySeconds());
      if (!Pods.isReady(oldPod) && Pods.isReady(curPod) && minReadySeconds > 0) {
        // one second more, so the check does not run a few milliseconds too early
        queue.addAfter(key, Duration.ofSeconds(minReadySeconds).plusSeconds(1));
      }
      return;
    }
    if (labelsChanged || refChanged) {
      for (ReplicaSet rs : podReplicaSets(curPod)) {
        queue.add(Cache.metaNamespaceKey(rs));
      }
    }
  }

  void deletePod(Pod pod) {
    Optional<OwnerReference> ref = OwnerReferences.controllerOf(pod);
    if (ref.isEmpty()) {
      return; // no controller waits for orphans to go
    }
    resolveControllerRef(pod.getMetadata().getNamespace(), ref.get()).ifPresent(rs -> {
      String key = Cache.metaNamespaceKey(rs);
      expectations.deletionObserved(key, Pods.key(pod));
      queue.add(key);
    });
  }

  /** The ReplicaSet a controller reference points to, if it is one and has that UID ({@code resolveControllerRef}). */
  private Optional<ReplicaSet> resolveControllerRef(String namespace, OwnerReference ref) {
    if (!"ReplicaSet".equals(ref.getKind())) {
      return Optional.empty();
    }
    return replicaSets.get(namespace, ref.getName())
        .filter(rs -> Objects.equals(rs.getMetadata().getUid(), ref.getUid()));
  }

  /**
   * The ReplicaSets of the pod's namespace whose valid, non-empty selector matches it
   * ({@code GetPodReplicaSets}); none for a pod without labels.
   */
  List<ReplicaSet> podReplicaSets(Pod pod) {
    Map<String, String> podLabels = labels(pod);
    if (podLabels.isEmpty()) {
      return List.of();
    }
    List<ReplicaSet> result = new ArrayList<>();
    for (ReplicaSet rs : replicaSets.list(pod.getMetadata().getNamespace())) {
      if (rs.getSpec() == null) {
        continue;
      }
      Selector selector;
      try {
        selector = Selector.fromLabelSelector(rs.getSpec().getSelector());
      } catch (Selector.InvalidSelectorException e) {
        continue;
      }
      if (!selector.isEmpty() && selector.matches(podLabels)) {
        result.add(rs);
      }
    }
    if (result.size() > 1) {
      LOG.warn("user error: more than one ReplicaSet is selecting pods with labels {}", podLabels);
    }
    return result;
  }

  private static Map<String, String> labels(Pod pod) {
    Map<String, String> l = pod.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }
}
