package io.berth.controller.deployment;

import io.berth.controller.OwnerReferences;
import io.berth.controller.Selector;
import io.berth.informer.Cache;
import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer handlers of the Deployment controller (upstream's {@code addDeployment}, {@code updateDeployment},
 * {@code deleteDeployment}, {@code addReplicaSet}, {@code updateReplicaSet}, {@code deleteReplicaSet},
 * {@code deletePod}): they turn changes into Deployment keys on the queue.
 * <ul>
 *   <li>A ReplicaSet with a controller reference wakes only that Deployment (same name and UID); an orphan wakes
 *       every Deployment whose selector matches it, so one may adopt it; a changed controller reference wakes the
 *       old owner too.
 *   <li>A deleted pod wakes the Deployment that owns its ReplicaSet when that Deployment uses Recreate, which waits
 *       for old pods to be gone.
 * </ul>
 * Called on the informers' delivery threads; all shared state is in thread-safe collaborators.
 */
final class DeploymentEventHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(DeploymentEventHandlers.class);

  private final Lister<Deployment> deployments;
  private final Lister<ReplicaSet> replicaSets;
  private final WorkQueue<String> queue;

  DeploymentEventHandlers(Lister<Deployment> deployments, Lister<ReplicaSet> replicaSets, WorkQueue<String> queue) {
    this.deployments = Objects.requireNonNull(deployments, "deployments");
    this.replicaSets = Objects.requireNonNull(replicaSets, "replicaSets");
    this.queue = Objects.requireNonNull(queue, "queue");
  }

  ResourceEventHandler<Deployment> deploymentHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Deployment d, boolean isInInitialList) {
        queue.add(Cache.metaNamespaceKey(d));
      }

      @Override
      public void onUpdate(Deployment oldD, Deployment curD) {
        queue.add(Cache.metaNamespaceKey(curD));
      }

      @Override
      public void onDelete(Deployment d, boolean finalStateUnknown) {
        queue.add(Cache.metaNamespaceKey(d));
      }
    };
  }

  ResourceEventHandler<ReplicaSet> replicaSetHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ReplicaSet rs, boolean isInInitialList) {
        addReplicaSet(rs);
      }

      @Override
      public void onUpdate(ReplicaSet oldRs, ReplicaSet curRs) {
        updateReplicaSet(oldRs, curRs);
      }

      @Override
      public void onDelete(ReplicaSet rs, boolean finalStateUnknown) {
        deleteReplicaSet(rs);
      }
    };
  }

  ResourceEventHandler<Pod> podHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onDelete(Pod pod, boolean finalStateUnknown) {
        deletePod(pod);
      }
    };
  }

  void addReplicaSet(ReplicaSet rs) {
    if (rs.getMetadata().getDeletionTimestamp() != null) {
      // a restarted controller can find ReplicaSets already being deleted
      deleteReplicaSet(rs);
      return;
    }
    Optional<OwnerReference> ref = OwnerReferences.controllerOf(rs);
    if (ref.isPresent()) {
      resolveControllerRef(rs.getMetadata().getNamespace(), ref.get()).ifPresent(this::enqueue);
      return;
    }
    deploymentsFor(rs).forEach(this::enqueue);
  }

  void updateReplicaSet(ReplicaSet oldRs, ReplicaSet curRs) {
    if (Objects.equals(oldRs.getMetadata().getResourceVersion(), curRs.getMetadata().getResourceVersion())) {
      return; // a resync; Deployments have their own
    }
    Optional<OwnerReference> curRef = OwnerReferences.controllerOf(curRs);
    Optional<OwnerReference> oldRef = OwnerReferences.controllerOf(oldRs);
    boolean refChanged = !curRef.equals(oldRef);
    if (refChanged && oldRef.isPresent()) {
      resolveControllerRef(oldRs.getMetadata().getNamespace(), oldRef.get()).ifPresent(this::enqueue);
    }
    if (curRef.isPresent()) {
      resolveControllerRef(curRs.getMetadata().getNamespace(), curRef.get()).ifPresent(this::enqueue);
      return;
    }
    boolean labelsChanged = !Objects.equals(curRs.getMetadata().getLabels(), oldRs.getMetadata().getLabels());
    if (labelsChanged || refChanged) {
      deploymentsFor(curRs).forEach(this::enqueue);
    }
  }

  void deleteReplicaSet(ReplicaSet rs) {
    OwnerReferences.controllerOf(rs)
        .flatMap(ref -> resolveControllerRef(rs.getMetadata().getNamespace(), ref))
        .ifPresent(this::enqueue);
  }

  void deletePod(Pod pod) {
    Optional<OwnerReference> rsRef = OwnerReferences.controllerOf(pod);
    if (rsRef.isEmpty() || !"ReplicaSet".equals(rsRef.get().getKind())) {
      return;
    }
    String ns = pod.getMetadata().getNamespace();
    replicaSets.get(ns, rsRef.get().getName())
        .filter(rs -> Objects.equals(rs.getMetadata().getUid(), rsRef.get().getUid()))
        .flatMap(OwnerReferences::controllerOf)
        .flatMap(ref -> resolveControllerRef(ns, ref))
        .filter(RollingUpdateMath::isRecreate)
        .ifPresent(this::enqueue);
  }

  private void enqueue(Deployment d) {
    queue.add(Cache.metaNamespaceKey(d));
  }

  private Optional<Deployment> resolveControllerRef(String namespace, OwnerReference ref) {
    if (!"Deployment".equals(ref.getKind())) {
      return Optional.empty();
    }
    return deployments.get(namespace, ref.getName())
        .filter(d -> Objects.equals(d.getMetadata().getUid(), ref.getUid()));
  }

  /** The Deployments of the ReplicaSet's namespace whose valid, non-empty selector matches its labels. */
  List<Deployment> deploymentsFor(ReplicaSet rs) {
    Map<String, String> labels = rs.getMetadata().getLabels();
    if (labels == null || labels.isEmpty()) {
      return List.of();
    }
    List<Deployment> result = new ArrayList<>();
    for (Deployment d : deployments.list(rs.getMetadata().getNamespace())) {
      if (d.getSpec() == null) {
        continue;
      }
      try {
        Selector selector = Selector.fromLabelSelector(d.getSpec().getSelector());
        if (!selector.isEmpty() && selector.matches(labels)) {
          result.add(d);
        }
      } catch (Selector.InvalidSelectorException e) {
        // an invalid Deployment adopts nothing; its own sync reports the problem
      }
    }
    if (result.size() > 1) {
      LOG.warn("user error: more than one deployment selects replica set {}/{} with labels {}",
          rs.getMetadata().getNamespace(), rs.getMetadata().getName(), labels);
    }
    return result;
  }
}
