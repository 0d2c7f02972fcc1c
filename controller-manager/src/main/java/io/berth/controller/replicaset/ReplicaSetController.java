package io.berth.controller.replicaset;

import io.berth.controller.Controller;
import io.berth.controller.ControllerContext;
import io.berth.controller.ControllerExpectations;
import io.berth.controller.ControllerIndexes;
import io.berth.controller.EventRecorder;
import io.berth.controller.KubernetesPodControl;
import io.berth.controller.PodControl;
import io.berth.controller.QueueWorkers;
import io.berth.controller.WallClock;
import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedIndexInformer;
import io.berth.workqueue.RateLimitingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code replicaset} controller: keeps the number of pods each ReplicaSet controls equal
 * to its {@code spec.replicas} and reports them in its status ({@code replicas}, {@code fullyLabeledReplicas},
 * {@code readyReplicas}, {@code availableReplicas}, {@code observedGeneration}, the {@code ReplicaFailure}
 * condition), recording {@code SuccessfulCreate}, {@code SuccessfulDelete} and {@code FailedCreate}/
 * {@code FailedDelete} Events as {@code replicaset-controller}.
 *
 * <p>Wiring: at construction it takes the shared ReplicaSet and Pod informers (all namespaces) from the context,
 * adds the {@code controllerUID} index to the ReplicaSet informer and the {@code podControllerUID} and
 * {@code orphanPodLabels} indexes to the pod informer (a sync reads its own pods and the orphans it could adopt,
 * never the whole namespace) and registers its handlers
 * ({@link ReplicaSetEventHandlers}); the daemon starts the informers, waits for their sync, then calls
 * {@link #start}. Each worker runs {@link ReplicaSetSync} for one key at a time; pod creations and deletions of one
 * sync run in parallel on a pool of up to {@link #BURST_REPLICAS} threads (upstream runs one goroutine per call).
 *
 * <p>Thread-safe; the daemon owns the instance and calls start and shutDown once each.
 */
public final class ReplicaSetController implements Controller {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSetController.class);

  /** The name in {@code --controllers}. */
  public static final String NAME = "replicaset";
  /** The Event source component. */
  public static final String COMPONENT = "replicaset-controller";
  /** Upstream's {@code BurstReplicas}: the most pods one sync creates or deletes. */
  public static final int BURST_REPLICAS = 500;

  private final ControllerExpectations expectations;
  private final QueueWorkers workers;
  private final ThreadPoolExecutor podCalls;

  /** The controller as the daemon runs it. */
  public ReplicaSetController(ControllerContext context) {
    this(context, BURST_REPLICAS, UnaryOperator.identity(), UnaryOperator.identity());
  }

  /** A {@link io.berth.controller.ControllerFactory} by method reference: {@code ReplicaSetController::create}. */
  public static ReplicaSetController create(ControllerContext context) {
    return new ReplicaSetController(context);
  }

  /**
   * A controller whose pod control and pod event handler pass through decorators (tests count, gate or delay
   * them).
   */
  ReplicaSetController(ControllerContext context, int burstReplicas, UnaryOperator<PodControl> podControlDecorator,
      UnaryOperator<ResourceEventHandler<Pod>> podHandlerDecorator) {
    Objects.requireNonNull(context, "context");
    SharedIndexInformer<ReplicaSet> rsInformer = context.informers().informerFor(ReplicaSet.class);
    SharedIndexInformer<Pod> podInformer = context.informers().informerFor(Pod.class);
    ControllerIndexes.ensureControllerUidIndex(rsInformer);
    ControllerIndexes.ensurePodControllerUidIndex(podInformer);
    ControllerIndexes.ensureOrphanPodLabelsIndex(podInformer);
    Lister<ReplicaSet> rsLister = new Lister<>(rsInformer.getIndexer());

    this.expectations = new ControllerExpectations(context.clock());
    EventRecorder recorder = context.events().forComponent(COMPONENT);
    PodControl podControl = podControlDecorator.apply(new KubernetesPodControl(context.client(), recorder));
    this.podCalls = new ThreadPoolExecutor(0, burstReplicas, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
        daemonThreads(NAME + "-pod-calls-"), (call, pool) -> call.run()); // beyond the pool, or after shutdown: inline

    RateLimitingQueue<String> queue = QueueWorkers.newControllerQueue(NAME, context);
    ReplicaSetSync sync = new ReplicaSetSync(rsLister, rsInformer.getIndexer(), podInformer.getIndexer(), podControl,
        ReplicaSetApi.of(context.client()), expectations, recorder, WallClock.of(context.clock()), podCalls,
        burstReplicas, queue::addAfter);
    this.workers = new QueueWorkers(NAME, queue, sync::sync, context.syncMetrics());

    ReplicaSetEventHandlers handlers = new ReplicaSetEventHandlers(rsLister, expectations, queue);
    rsInformer.addEventHandler(handlers.replicaSetHandler());
    podInformer.addEventHandler(podHandlerDecorator.apply(handlers.podHandler()));
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
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

  /** Stops taking work and waits up to {@code timeout} for in-flight syncs; never interrupts one. */
  @Override
  public boolean shutDown(Duration timeout) throws InterruptedException {
    LOG.info("shutting down {} controller", NAME);
    boolean done = workers.shutDown(timeout);
    podCalls.shutdown();
    return done;
  }

  /** The expectations, for tests. */
  ControllerExpectations expectations() {
    return expectations;
  }
}
