package io.berth.controller.replicaset;

import io.berth.controller.ActivePodsWithRanks;
import io.berth.controller.ControllerExpectations;
import io.berth.controller.ControllerIndexes;
import io.berth.controller.ControllerRefManager;
import io.berth.controller.EventRecorder;
import io.berth.controller.GroupVersionKind;
import io.berth.controller.KubeApiErrors;
import io.berth.controller.MutationCache;
import io.berth.controller.OwnerReferences;
import io.berth.controller.PodControl;
import io.berth.controller.Pods;
import io.berth.controller.Selector;
import io.berth.controller.SlowStart;
import io.berth.controller.WallClock;
import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.Lister;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ReplicaSet sync (upstream's {@code syncReplicaSet}, {@code manageReplicas}, {@code claimPods}): read the
 * ReplicaSet from its lister and, through the pod indexes, the pods it controls and the orphans of its namespace
 * its selector could match ({@link ControllerIndexes#podsToClaim}), claim the active ones (adopt matching
 * orphans, release owned pods that stopped matching; pods of other controllers are never candidates), create or
 * delete pods toward {@code spec.replicas} when the expectations are satisfied and the ReplicaSet is not being
 * deleted, then write the status if it changed (over this controller's last status write when the informer has not
 * delivered it yet: a {@link MutationCache}). The only API calls are writes, the live GET of the adoption recheck
 * and the GET of the status retry: never a LIST.
 *
 * <p>Creation: at most {@code burstReplicas} per sync, expected before the first call, in slow-start batches that
 * stop at the first failing batch; the creations never attempted are un-expected at once. Deletion: at most
 * {@code burstReplicas}, the victims chosen by {@link ActivePodsWithRanks} (ranked by related pods on the same node:
 * the pods of every ReplicaSet with the same controller), expected by key, deleted in parallel; each failed delete
 * is un-expected. The first error becomes the {@code ReplicaFailure} condition and the sync's error (a rate-limited
 * retry).
 *
 * <p>Thread-safe: holds only thread-safe collaborators; the work queue never runs two syncs of one key at once.
 */
final class ReplicaSetSync {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSetSync.class);

  /** Upstream's {@code statusUpdateRetries}: one GET-and-retry after a failed status write. */
  static final int STATUS_UPDATE_RETRIES = 1;

  private final Lister<ReplicaSet> replicaSets;
  private final Indexer<ReplicaSet> replicaSetIndexer;
  private final Lister<Pod> pods;
  private final Indexer<Pod> podIndexer;
  private final PodControl podControl;
  private final ReplicaSetApi api;
  private final ControllerExpectations expectations;
  private final EventRecorder recorder;
  private final WallClock wallClock;
  private final Executor executor;
  private final int burstReplicas;
  private final BiConsumer<String, Duration> requeueAfter;
  // the status this controller last wrote per ReplicaSet, read over an informer copy that has not caught up with it
  private final MutationCache<ReplicaSet> statusWrites = new MutationCache<>();

  /**
   * @param podIndexer the pod informer's indexer; must have {@link ControllerIndexes#POD_CONTROLLER_UID_INDEX} and
   *     {@link ControllerIndexes#ORPHAN_POD_LABELS_INDEX}
   * @throws IllegalArgumentException if {@code podIndexer} lacks one of them
   */
  ReplicaSetSync(Lister<ReplicaSet> replicaSets, Indexer<ReplicaSet> replicaSetIndexer, Indexer<Pod> podIndexer,
      PodControl podControl, ReplicaSetApi api, ControllerExpectations expectations, EventRecorder recorder,
      WallClock wallClock, Executor executor, int burstReplicas, BiConsumer<String, Duration> requeueAfter) {
    this.replicaSets = Objects.requireNonNull(replicaSets, "replicaSets");
    this.replicaSetIndexer = Objects.requireNonNull(replicaSetIndexer, "replicaSetIndexer");
    this.podIndexer = Objects.requireNonNull(podIndexer, "podIndexer");
    for (String index : List.of(ControllerIndexes.POD_CONTROLLER_UID_INDEX,
        ControllerIndexes.ORPHAN_POD_LABELS_INDEX)) {
      if (!podIndexer.getIndexers().containsKey(index)) {
        throw new IllegalArgumentException("the pod indexer lacks the " + index + " index");
      }
    }
    this.pods = new Lister<>(podIndexer);
    this.podControl = Objects.requireNonNull(podControl, "podControl");
    this.api = Objects.requireNonNull(api, "api");
    this.expectations = Objects.requireNonNull(expectations, "expectations");
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.burstReplicas = burstReplicas;
    this.requeueAfter = Objects.requireNonNull(requeueAfter, "requeueAfter");
  }

  /** Syncs the ReplicaSet {@code key}; throws to have the key retried with backoff. */
  void sync(String key) throws Exception {
    long start = System.nanoTime();
    try {
      syncReplicaSet(key);
    } finally {
      LOG.debug("finished syncing ReplicaSet {} in {} ms", key, (System.nanoTime() - start) / 1_000_000);
    }
  }

  private void syncReplicaSet(String key) throws Exception {
    String[] parts = Cache.splitMetaNamespaceKey(key);
    String namespace = parts[0];
    String name = parts[1];
    Optional<ReplicaSet> cached = replicaSets.get(namespace, name);
    if (cached.isEmpty()) {
      LOG.debug("ReplicaSet {} has been deleted", key);
      expectations.deleteExpectations(key);
      statusWrites.forget(key);
      return;
    }
    // our last status write when the informer has not delivered it yet: writing over the informer's older copy
    // would be refused with a conflict
    ReplicaSet rs = statusWrites.newest(key, cached.get());
    boolean needsSync = expectations.satisfiedExpectations(key);
    ReplicaSetValidation.Result validation = ReplicaSetValidation.validate(rs);
    if (validation instanceof ReplicaSetValidation.Invalid invalid) {
      LOG.warn("{}; not syncing it", invalid.message());
      recorder.event(rs, EventRecorder.WARNING, invalid.reason(), "%s", invalid.message());
      return;
    }
    Selector selector = ((ReplicaSetValidation.Valid) validation).selector();

    // the pods it controls (so that those whose labels no longer match are released) and the namespace's orphans
    // it could adopt: all a claim over the whole namespace would not ignore
    List<Pod> active = Pods.filterActive(ControllerIndexes.podsToClaim(podIndexer, rs.getMetadata(), selector));
    List<Pod> owned = claimPods(rs, selector, active);

    Optional<Exception> manageError = Optional.empty();
    if (needsSync && rs.getMetadata().getDeletionTimestamp() == null) {
      manageError = manageReplicas(key, owned, rs);
    }
    ReplicaSetStatus next = ReplicaSetStatuses.calculate(rs, owned, manageError.map(KubeApiErrors::message),
        wallClock.now());
    ReplicaSet updated = updateStatus(rs, next);

    // resync after minReadySeconds, in case no pod event comes when the pods become available
    int minReadySeconds = ReplicaSetStatuses.orZero(updated.getSpec().getMinReadySeconds());
    int replicas = ReplicaSetStatuses.orZero(updated.getSpec().getReplicas());
    ReplicaSetStatus status = updated.getStatus() == null ? new ReplicaSetStatus() : updated.getStatus();
    if (manageError.isEmpty() && minReadySeconds > 0
        && ReplicaSetStatuses.orZero(status.getReadyReplicas()) == replicas
        && ReplicaSetStatuses.orZero(status.getAvailableReplicas()) != replicas) {
      requeueAfter.accept(key, Duration.ofSeconds(minReadySeconds));
    }
    if (manageError.isPresent()) {
      throw manageError.get();
    }
  }

  private List<Pod> claimPods(ReplicaSet rs, Selector selector, List<Pod> candidates)
      throws ControllerRefManager.ClaimException {
    ControllerRefManager<Pod> manager = new ControllerRefManager<>(rs, GroupVersionKind.REPLICA_SET, selector,
        podControl::patchPod, ControllerRefManager.recheckOwner(
            () -> api.get(rs.getMetadata().getNamespace(), rs.getMetadata().getName()).orElse(null), rs));
    return manager.claim(candidates).orThrow();
  }

  /** Creates or deletes pods toward {@code spec.replicas}; the first error, if any. Never modifies {@code owned}. */
  Optional<Exception> manageReplicas(String key, List<Pod> owned, ReplicaSet rs) {
    int desired = rs.getSpec().getReplicas();
    int diff = owned.size() - desired;
    if (diff < 0) {
      int toCreate = Math.min(-diff, burstReplicas);
      // expect before the first write: the informer may report a creation before the call returns
      expectations.expectCreations(key, toCreate);
      LOG.debug("too few replicas for ReplicaSet {}: need {}, creating {}", key, desired, toCreate);
      OwnerReference controllerRef = OwnerReferences.newControllerRef(rs, GroupVersionKind.REPLICA_SET);
      SlowStart.Result result = SlowStart.slowStartBatch(toCreate, SlowStart.INITIAL_BATCH_SIZE, executor, () -> {
        try {
          podControl.createPods(rs.getMetadata().getNamespace(), rs.getSpec().getTemplate(), rs, controllerRef);
        } catch (KubernetesClientException e) {
          if (KubeApiErrors.hasStatusCause(e, KubeApiErrors.NAMESPACE_TERMINATING_CAUSE)) {
            return; // every creation would fail the same way; nothing to retry
          }
          throw e;
        }
      });
      int skipped = toCreate - result.successes();
      if (skipped > 0) {
        LOG.debug("slow-start failure for ReplicaSet {}: skipping {} creations, lowering expectations", key,
            skipped);
        for (int i = 0; i < skipped; i++) {
          expectations.creationObserved(key);
        }
      }
      return result.error();
    }
    if (diff > 0) {
      int toDelete = Math.min(diff, burstReplicas);
      LOG.debug("too many replicas for ReplicaSet {}: need {}, deleting {}", key, desired, toDelete);
      List<Pod> victims = podsToDelete(owned, relatedPods(rs), toDelete);
      List<String> victimKeys = new ArrayList<>(victims.size());
      for (Pod p : victims) {
        victimKeys.add(Pods.key(p));
      }
      expectations.expectDeletions(key, victimKeys);
      return deleteAll(key, rs, victims);
    }
    return Optional.empty();
  }

  private Optional<Exception> deleteAll(String key, ReplicaSet rs, List<Pod> victims) {
    Queue<Exception> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch done = new CountDownLatch(victims.size());
    for (Pod victim : victims) {
      Runnable delete = () -> {
        try {
          podControl.deletePod(rs.getMetadata().getNamespace(), victim.getMetadata().getName(), rs);
        } catch (RuntimeException e) {
          // the informer will never report this deletion
          expectations.deletionObserved(key, Pods.key(victim));
          if (!KubeApiErrors.isNotFound(e)) {
            LOG.debug("failed to delete pod {}, lowered the expectations of {}", Pods.key(victim), key);
            errors.add(e);
          }
        } finally {
          done.countDown();
        }
      };
      try {
        executor.execute(delete);
      } catch (RejectedExecutionException e) {
        delete.run();
      }
    }
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return Optional.ofNullable(errors.peek());
  }

  /**
   * The pods to delete: all of them when every one goes, otherwise the first {@code count} in deletion order
   * ({@code getPodsToDelete}).
   */
  List<Pod> podsToDelete(List<Pod> owned, List<Pod> related, int count) {
    if (count >= owned.size()) {
      return List.copyOf(owned);
    }
    List<Pod> sorted = ActivePodsWithRanks.sortForDeletion(
        ActivePodsWithRanks.rankByRelatedPodsOnSameNode(owned, related), wallClock.now());
    return List.copyOf(sorted.subList(0, count));
  }

  /**
   * The pods of every ReplicaSet with the same controller as {@code rs} (matched by each one's selector), each
   * once ({@code getIndirectlyRelatedPods}); none when {@code rs} has no controller.
   */
  List<Pod> relatedPods(ReplicaSet rs) {
    Optional<OwnerReference> controller = OwnerReferences.controllerOf(rs);
    if (controller.isEmpty()) {
      return List.of();
    }
    if (!replicaSetIndexer.getIndexers().containsKey(ControllerIndexes.CONTROLLER_UID_INDEX)) {
      return List.of();
    }
    List<Pod> related = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (ReplicaSet sibling : replicaSetIndexer.byIndex(ControllerIndexes.CONTROLLER_UID_INDEX,
        controller.get().getUid())) {
      Selector selector;
      try {
        selector = Selector.fromLabelSelector(sibling.getSpec().getSelector());
      } catch (Selector.InvalidSelectorException e) {
        continue; // an invalid selector matches no pods
      }
      for (Pod pod : pods.list(sibling.getMetadata().getNamespace())) {
        if (selector.matches(pod.getMetadata().getLabels()) && seen.add(pod.getMetadata().getUid())) {
          related.add(pod);
        }
      }
    }
    return related;
  }

  /**
   * Writes {@code next} unless nothing changed, with observedGeneration set to the generation acted on; on failure
   * GETs the ReplicaSet and tries once more ({@code updateReplicaSetStatus}). Returns the ReplicaSet as written (or
   * {@code rs} when nothing was written).
   */
  ReplicaSet updateStatus(ReplicaSet rs, ReplicaSetStatus next) {
    if (ReplicaSetStatuses.unchanged(rs, next)) {
      return rs;
    }
    next.setObservedGeneration(rs.getMetadata().getGeneration());
    ReplicaSet current = rs;
    for (int attempt = 0; ; attempt++) {
      ReplicaSet candidate = new ReplicaSetBuilder(current).withStatus(next).build();
      try {
        ReplicaSet written = api.updateStatus(candidate);
        statusWrites.wrote(Cache.metaNamespaceKey(rs), candidate.getMetadata().getResourceVersion(), written);
        return written;
      } catch (RuntimeException e) {
        if (attempt >= STATUS_UPDATE_RETRIES) {
          throw e;
        }
        LOG.debug("status update of ReplicaSet {}/{} failed ({}); reading it again", rs.getMetadata().getNamespace(),
            rs.getMetadata().getName(), KubeApiErrors.message(e));
        current = api.get(rs.getMetadata().getNamespace(), rs.getMetadata().getName())
            .orElseThrow(() -> new KubernetesClientException("replicasets.apps \"" + rs.getMetadata().getName()
                + "\" not found", 404, null));
      }
    }
  }
}
