package io.berth.controller.podgroup;

import io.berth.controller.Controller;
import io.berth.controller.ControllerContext;
import io.berth.controller.EventRecorder;
import io.berth.controller.QueueWorkers;
import io.berth.controller.WallClock;
import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedIndexInformer;
import io.berth.workqueue.RateLimitingQueue;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code podgroup} controller: keeps the status of PodGroups current, as scheduler-plugins' podgroup controller
 * does for its {@code scheduling.x-k8s.io/v1alpha1} PodGroup ({@code phase}, {@code scheduled}, {@code running},
 * {@code succeeded}, {@code failed}, {@code scheduleStartTime}, {@code occupiedBy}; {@link SchedulerPluginsStatus})
 * and, for kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2} PodGroup, its {@code PodGroupScheduled}
 * condition ({@link PodGroupScheduledCondition}); it records Events on the groups as {@value #COMPONENT}.
 *
 * <p>Off by default (registered with {@code registerDisabledByDefault}): both group APIs are alpha or out of tree,
 * so, as kube-controller-manager leaves the controllers of alpha features out of {@code *}, it runs only with
 * {@code --controllers=*,podgroup}. Wiring: a fabric8 informer per group API (started with the workers, retrying
 * while a CRD is not installed, so it never holds up the daemon's cache sync) and the shared Pod informer; every
 * change of a group, and every add, update or delete of a member pod, queues the group's key. Workers run
 * {@link PodGroupSync}. Thread-safe; the daemon owns the instance and calls start and shutDown once each.
 */
public final class PodGroupController implements Controller {

  private static final Logger LOG = LoggerFactory.getLogger(PodGroupController.class);

  /** The name in {@code --controllers}. */
  public static final String NAME = "podgroup";
  /** The Event source component. */
  public static final String COMPONENT = "podgroup-controller";

  private final KubernetesClient client;
  private final RateLimitingQueue<String> queue;
  private final QueueWorkers workers;
  private final Map<GroupKey.Api, io.fabric8.kubernetes.client.informers.SharedIndexInformer<
      GenericKubernetesResource>> groupInformers = new EnumMap<>(GroupKey.Api.class);

  /** A {@link io.berth.controller.ControllerFactory} by method reference. */
  public static PodGroupController create(ControllerContext context) {
    return new PodGroupController(context);
  }

  PodGroupController(ControllerContext context) {
    Objects.requireNonNull(context, "context");
    this.client = context.client();
    SharedIndexInformer<Pod> podInformer = context.informers().informerFor(Pod.class);
    Lister<Pod> pods = new Lister<>(podInformer.getIndexer());
    this.queue = QueueWorkers.newControllerQueue(NAME, context);
    for (GroupKey.Api api : GroupKey.Api.values()) {
      var informer = client.genericKubernetesResources(context(api)).inAnyNamespace().runnableInformer(0);
      informer.exceptionHandler((started, t) -> {
        LOG.warn("podgroup: {} PodGroup informer: {}; retrying", api.group, t.toString());
        return true;
      });
      informer.addEventHandler(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
        @Override
        public void onAdd(GenericKubernetesResource obj) {
          enqueue(api, obj);
        }

        @Override
        public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
          enqueue(api, newObj);
        }

        @Override
        public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
          enqueue(api, obj);
        }
      });
      groupInformers.put(api, informer);
    }
    EventRecorder recorder = context.events().forComponent(COMPONENT);
    PodGroupSync sync = new PodGroupSync(this::cachedGroup, pods::list, this::patchStatus, recorder,
        WallClock.of(context.clock()));
    this.workers = new QueueWorkers(NAME, queue, sync::sync, context.syncMetrics());
    podInformer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        GroupKey.of(obj).ifPresent(k -> queue.add(k.encode()));
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        GroupKey.of(oldObj).ifPresent(k -> queue.add(k.encode()));
        GroupKey.of(newObj).ifPresent(k -> queue.add(k.encode()));
      }

      @Override
      public void onDelete(Pod obj, boolean finalStateUnknown) {
        GroupKey.of(obj).ifPresent(k -> queue.add(k.encode()));
      }
    });
  }

  static ResourceDefinitionContext context(GroupKey.Api api) {
    return new ResourceDefinitionContext.Builder().withGroup(api.group).withVersion(api.version)
        .withPlural("podgroups").withKind("PodGroup").withNamespaced(true).build();
  }

  private void enqueue(GroupKey.Api api, GenericKubernetesResource obj) {
    if (obj.getMetadata() != null && obj.getMetadata().getNamespace() != null) {
      queue.add(new GroupKey(api, obj.getMetadata().getNamespace(), obj.getMetadata().getName()).encode());
    }
  }

  private Optional<GenericKubernetesResource> cachedGroup(GroupKey key) {
    return Optional.ofNullable(groupInformers.get(key.api()).getStore().getByKey(key.objectKey()));
  }

  private void patchStatus(GroupKey key, Map<String, Object> status) {
    client.genericKubernetesResources(context(key.api())).inNamespace(key.namespace()).withName(key.name())
        .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("status",
            status)));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void start(int workerCount) {
    LOG.info("starting {} controller with {} workers", NAME, workerCount);
    groupInformers.values().forEach(i -> i.start());
    workers.start(workerCount);
  }

  @Override
  public boolean shutDown(Duration timeout) throws InterruptedException {
    LOG.info("shutting down {} controller", NAME);
    boolean done = workers.shutDown(timeout);
    groupInformers.values().forEach(i -> i.close());
    return done;
  }
}
