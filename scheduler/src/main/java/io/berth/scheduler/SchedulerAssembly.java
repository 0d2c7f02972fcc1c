package io.berth.scheduler;

import io.berth.framework.ApiCacher;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.EventRecorder;
import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.Framework;
import io.berth.framework.PodApi;
import io.berth.framework.PodInfo;
import io.berth.framework.PodNominator;
import io.berth.framework.runtime.ClientPodApi;
import io.berth.framework.runtime.DefaultParallelizer;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.ListerProvider;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.informer.ResourceEventHandler;
import io.berth.scheduler.apidispatcher.ApiCache;
import io.berth.scheduler.apidispatcher.ApiDispatcher;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.explain.Attempt;
import io.berth.scheduler.explain.AttemptRecorder;
import io.berth.scheduler.explain.ExplainStore;
import io.berth.scheduler.explain.Explainer;
import io.berth.scheduler.explain.QueueStates;
import io.berth.scheduler.queue.QueueName;
import io.berth.scheduler.queue.QueueProfile;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Wires one scheduler: a runtime per profile, the scheduling queue, the cache and its snapshot, the
 * algorithm, the loop and the informer handlers, from a validated configuration. Used by the
 * daemon, by in-process tests and by the throughput harness (which feeds the handlers itself).
 * Thread-safe once built; {@link #start()} and {@link #stop(Duration)} are called once each.
 */
public final class SchedulerAssembly {
  /** Assumed pods whose binding finished but whose Add never came expire after this. */
  public static final Duration ASSUMED_POD_TTL = Duration.ofMinutes(15);

  private final Map<String, Framework> frameworks;
  private final SchedulingQueue queue;
  private final SchedulerCache cache;
  private final Snapshot snapshot;
  private final Scheduler scheduler;
  private final SchedulerEventHandlers handlers;
  private final DefaultParallelizer parallelizer;
  private final List<AutoCloseable> closeables;
  private final AttemptRecorder attemptRecorder;
  private final Explainer explainer;
  // null without SchedulerAsyncAPICalls
  private final ApiDispatcher apiDispatcher;

  private SchedulerAssembly(Builder b) {
    SchedulerMetrics metrics = new SchedulerMetrics(b.meterRegistry);
    this.parallelizer = new DefaultParallelizer(b.config.parallelism());
    this.snapshot = new Snapshot();
    this.cache = new SchedulerCache(ASSUMED_POD_TTL, b.clock);
    AtomicReference<SchedulingQueue> queueRef = new AtomicReference<>();
    PodNominator nominator = nodeName -> {
      SchedulingQueue q = queueRef.get();
      return q == null ? List.of() : q.nominatedPodsForNode(nodeName);
    };
    PodApi podApi = b.podApi != null ? b.podApi : b.client != null ? new ClientPodApi(b.client)
        : PodApi.unavailable("the scheduler");
    // SchedulerAsyncAPICalls: status patches and bindings through the dispatcher's own threads
    this.apiDispatcher = b.featureGates.enabled(FeatureGates.SCHEDULER_ASYNC_API_CALLS)
        ? new ApiDispatcher(b.config.parallelism(), metrics) : null;
    Optional<ApiCacher> apiCacher = apiDispatcher == null ? Optional.empty()
        : Optional.of(new ApiCache(apiDispatcher, podApi));
    Map<String, Framework> fws = new LinkedHashMap<>();
    List<AutoCloseable> toClose = new java.util.ArrayList<>();
    for (ProfileConfig profile : b.config.profiles()) {
      EventRecorder recorder = b.eventRecorders.apply(profile.schedulerName());
      if (recorder instanceof AutoCloseable c) {
        toClose.add(c);
      }
      fws.put(profile.schedulerName(), FrameworkRuntime.builder(b.registry, profile)
          .client(b.client).podApi(podApi).apiCacher(apiCacher.orElse(null))
          .featureGates(b.featureGates)
          .preemptionMetrics(metrics).pluginMetrics(metrics)
          .activator(pods -> {
            SchedulingQueue q = queueRef.get();
            if (q != null) {
              q.activate(pods);
            }
          })
          .listers(b.listers).eventRecorder(recorder).parallelizer(parallelizer)
          .nominator(nominator).snapshot(() -> snapshot).metrics(metrics).batchMetrics(metrics).build());
    }
    this.frameworks = Map.copyOf(fws);
    Map<String, QueueProfile> queueProfiles = new LinkedHashMap<>();
    fws.forEach((name, fw) -> queueProfiles.put(name, QueueProfile.of(fw)));
    Framework first = fws.values().iterator().next();
    this.queue = SchedulingQueue.builder(first.queueSortPlugin(), queueProfiles)
        .podInitialBackoff(Duration.ofSeconds(b.config.podInitialBackoffSeconds()))
        .podMaxBackoff(Duration.ofSeconds(b.config.podMaxBackoffSeconds()))
        .clock(b.clock)
        .popFromBackoffQ(b.featureGates.enabled(FeatureGates.SCHEDULER_POP_FROM_BACKOFF_Q))
        .listener((q, event) -> metrics.incomingPod(q.label(), event))
        .build();
    queueRef.set(queue);
    for (QueueName name : QueueName.values()) {
      metrics.registerPendingPods(name.label(), () -> switch (name) {
        case ACTIVE -> queue.activeSize();
        case BACKOFF -> queue.backoffSize();
        case UNSCHEDULABLE -> queue.unschedulableSize();
        case GATED -> queue.gatedSize();
      });
    }
    this.handlers = new SchedulerEventHandlers(queue, cache, frameworks, apiDispatcher);
    AtomicInteger n = new AtomicInteger();
    ExecutorService bindingPool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "binding-cycle-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.scheduler = new Scheduler(queue, cache, snapshot, frameworks,
        new SchedulingAlgorithm(b.config.percentageOfNodesToScore().orElse(0), b.random),
        new PodStatusUpdater(podApi, apiCacher), b.informerPod, metrics, b.clock, bindingPool);
    this.closeables = List.copyOf(toClose);
    this.attemptRecorder = b.explainStore.enabled() || !b.attemptListeners.isEmpty()
        ? new AttemptRecorder(b.explainStore, b.clock, b.attemptListeners) : AttemptRecorder.NOOP;
    scheduler.recordAttempts(attemptRecorder);
    this.explainer = new Explainer(b.explainStore, new QueueStates(queue));
  }

  public static Builder builder(SchedulerConfiguration config, Registry registry) {
    return new Builder(config, registry);
  }

  /**
   * Checks that every profile of {@code config} builds: plugin names, args and extension points.
   * Throws {@link IllegalArgumentException} naming the profile and field.
   */
  public static void validate(SchedulerConfiguration config, Registry registry) {
    // without batching: these runtimes are thrown away, and the one-time log that a profile cannot
    // batch (a plugin that does not sign) belongs to the scheduler's own runtimes
    FeatureGates noBatching = FeatureGates.parse(FeatureGates.OPPORTUNISTIC_BATCHING + "=false");
    for (ProfileConfig profile : config.profiles()) {
      FrameworkRuntime.builder(registry, profile).listers(InformerListers.empty())
          .featureGates(noBatching).build();
    }
  }

  /** Builds a {@link SchedulerAssembly}. */
  public static final class Builder {
    private final SchedulerConfiguration config;
    private final Registry registry;
    private KubernetesClient client;
    private PodApi podApi;
    private FeatureGates featureGates = FeatureGates.defaults();
    private ListerProvider listers = InformerListers.empty();
    private Function<String, EventRecorder> eventRecorders = name -> EventRecorder.NOOP;
    private MeterRegistry meterRegistry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    private InstantSource clock = InstantSource.system();
    private java.util.random.RandomGenerator random = new java.util.SplittableRandom();
    private Function<Pod, Optional<Pod>> informerPod = Optional::of;
    private ExplainStore explainStore = new ExplainStore(0, 1);
    private final List<java.util.function.Consumer<Attempt>> attemptListeners =
        new java.util.ArrayList<>();

    private Builder(SchedulerConfiguration config, Registry registry) {
      this.config = config;
      this.registry = registry;
    }

    public Builder client(KubernetesClient value) {
      this.client = value;
      return this;
    }

    /**
     * The scheduler's pod writes (status patches, preemption's deletions); by default over the
     * client. The throughput harness applies them in memory.
     */
    public Builder podApi(PodApi value) {
      this.podApi = value;
      return this;
    }

    public Builder featureGates(FeatureGates value) {
      this.featureGates = value;
      return this;
    }

    public Builder listers(ListerProvider value) {
      this.listers = value;
      return this;
    }

    /** Event recorders by scheduler name (one per profile). */
    public Builder eventRecorders(Function<String, EventRecorder> value) {
      this.eventRecorders = value;
      return this;
    }

    public Builder meterRegistry(MeterRegistry value) {
      this.meterRegistry = value;
      return this;
    }

    public Builder clock(InstantSource value) {
      this.clock = value;
      return this;
    }

    public Builder random(java.util.random.RandomGenerator value) {
      this.random = value;
      return this;
    }

    /** How the failure handler reads the pod's current version (the informer's lister). */
    public Builder informerPod(Function<Pod, Optional<Pod>> value) {
      this.informerPod = value;
      return this;
    }

    /**
     * Where scheduling attempts are recorded for {@code /debug/explain}; by default none (a store
     * with ring size 0), which also keeps the framework from collecting per-plugin results.
     */
    public Builder explainStore(ExplainStore value) {
      this.explainStore = java.util.Objects.requireNonNull(value, "value");
      return this;
    }

    /** Called with every recorded attempt on the recorder thread (the result annotations). */
    public Builder attemptListener(java.util.function.Consumer<Attempt> value) {
      this.attemptListeners.add(java.util.Objects.requireNonNull(value, "value"));
      return this;
    }

    public SchedulerAssembly build() {
      return new SchedulerAssembly(this);
    }
  }

  public Map<String, Framework> frameworks() {
    return frameworks;
  }

  public SchedulingQueue queue() {
    return queue;
  }

  public SchedulerCache cache() {
    return cache;
  }

  public Scheduler scheduler() {
    return scheduler;
  }

  /** The explanations of this scheduler's attempts (empty unless an explain store was given). */
  public Explainer explainer() {
    return explainer;
  }

  /** What records the attempts ({@link AttemptRecorder#NOOP} when recording is off). */
  public AttemptRecorder attemptRecorder() {
    return attemptRecorder;
  }

  /** The snapshot the scheduling loop works on; read it on the loop's terms only (see Snapshot). */
  Snapshot snapshot() {
    return snapshot;
  }

  public ResourceEventHandler<Pod> podHandler() {
    return handlers.podHandler();
  }

  public ResourceEventHandler<Node> nodeHandler() {
    return handlers.nodeHandler();
  }

  /** A handler moving pods on events of another kind (PVCs, PVs, StorageClasses...). */
  public <T extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceEventHandler<T>
      otherHandler(EventResource resource) {
    return handlers.otherHandler(resource);
  }

  /** The resources other than pods and nodes some enabled plugin registered events for. */
  public Set<EventResource> otherResourcesOfInterest() {
    Set<EventResource> out = EnumSet.noneOf(EventResource.class);
    for (Framework fw : frameworks.values()) {
      for (List<ClusterEventWithHint> regs : fw.enqueueExtensions().values()) {
        for (ClusterEventWithHint r : regs) {
          EventResource res = r.event().resource();
          if (res != EventResource.WILDCARD && res != EventResource.NODE && !res.covers(EventResource.ASSIGNED_POD)
              && res != EventResource.ASSIGNED_POD && res != EventResource.UNSCHEDULED_POD) {
            out.add(res);
          }
        }
      }
    }
    return out;
  }

  /** Starts the queue's flushes, the cache's expiry, the API dispatcher and the scheduling loop. */
  public void start() {
    cache.start();
    queue.start();
    if (apiDispatcher != null) {
      apiDispatcher.start();
    }
    scheduler.start();
  }

  /** Stops the loop and waits up to {@code timeout} for binding cycles; returns whether they ended. */
  public boolean stop(Duration timeout) throws InterruptedException {
    queue.close();
    boolean done = scheduler.stop(timeout);
    if (apiDispatcher != null) {
      // after the binding cycles, which wait for their bindings in it; what is queued still runs
      done &= apiDispatcher.close(timeout);
    }
    cache.close();
    attemptRecorder.close();
    parallelizer.close();
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        // closing event recorders cannot fail in a way that matters at shutdown
      }
    }
    return done;
  }

  /** For handlers of pods that are not ours: only used by tests. */
  static PodInfo podInfo(Pod pod) {
    return PodInfo.of(pod);
  }
}
