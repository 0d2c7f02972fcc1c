package io.berth.plugins.capacityscheduling;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeToStatus;
import io.berth.framework.ObjectEventHandler;
import io.berth.framework.ObjectLister;
import io.berth.framework.Plugin;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.ReservePlugin;
import io.berth.framework.Status;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.berth.plugins.defaultpreemption.PreemptionEvaluator;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elastic quotas per namespace, as scheduler-plugins' {@code CapacityScheduling}: each namespace's
 * {@code scheduling.x-k8s.io/v1alpha1} ElasticQuota guarantees it {@code min} and lets it borrow up to {@code max}
 * what other quotas leave unused; a namespace without one is unbounded and borrows nothing. Pods labelled
 * {@value ElasticQuota#PREEMPTIBLE_LABEL}{@code =true}, or all pods of a namespace whose quota carries that label,
 * run on borrowed capacity only and are reclaimed first.
 *
 * <ul>
 *   <li>PreFilter: the quota arithmetic of {@link QuotaSnapshot} (over {@code max}; over {@code min} while nothing
 *       is left to lend), for a gang member with its group ({@link GangDemand}); a rejection is Unschedulable and
 *       names the quota, the resource and used/min/max, so the pod's FailedScheduling event does;
 *   <li>PostFilter: reclaim through the shared preemption machinery with {@link QuotaVictimPolicy}
 *       (PodDisruptionBudgets respected as by DefaultPreemption); replaces DefaultPreemption in a profile;
 *   <li>Reserve/Unreserve: charge and release the pod in the {@link QuotaBook}, which the pod informer also keeps
 *       from the bound pods (a restarted scheduler rebuilds {@code used} from them); {@link UsedStatusWriter}
 *       writes {@code status.used} and the {@code berth_quota_*} metrics;
 *   <li>PreEnqueue: holds a preemptor while its asynchronous preemption runs;
 *   <li>Sign: adds nothing to a pod's batching signature (see {@link #signPod}).
 * </ul>
 *
 * Until the ElasticQuotas and pods have been listed, pods are held (UnschedulableAndUnresolvable, no preemption)
 * rather than scheduled against a partial count. A malformed ElasticQuota holds only its namespace's pods, with a message naming the field.
 * Thread-safe: the scheduling thread, binding threads, the informers and the status timer call it; shared state is
 * the book (its own lock) and concurrent maps; the per-client map of live plugins ({@link #live}, for
 * {@link #copyOf}) is guarded by the class lock.
 */
public final class CapacityScheduling implements PreEnqueuePlugin, PreFilterPlugin, PostFilterPlugin,
    ReservePlugin, EnqueueExtensions, io.berth.framework.SignPlugin {
  public static final String NAME = "CapacityScheduling";
  static final String MESSAGE_PREFIX = "preemption: ";
  static final String NOT_SYNCED = "waiting for the ElasticQuotas and pods to be listed";

  private static final Logger LOG = LoggerFactory.getLogger(CapacityScheduling.class);

  // the first plugin started over each client (a daemon has one client; with several profiles, the first profile's);
  // guarded by CapacityScheduling.class; lives as long as the process, as the plugin's informers do
  private static final Map<KubernetesClient, CapacityScheduling> LIVE = new IdentityHashMap<>();

  private final Handle handle;
  private final QuotaBook book;
  private final PodGroupLister podGroups;
  private final GangDemand gang;
  private final PreemptionEvaluator evaluator;
  // namespace -> why its ElasticQuota is malformed; its pods are held
  private final Map<String, String> invalid = new ConcurrentHashMap<>();
  // UID -> pods this plugin rejected at PreFilter, activated when quota is freed or changes
  private final Map<String, Pod> rejected = new ConcurrentHashMap<>();
  // set once by the factory, before anything is scheduled
  private volatile BooleanSupplier synced = () -> true;
  // whether this instance has run a scheduling cycle (it leads): only then is status.used written
  private volatile boolean scheduling;

  CapacityScheduling(CapacitySchedulingArgs args, Handle handle, QuotaBook book, PodGroupLister podGroups,
      ObjectLister<Pod> pods) {
    this.handle = handle;
    this.book = book;
    this.podGroups = podGroups;
    this.gang = new GangDemand(podGroups, pods, book);
    this.evaluator = PreemptionEvaluator.create(NAME, handle, args.minCandidateNodesPercentage(),
        args.minCandidateNodesAbsolute(), new QuotaVictimPolicy(book, handle.pluginMetrics()));
  }

  /**
   * The factory registered for {@link #NAME}: validates {@code args}, adds its handler to the pod informer and,
   * when the handle has a client, starts informers of ElasticQuotas and PodGroups and the status writer (none when
   * a configuration is only validated).
   */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return CapacitySchedulingRuntime.start(CapacitySchedulingArgs.parse(args), handle);
  }

  /**
   * A plugin whose quotas are given rather than watched, for an embedding without an API server (the throughput
   * harness): {@code status.used} is not written; pods are charged by Reserve and the handle's pod events.
   */
  public static Plugin withQuotas(Map<String, Object> args, Handle handle, Collection<ElasticQuota> quotas) {
    QuotaBook book = new QuotaBook();
    quotas.forEach(book::putQuota);
    CapacityScheduling plugin = new CapacityScheduling(CapacitySchedulingArgs.parse(args), handle, book,
        PodGroupLister.EMPTY, handle.lister(Pod.class));
    handle.addEventHandler(Pod.class, plugin.podHandler());
    return plugin;
  }

  /**
   * A plugin whose ElasticQuotas an embedding without an API server hands it itself through
   * {@link #quotaChanged} and {@link #quotaDeleted} (the replay feeds the recorded ones), reading PodGroups from
   * {@code groups}; {@code status.used} is not written.
   */
  public static CapacityScheduling fed(Map<String, Object> args, Handle handle, PodGroupLister groups) {
    CapacityScheduling plugin = new CapacityScheduling(CapacitySchedulingArgs.parse(args), handle, new QuotaBook(),
        groups, handle.lister(Pod.class));
    handle.addEventHandler(Pod.class, plugin.podHandler());
    return plugin;
  }

  /** Makes {@code plugin} the one {@link #live} finds for {@code client}, unless one already is (the first wins). */
  static void registerLive(KubernetesClient client, CapacityScheduling plugin) {
    synchronized (CapacityScheduling.class) {
      LIVE.putIfAbsent(client, plugin);
    }
  }

  /**
   * The plugin {@link #create} started over {@code client} (with several profiles, the first profile's), if any;
   * starts nothing. For a read-only reader of the daemon's quota state ({@link #copyOf}).
   */
  public static Optional<CapacityScheduling> live(KubernetesClient client) {
    synchronized (CapacityScheduling.class) {
      return Optional.ofNullable(LIVE.get(client));
    }
  }

  /**
   * A plugin for a what-if run (the scheduler's {@code /debug/simulate}) over a copy of {@code live}'s state: its
   * ElasticQuotas (and malformed ones), the charged pods and the nominations as they are now, its PodGroups and
   * whether its informers have listed everything. The copy's Reserve, Unreserve and PostFilter change only the copy;
   * it watches nothing (its book never follows the cluster) and writes no status; {@code live} is only read.
   */
  public static Plugin copyOf(CapacityScheduling live, Map<String, Object> args, Handle handle) {
    CapacityScheduling copy = new CapacityScheduling(CapacitySchedulingArgs.parse(args), handle, live.book.copy(),
        live.podGroups, handle.lister(Pod.class));
    copy.invalid.putAll(live.invalid);
    copy.synced = live.synced;
    return copy;
  }

  @Override
  public String name() {
    return NAME;
  }

  QuotaBook book() {
    return book;
  }

  void setSynced(BooleanSupplier value) {
    this.synced = value;
  }

  /** Whether this instance schedules (a standby replica never runs PreFilter, and so never writes status). */
  boolean scheduling() {
    return scheduling;
  }

  /**
   * No fragments: this plugin has no Filter or Score, and its PreFilter runs for every pod, batched or not, so two
   * pods that the other plugins sign alike get the same nodes from it (OpportunisticBatching stays available).
   */
  @Override
  public io.berth.framework.SignResult signPod(Pod pod) {
    return io.berth.framework.SignResult.none();
  }

  // ---------------------------------------------------------------- PreEnqueue

  @Override
  public Status preEnqueue(Pod pod) {
    return evaluator.preEnqueue(pod);
  }

  // ---------------------------------------------------------------- PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    String ns = pod.getMetadata().getNamespace();
    scheduling = true;
    if (!synced.getAsBoolean()) {
      // unresolvable: preemption must not run before the quotas are known; activated once they are
      return reject(pod, Status.unresolvable(NOT_SYNCED));
    }
    String bad = invalid.get(ns);
    if (bad != null) {
      return reject(pod, Status.unresolvable(bad));
    }
    QuotaSnapshot snapshot = book.snapshot();
    PodCharge charge;
    try {
      charge = PodCharge.of(pod);
    } catch (IllegalArgumentException e) {
      return PreFilterResult.of(Status.unresolvable("pod \"" + ns + "/" + pod.getMetadata().getName() + "\": "
          + e.getMessage()));
    }
    Optional<QuotaSnapshot.View> view = snapshot.view(ns);
    if (view.isEmpty()) {
      state.write(CycleQuota.KEY, new CycleQuota(snapshot, charge, Optional.empty(), false, false));
      return PreFilterResult.SUCCESS;
    }
    Map<String, Long> own = gang.of(pod, charge.requests());
    QuotaSnapshot.Demand demand = snapshot.demand(ns, charge.uid(), charge.priority(), own);
    boolean preemptible = snapshot.preemptible(ns, charge.labelledPreemptible());
    boolean withinMin = !preemptible && view.get().withinMin(demand.own());
    state.write(CycleQuota.KEY, new CycleQuota(snapshot, charge, Optional.of(demand), preemptible, withinMin));
    Optional<String> why = snapshot.rejection(ns, demand, preemptible);
    if (why.isPresent()) {
      return reject(pod, Status.unschedulable(why.get()));
    }
    rejected.remove(charge.uid());
    return PreFilterResult.SUCCESS;
  }

  private PreFilterResult reject(Pod pod, Status status) {
    rejected.put(pod.getMetadata().getUid(), pod);
    return PreFilterResult.of(status);
  }

  // ---------------------------------------------------------------- PostFilter

  @Override
  public PostFilterResult postFilter(CycleState state, Pod pod, NodeToStatus filteredNodeStatus) {
    if (state.read(CycleQuota.KEY, CycleQuota.class).isEmpty()) {
      // PreFilter held the pod before looking at quotas (not listed yet, malformed quota): nothing to reclaim for
      return PostFilterResult.of(Status.unschedulable(MESSAGE_PREFIX + "the pod's quota was not evaluated"));
    }
    handle.preemptionMetrics().attempt();
    PostFilterResult result = evaluator.preempt(state, pod, filteredNodeStatus);
    Status status = result.status();
    if (status.isSuccess()) {
      state.read(CycleQuota.KEY, CycleQuota.class).ifPresent(c -> book.nominate(c.charge()));
    }
    String message = status.message();
    if (message.isEmpty()) {
      return result;
    }
    Status prefixed = status.code() == Code.ERROR ? Status.error(MESSAGE_PREFIX + message)
        : Status.of(status.code(), MESSAGE_PREFIX + message);
    return new PostFilterResult(prefixed, result.nominatingInfo());
  }

  // ---------------------------------------------------------------- Reserve

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    Optional<CycleQuota> c = state.read(CycleQuota.KEY, CycleQuota.class);
    try {
      book.charge(c.isPresent() && c.get().charge().uid().equals(pod.getMetadata().getUid()) ? c.get().charge()
          : PodCharge.of(pod));
    } catch (IllegalArgumentException e) {
      return Status.error(e.getMessage());
    }
    return Status.SUCCESS;
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    if (book.release(pod.getMetadata().getNamespace(), pod.getMetadata().getUid())) {
      activateRejected();
    }
  }

  // ---------------------------------------------------------------- events

  /** Keeps the book's charges and nominations from the pods the informer reports. */
  ObjectEventHandler<Pod> podHandler() {
    return new ObjectEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        observe(pod);
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        observe(newObj);
      }

      @Override
      public void onDelete(Pod pod) {
        rejected.remove(pod.getMetadata().getUid());
        if (book.release(pod.getMetadata().getNamespace(), pod.getMetadata().getUid())) {
          activateRejected();
        }
      }
    };
  }

  private void observe(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String uid = pod.getMetadata().getUid();
    try {
      if (QuotaPods.counts(pod)) {
        if (!book.isCharged(ns, uid)) {
          book.charge(PodCharge.of(pod));
        }
      } else if (QuotaPods.assigned(pod)) {
        if (book.release(ns, uid)) {
          activateRejected();
        }
      } else if (QuotaPods.nominated(pod)) {
        book.nominate(PodCharge.of(pod));
      } else {
        book.unnominate(uid);
      }
    } catch (IllegalArgumentException e) {
      LOG.warn("pod {}/{} is not counted against its quota: {}", ns, pod.getMetadata().getName(), e.getMessage());
    }
  }

  /** A quota was added or changed: malformed ones hold their namespace's pods. */
  public void quotaChanged(io.fabric8.kubernetes.api.model.GenericKubernetesResource r) {
    String ns = r.getMetadata().getNamespace();
    try {
      ElasticQuota q = ElasticQuota.from(r);
      boolean wasInvalid = invalid.remove(ns) != null;
      if (book.putQuota(q) || wasInvalid) {
        activateRejected();
      }
    } catch (IllegalArgumentException malformed) {
      if (!malformed.getMessage().equals(invalid.put(ns, malformed.getMessage()))) {
        LOG.warn("{}", malformed.getMessage());
      }
      book.removeQuota(ns, r.getMetadata().getName());
    }
  }

  /** A quota was deleted: its namespace is unbounded again. */
  public void quotaDeleted(io.fabric8.kubernetes.api.model.GenericKubernetesResource r) {
    invalid.remove(r.getMetadata().getNamespace());
    book.removeQuota(r.getMetadata().getNamespace(), r.getMetadata().getName());
    activateRejected();
  }

  /** Quota was freed or changed: the pods PreFilter rejected may fit now. */
  void activateRejected() {
    if (rejected.isEmpty()) {
      return;
    }
    List<Pod> pods = new ArrayList<>(rejected.size());
    for (Map.Entry<String, Pod> e : rejected.entrySet()) {
      if (rejected.remove(e.getKey(), e.getValue())) {
        pods.add(e.getValue());
      }
    }
    if (!pods.isEmpty()) {
      handle.activate(pods);
    }
  }

  // ---------------------------------------------------------------- EnqueueExtensions

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // ElasticQuota changes and freed quota activate the rejected pods directly (see activateRejected).
    return List.of(new ClusterEventWithHint(new ClusterEvent(EventResource.POD, ActionType.DELETE),
        CapacityScheduling::assignedPodDeleted));
  }

  /** A deleted pod frees quota only if it was on a node. */
  static QueueingHint assignedPodDeleted(Pod pod, Object oldObj, Object newObj) {
    if (!(oldObj instanceof Pod deleted)) {
      return QueueingHint.QUEUE;
    }
    return QuotaPods.assigned(deleted) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }
}
