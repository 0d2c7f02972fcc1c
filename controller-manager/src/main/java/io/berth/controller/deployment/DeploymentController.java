package io.berth.controller.deployment;

import io.berth.controller.ApiPatchers;
import io.berth.controller.Controller;
import io.berth.controller.ControllerContext;
import io.berth.controller.ControllerIndexes;
import io.berth.controller.EventRecorder;
import io.berth.controller.QueueWorkers;
import io.berth.controller.WallClock;
import io.berth.informer.Lister;
import io.berth.informer.SharedIndexInformer;
import io.berth.workqueue.RateLimitingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code deployment} controller: rolls Deployments out through ReplicaSets (RollingUpdate
 * within maxSurge/maxUnavailable, or Recreate), scales them proportionally, keeps {@code revisionHistoryLimit} old
 * ReplicaSets, tracks {@code progressDeadlineSeconds} and reports status and the Progressing/Available conditions,
 * recording {@code ScalingReplicaSet} Events as {@code deployment-controller}.
 *
 * <p>Wiring: at construction it takes the shared Deployment, ReplicaSet and Pod informers (all namespaces) from the
 * context, adds the {@code podControllerUID} index to the pod informer (Recreate groups pods by ReplicaSet) and
 * registers its handlers ({@link DeploymentEventHandlers}); the daemon starts the informers, waits for their sync,
 * then calls {@link #start}. Each worker runs {@link DeploymentSync} for one key at a time.
 *
 * <p>Thread-safe; the daemon owns the instance and calls start and shutDown once each.
 */
public final class DeploymentController implements Controller {

  private static final Logger LOG = LoggerFactory.getLogger(DeploymentController.class);

  /** The name in {@code --controllers}. */
  public static final String NAME = "deployment";
  /** The Event source component. */
  public static final String COMPONENT = "deployment-controller";

  private final QueueWorkers workers;

  public DeploymentController(ControllerContext context) {
    Objects.requireNonNull(context, "context");
    SharedIndexInformer<Deployment> dInformer = context.informers().informerFor(Deployment.class);
    SharedIndexInformer<ReplicaSet> rsInformer = context.informers().informerFor(ReplicaSet.class);
    SharedIndexInformer<Pod> podInformer = context.informers().informerFor(Pod.class);
    ControllerIndexes.ensurePodControllerUidIndex(podInformer);
    Lister<Deployment> dLister = new Lister<>(dInformer.getIndexer());
    Lister<ReplicaSet> rsLister = new Lister<>(rsInformer.getIndexer());

    EventRecorder recorder = context.events().forComponent(COMPONENT);
    RateLimitingQueue<String> queue = QueueWorkers.newControllerQueue(NAME, context);
    DeploymentSync sync = new DeploymentSync(dLister, rsLister, podInformer.getIndexer(),
        DeploymentApi.of(context.client()), ApiPatchers.replicaSets(context.client()), recorder,
        WallClock.of(context.clock()), queue);
    this.workers = new QueueWorkers(NAME, queue, sync::sync, context.syncMetrics());

    DeploymentEventHandlers handlers = new DeploymentEventHandlers(dLister, rsLister, queue);
    dInformer.addEventHandler(handlers.deploymentHandler());
    rsInformer.addEventHandler(handlers.replicaSetHandler());
    podInformer.addEventHandler(handlers.podHandler());
  }

  /** A {@link io.berth.controller.ControllerFactory} by method reference. */
  public static DeploymentController create(ControllerContext context) {
    return new DeploymentController(context);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void start(int workerCount) {
    LOG.info("starting {} controller with {} workers", NAME, workerCount);
    workers.start(workerCount);
  }

  @Override
  public boolean shutDown(Duration timeout) throws InterruptedException {
    LOG.info("shutting down {} controller", NAME);
    return workers.shutDown(timeout);
  }
}
