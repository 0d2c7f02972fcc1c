package io.berth.controller.deployment;

import io.berth.controller.ControllerIndexes;
import io.berth.controller.ControllerRefManager;
import io.berth.controller.EventRecorder;
import io.berth.controller.GroupVersionKind;
import io.berth.controller.KubeApiErrors;
import io.berth.controller.MutationCache;
import io.berth.controller.Selector;
import io.berth.controller.WallClock;
import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.Lister;
import io.berth.workqueue.RateLimitingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sync of one Deployment (upstream {@code syncDeployment}): reads the Deployment, its ReplicaSets and (for
 * Recreate) their pods from the listers, claims ReplicaSets by ControllerRef, takes the branch
 * {@link SyncPlan#decide} names and carries out the plan the pure functions of this package return: ReplicaSet
 * creates (with hash-collision handling), scales with {@code ScalingReplicaSet} events, history cleanup, and the
 * status write that ends every path (over this controller's last status write while the informer has not delivered
 * it: a {@link MutationCache}). Never lists the API server.
 *
 * <p>Thread-safe: its thread-safe collaborators and a {@link MutationCache}; the queue guarantees one sync per key at a
 * time.
 */
final class DeploymentSync {

  private static final Logger LOG = LoggerFactory.getLogger(DeploymentSync.class);
  /** Berth's Warning reason for a Deployment it cannot act on (bad selector, intstr, strategy). */
  static final String REASON_INVALID = "InvalidDeployment";

  private final Lister<Deployment> deployments;
  private final Lister<ReplicaSet> replicaSets;
  private final Indexer<Pod> pods;
  private final DeploymentApi api;
  private final ControllerRefManager.Patcher rsPatcher;
  private final EventRecorder recorder;
  private final WallClock clock;
  private final RateLimitingQueue<String> queue;
  // the Deployment as this controller last wrote it, read over an informer copy that has not delivered that write
  private final MutationCache<Deployment> statusWrites = new MutationCache<>();

  DeploymentSync(Lister<Deployment> deployments, Lister<ReplicaSet> replicaSets, Indexer<Pod> pods,
      DeploymentApi api, ControllerRefManager.Patcher rsPatcher, EventRecorder recorder, WallClock clock,
      RateLimitingQueue<String> queue) {
    this.deployments = deployments;
    this.replicaSets = replicaSets;
    this.pods = pods;
    this.api = recordingStatusWrites(api);
    this.rsPatcher = rsPatcher;
    this.recorder = recorder;
    this.clock = clock;
    this.queue = queue;
  }

  /** {@code api} with every successful status write remembered in {@link #statusWrites}. */
  private DeploymentApi recordingStatusWrites(DeploymentApi api) {
    return new DeploymentApi() {
      @Override
      public Optional<Deployment> get(String namespace, String name) {
        return api.get(namespace, name);
      }

      @Override
      public ReplicaSet createReplicaSet(ReplicaSet rs) {
        return api.createReplicaSet(rs);
      }

      @Override
      public ReplicaSet updateReplicaSet(ReplicaSet rs) {
        return api.updateReplicaSet(rs);
      }

      @Override
      public void deleteReplicaSet(ReplicaSet rs) {
        api.deleteReplicaSet(rs);
      }

      @Override
      public Deployment updateStatus(Deployment d) {
        Deployment written = api.updateStatus(d);
        statusWrites.wrote(Cache.metaNamespaceKey(d), d.getMetadata().getResourceVersion(), written);
        return written;
      }
    };
  }

  /** The new ReplicaSet (if any), the old ones, and the Deployment as last written. */
  private record ReplicaSets(Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs, Deployment deployment) {
    List<ReplicaSet> all() {
      List<ReplicaSet> all = new ArrayList<>(oldRSs);
      newRS.ifPresent(all::add);
      return all;
    }
  }

  void sync(String key) throws Exception {
    String[] parts = Cache.splitMetaNamespaceKey(key);
    Optional<Deployment> cached = deployments.get(parts[0], parts[1]);
    if (cached.isEmpty()) {
      LOG.debug("deployment {} has been deleted", key);
      statusWrites.forget(key);
      return;
    }
    // writing over an informer copy older than our own last status write would be refused with a conflict
    Deployment original = statusWrites.newest(key, cached.get());
    Deployment d = DeploymentDefaults.withDefaults(original);
    if (DeploymentValidation.selectsEverything(d)) {
      recorder.event(original, EventRecorder.WARNING, DeploymentValidation.SELECTING_ALL_REASON, "%s",
          DeploymentValidation.SELECTING_ALL_MESSAGE);
      observeGeneration(d);
      return;
    }
    List<String> problems = DeploymentValidation.validate(d);
    if (!problems.isEmpty()) {
      reportInvalid(original, d, problems);
      return;
    }
    List<ReplicaSet> rsList = claimReplicaSets(original, d);
    SyncPlan.Branch branch = SyncPlan.decide(d, rsList);
    if (branch == SyncPlan.Branch.STATUS_ONLY) {
      syncStatusOnly(d, rsList);
      return;
    }
    Optional<DeploymentStatus> paused = DeploymentProgress.checkPausedConditions(d, clock.now());
    if (paused.isPresent()) {
      d = api.updateStatus(withStatus(d, paused.get()));
      d = DeploymentDefaults.withDefaults(d);
    }
    switch (branch) {
      case PAUSED_SYNC, SCALING_SYNC -> scalingSync(d, rsList);
      case ROLLBACK -> {
        recorder.event(original, EventRecorder.WARNING, "DeploymentRollbackUnsupported",
            "rollback through the deprecated %s annotation is not supported; change the template instead",
            Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION);
        rollout(d, rsList, key);
      }
      case RECREATE, ROLLING_UPDATE -> rollout(d, rsList, key);
      case UNSUPPORTED_STRATEGY -> throw new IllegalStateException("unexpected deployment strategy type: "
          + d.getSpec().getStrategy().getType());
      default -> throw new IllegalStateException("unhandled branch " + branch);
    }
  }

  private void rollout(Deployment d, List<ReplicaSet> rsList, String key) {
    if (RollingUpdateMath.isRecreate(d)) {
      rolloutRecreate(d, rsList, key);
    } else {
      rolloutRolling(d, rsList, key);
    }
  }

  // ------------------------------------------------------------------ claiming

  private List<ReplicaSet> claimReplicaSets(Deployment original, Deployment d) throws Exception {
    Selector selector = Selector.fromLabelSelector(d.getSpec().getSelector());
    String ns = original.getMetadata().getNamespace();
    ControllerRefManager<ReplicaSet> manager = new ControllerRefManager<>(original, GroupVersionKind.DEPLOYMENT,
        selector, rsPatcher, ControllerRefManager.recheckOwner(
            () -> api.get(ns, original.getMetadata().getName()).orElse(null), original));
    return manager.claim(replicaSets.list(ns)).orThrow();
  }

  /** The Deployment's pods grouped by the UID of their controlling ReplicaSet (upstream getPodMapForDeployment). */
  private Map<String, List<Pod>> podsByReplicaSet(List<ReplicaSet> rsList) {
    Map<String, List<Pod>> byRs = new HashMap<>();
    for (ReplicaSet rs : rsList) {
      String uid = rs.getMetadata().getUid();
      byRs.put(uid, pods.byIndex(ControllerIndexes.POD_CONTROLLER_UID_INDEX, uid));
    }
    return byRs;
  }

  // ------------------------------------------------------------------ new ReplicaSet and revision

  /** Upstream getAllReplicaSetsAndSyncRevision: finds (or creates) the new ReplicaSet and syncs the revision. */
  private ReplicaSets replicaSetsAndRevision(Deployment d, List<ReplicaSet> rsList, boolean createIfMissing) {
    List<ReplicaSet> oldRSs = ReplicaSetClassifier.findOldReplicaSets(d, rsList).all();
    Optional<ReplicaSet> existing = ReplicaSetClassifier.findNewReplicaSet(d, rsList);
    if (existing.isPresent()) {
      Optional<ReplicaSet> update = NewReplicaSets.existingNewReplicaSetUpdate(d, existing.get(), oldRSs);
      if (update.isPresent()) {
        return new ReplicaSets(Optional.of(api.updateReplicaSet(update.get())), oldRSs, d);
      }
      Optional<Deployment> found = NewReplicaSets.afterFoundNewReplicaSet(d, existing.get(), clock.now());
      if (found.isPresent()) {
        d = DeploymentDefaults.withDefaults(api.updateStatus(found.get()));
      }
      return new ReplicaSets(existing, oldRSs, d);
    }
    if (!createIfMissing) {
      return new ReplicaSets(Optional.empty(), oldRSs, d);
    }
    NewReplicaSets.Creation creation = NewReplicaSets.newReplicaSet(d, oldRSs);
    ReplicaSet created;
    boolean alreadyExisted = false;
    try {
      created = api.createReplicaSet(creation.replicaSet());
    } catch (KubernetesClientException e) {
      if (KubeApiErrors.isAlreadyExists(e)) {
        String ns = d.getMetadata().getNamespace();
        String name = creation.replicaSet().getMetadata().getName();
        ReplicaSet existingByName = replicaSets.get(ns, name).orElseThrow(() -> e);
        if (NewReplicaSets.isHashCollision(d, existingByName)) {
          try {
            api.updateStatus(NewReplicaSets.withCollisionCountBumped(d));
            LOG.info("hash collision for deployment {}/{}: bumped collisionCount", ns, d.getMetadata().getName());
          } catch (KubernetesClientException statusError) {
            LOG.debug("could not bump collisionCount", statusError);
          }
          throw e;
        }
        created = existingByName;
        alreadyExisted = true;
      } else if (KubeApiErrors.hasStatusCause(e, KubeApiErrors.NAMESPACE_TERMINATING_CAUSE)) {
        throw e;
      } else {
        String message = NewReplicaSets.createFailedMessage(creation.replicaSet(), KubeApiErrors.message(e));
        Optional<DeploymentStatus> failed = NewReplicaSets.statusAfterCreateFailed(d, creation.replicaSet(),
            KubeApiErrors.message(e), clock.now());
        if (failed.isPresent()) {
          try {
            api.updateStatus(withStatus(d, failed.get()));
          } catch (KubernetesClientException ignored) {
            // the create failure is the bigger problem to report
          }
        }
        recorder.event(d, EventRecorder.WARNING, DeploymentConditions.REASON_FAILED_RS_CREATE, "%s", message);
        throw e;
      }
    }
    if (!alreadyExisted) {
      Deployment subject = d;
      creation.scaledUpEventMessage().ifPresent(msg ->
          recorder.event(subject, EventRecorder.NORMAL, ReplicaSetScale.EVENT_REASON, "%s", msg));
    }
    Optional<Deployment> after = NewReplicaSets.afterCreated(d, created, creation.revision(), alreadyExisted,
        clock.now());
    if (after.isPresent()) {
      d = DeploymentDefaults.withDefaults(api.updateStatus(after.get()));
    }
    return new ReplicaSets(Optional.of(created), oldRSs, d);
  }

  // ------------------------------------------------------------------ branches

  private void syncStatusOnly(Deployment d, List<ReplicaSet> rsList) {
    ReplicaSets sets = replicaSetsAndRevision(d, rsList, false);
    writeDeploymentStatus(sets);
  }

  /** Paused, or a scaling event: proportional scaling, history cleanup when paused, status. */
  private void scalingSync(Deployment d, List<ReplicaSet> rsList) {
    ReplicaSets sets = replicaSetsAndRevision(d, rsList, false);
    SyncPlan.ScalingSync plan = SyncPlan.sync(sets.deployment(), sets.newRS(), sets.oldRSs());
    ReplicaSets scaled = apply(sets, plan.scales());
    delete(plan.toDelete());
    writeDeploymentStatus(scaled);
  }

  private void rolloutRolling(Deployment d, List<ReplicaSet> rsList, String key) {
    ReplicaSets sets = replicaSetsAndRevision(d, rsList, true);
    RollingRollout.Step step = RollingRollout.plan(sets.deployment(), sets.newRS().orElseThrow(), sets.oldRSs());
    ReplicaSets after = apply(sets, step.scales());
    delete(step.toDelete());
    syncRolloutStatus(after, key);
  }

  private void rolloutRecreate(Deployment d, List<ReplicaSet> rsList, String key) {
    ReplicaSets sets = replicaSetsAndRevision(d, rsList, false);
    RecreateRollout.Step step = RecreateRollout.plan(sets.deployment(), sets.newRS(), sets.oldRSs(),
        podsByReplicaSet(rsList));
    switch (step.kind()) {
      case SCALE_DOWN_OLD -> syncRolloutStatus(apply(sets, step.scales()), key);
      case WAIT_FOR_OLD_PODS -> syncRolloutStatus(sets, key);
      case CREATE_NEW_REPLICA_SET -> {
        ReplicaSets created = replicaSetsAndRevision(sets.deployment(), rsList, true);
        List<ReplicaSetScale> up = RecreateRollout.scaleUpNewReplicaSet(created.deployment(),
            created.newRS().orElseThrow()).stream().toList();
        ReplicaSets after = apply(created, up);
        delete(step.toDelete());
        syncRolloutStatus(after, key);
      }
      case SCALE_UP_NEW -> {
        ReplicaSets after = apply(sets, step.scales());
        delete(step.toDelete());
        syncRolloutStatus(after, key);
      }
      default -> throw new IllegalStateException("unhandled recreate step " + step.kind());
    }
  }

  // ------------------------------------------------------------------ writes

  /**
   * Writes the scales in order (upstream scaleReplicaSetAndRecordEvent), each against the freshest copy of its
   * ReplicaSet, recording {@code ScalingReplicaSet} when a size changes; returns the ReplicaSets as written.
   */
  private ReplicaSets apply(ReplicaSets sets, List<ReplicaSetScale> scales) {
    if (scales.isEmpty()) {
      return sets;
    }
    Deployment d = sets.deployment();
    Map<String, ReplicaSet> latest = new LinkedHashMap<>();
    for (ReplicaSet rs : sets.all()) {
      latest.put(rs.getMetadata().getName(), rs);
    }
    for (ReplicaSetScale planned : scales) {
      ReplicaSet current = latest.get(planned.name());
      ReplicaSetScale step = current == null ? planned : planned.onto(current);
      ReplicaSet target = step.applyTo(d);
      if (!needsWrite(step.replicaSet(), target)) {
        continue;
      }
      ReplicaSet written = api.updateReplicaSet(target);
      latest.put(planned.name(), written);
      step.eventMessage().ifPresent(msg ->
          recorder.event(d, EventRecorder.NORMAL, ReplicaSetScale.EVENT_REASON, "%s", msg));
    }
    Optional<ReplicaSet> newRS = sets.newRS().map(rs -> latest.get(rs.getMetadata().getName()));
    List<ReplicaSet> oldRSs = sets.oldRSs().stream().map(rs -> latest.get(rs.getMetadata().getName())).toList();
    return new ReplicaSets(newRS, oldRSs, d);
  }

  private static boolean needsWrite(ReplicaSet before, ReplicaSet after) {
    return !Objects.equals(before.getSpec().getReplicas(), after.getSpec().getReplicas())
        || !Objects.equals(before.getMetadata().getAnnotations(), after.getMetadata().getAnnotations());
  }

  private void delete(List<ReplicaSet> toDelete) {
    for (ReplicaSet rs : toDelete) {
      try {
        api.deleteReplicaSet(rs);
      } catch (KubernetesClientException e) {
        if (!KubeApiErrors.isNotFound(e)) {
          throw e;
        }
      }
    }
  }

  private void writeDeploymentStatus(ReplicaSets sets) {
    DeploymentStatusCalculator.syncDeploymentStatus(sets.all(), sets.newRS(), sets.deployment(), clock.now())
        .ifPresent(status -> api.updateStatus(withStatus(sets.deployment(), status)));
  }

  private void syncRolloutStatus(ReplicaSets sets, String key) {
    RolloutStatus result = DeploymentProgress.syncRolloutStatus(sets.all(), sets.newRS(), sets.deployment(),
        clock.now());
    if (result.needsUpdate()) {
      api.updateStatus(withStatus(sets.deployment(), result.status()));
      return;
    }
    switch (result.recheck().kind()) {
      case AFTER -> queue.addAfter(key, result.recheck().delay());
      case NOW_RATE_LIMITED -> queue.addRateLimited(key);
      default -> {
        // nothing to watch
      }
    }
  }

  private void observeGeneration(Deployment d) {
    Long generation = d.getMetadata().getGeneration();
    DeploymentStatus status = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
    if (generation != null && (status.getObservedGeneration() == null
        || status.getObservedGeneration() < generation)) {
      DeploymentStatus observed = new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder(status)
          .withObservedGeneration(generation).build();
      api.updateStatus(withStatus(d, observed));
    }
  }

  /**
   * A Deployment Berth cannot act on: a Warning event naming every bad field, a {@code ReplicaFailure} condition
   * with the same message and observedGeneration, and no requeue (a fix is a spec change, which syncs again).
   */
  private void reportInvalid(Deployment original, Deployment d, List<String> problems) {
    String message = String.join("; ", problems);
    recorder.event(original, EventRecorder.WARNING, REASON_INVALID, "%s", message);
    DeploymentStatus status = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
    DeploymentStatus withCondition = DeploymentConditions.setCondition(status, DeploymentConditions.newCondition(
        DeploymentConditions.TYPE_REPLICA_FAILURE, DeploymentConditions.STATUS_TRUE, REASON_INVALID, message,
        clock.now()));
    withCondition = new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder(withCondition)
        .withObservedGeneration(d.getMetadata().getGeneration()).build();
    if (!DeploymentStatusCalculator.statusEquals(status, withCondition)) {
      api.updateStatus(withStatus(d, withCondition));
    }
    LOG.warn("deployment {}/{} is invalid: {}", d.getMetadata().getNamespace(), d.getMetadata().getName(), message);
  }

  private static Deployment withStatus(Deployment d, DeploymentStatus status) {
    return new DeploymentBuilder(d).withStatus(status).build();
  }
}
