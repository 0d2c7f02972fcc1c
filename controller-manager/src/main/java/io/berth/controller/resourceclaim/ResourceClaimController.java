package io.berth.controller.resourceclaim;

import io.berth.controller.Controller;
import io.berth.controller.ControllerContext;
import io.berth.controller.EventRecorder;
import io.berth.controller.QueueWorkers;
import io.berth.informer.IndexFunction;
import io.berth.informer.Lister;
import io.berth.informer.SharedIndexInformer;
import io.berth.workqueue.RateLimitingQueue;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code resource-claim-controller} (upstream's canonical name
 * {@code resourceclaim-controller}, {@code --controllers} alias {@value #NAME}; on by default since Dynamic Resource
 * Allocation is GA): creates the ResourceClaims pods ask for through {@code spec.resourceClaims[]
 * .resourceClaimTemplateName}, records them in the pods' {@code status.resourceClaimStatuses}, drops
 * {@code reservedFor} entries of pods that are gone or done (clearing the scheduler's allocation when none remains)
 * and deletes the claims generated for pods that are done; see {@link ResourceClaimSync}. Events go out as
 * {@value #COMPONENT}, the component upstream's recorder names; the queue is {@code resource_claim}.
 *
 * <p>Wiring: at construction it takes the shared Pod, ResourceClaim and ResourceClaimTemplate informers, adds the
 * {@value ResourceClaimEventHandlers#POD_RESOURCE_CLAIM_INDEX} and
 * {@value ResourceClaimEventHandlers#CLAIM_POD_OWNER_INDEX} indexes and registers its handlers; the daemon starts
 * the informers, waits for their sync, then calls {@link #start} with {@value #DEFAULT_CONCURRENT_SYNCS} workers by
 * default (upstream's {@code ConcurrentSyncs}). Thread-safe; the daemon owns the instance and calls start and
 * shutDown once each.
 */
public final class ResourceClaimController implements Controller {

  private static final Logger LOG = LoggerFactory.getLogger(ResourceClaimController.class);

  /** The name in {@code --controllers} (upstream's alias of {@code resourceclaim-controller}). */
  public static final String NAME = "resource-claim-controller";
  /** The Event source component (upstream's {@code resource_claim}). */
  public static final String COMPONENT = "resource_claim";
  /** The workqueue's name, as upstream's. */
  public static final String QUEUE = "resource_claim";
  /** Upstream's default {@code ResourceClaimController.ConcurrentSyncs}. */
  public static final int DEFAULT_CONCURRENT_SYNCS = 50;

  private final QueueWorkers workers;
  private final RateLimitingQueue<String> queue;

  /** A {@link io.berth.controller.ControllerFactory} by method reference. */
  public static ResourceClaimController create(ControllerContext context) {
    return new ResourceClaimController(context, ResourceClaimApi.of(context.client()));
  }

  ResourceClaimController(ControllerContext context, ResourceClaimApi api) {
    Objects.requireNonNull(context, "context");
    SharedIndexInformer<Pod> podInformer = context.informers().informerFor(Pod.class);
    SharedIndexInformer<ResourceClaim> claimInformer = context.informers().informerFor(ResourceClaim.class);
    SharedIndexInformer<ResourceClaimTemplate> templateInformer =
        context.informers().informerFor(ResourceClaimTemplate.class);
    ensureIndex(podInformer, ResourceClaimEventHandlers.POD_RESOURCE_CLAIM_INDEX,
        ResourceClaimEventHandlers::podClaimKeys);
    ensureIndex(claimInformer, ResourceClaimEventHandlers.CLAIM_POD_OWNER_INDEX,
        ResourceClaimEventHandlers::claimOwnerUids);
    Lister<Pod> pods = new Lister<>(podInformer.getIndexer());
    Lister<ResourceClaim> claims = new Lister<>(claimInformer.getIndexer());
    Lister<ResourceClaimTemplate> templates = new Lister<>(templateInformer.getIndexer());

    DeletedPods deletedPods = new DeletedPods(DeletedPods.DEFAULT_CAPACITY);
    CreatedClaims createdClaims = new CreatedClaims();
    EventRecorder recorder = context.events().forComponent(COMPONENT);
    this.queue = QueueWorkers.newControllerQueue(QUEUE, context);
    ResourceClaimSync sync = new ResourceClaimSync(pods, claims, templates,
        uid -> claimInformer.getIndexer().byIndex(ResourceClaimEventHandlers.CLAIM_POD_OWNER_INDEX, uid), api,
        recorder, deletedPods, createdClaims, new ResourceClaimMetrics(context.metrics()));
    this.workers = new QueueWorkers(NAME, queue, sync::sync, context.syncMetrics());

    ResourceClaimEventHandlers handlers = new ResourceClaimEventHandlers(queue, claims, podInformer.getIndexer(),
        deletedPods, createdClaims);
    podInformer.addEventHandler(handlers.podHandler());
    claimInformer.addEventHandler(handlers.claimHandler());
  }

  private static <T extends HasMetadata> void ensureIndex(SharedIndexInformer<T> informer, String name,
      IndexFunction<T> function) {
    synchronized (ResourceClaimController.class) {
      if (!informer.getIndexer().getIndexers().containsKey(name)) {
        informer.addIndexers(Map.of(name, function));
      }
    }
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

  /** The queue, for tests. */
  RateLimitingQueue<String> queue() {
    return queue;
  }
}
