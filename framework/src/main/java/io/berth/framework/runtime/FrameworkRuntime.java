package io.berth.framework.runtime;

import static io.berth.framework.runtime.PluginCalls.errorOf;
import static io.berth.framework.runtime.PluginCalls.podKey;
import static io.berth.framework.runtime.PluginCalls.safely;
import static io.berth.framework.runtime.PluginCalls.wrapError;

import io.berth.framework.BindPlugin;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventRecorder;
import io.berth.framework.BatchMetrics;
import io.berth.framework.FilterPlugin;
import io.berth.framework.GroupPreemptionPlugin;
import io.berth.framework.FeatureGates;
import io.berth.framework.Framework;
import io.berth.framework.NodeHints;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.NodeScores;
import io.berth.framework.NodeToStatus;
import io.berth.framework.ObjectLister;
import io.berth.framework.Parallelizer;
import io.berth.framework.PermitPlugin;
import io.berth.framework.PermitResult;
import io.berth.framework.Plugin;
import io.berth.framework.PluginFactory;
import io.berth.framework.ApiCacher;
import io.berth.framework.PodApi;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PodNominator;
import io.berth.framework.PostBindPlugin;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.PreemptionMetrics;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.ReservePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs one profile's plugins at each extension point in kube-scheduler's order and with its
 * status rules (see {@link Framework}). Thread-safe: plugin lists and weights are immutable after
 * construction, waiting pods live in a concurrent map, and per-pod data stays in CycleState.
 * Built once per profile by the scheduler ({@link #builder}); plugins are created in the builder
 * with this runtime as their {@link io.berth.framework.Handle}.
 */
public final class FrameworkRuntime implements Framework {
  /** Permit timeouts are capped at 15 minutes, as upstream. */
  static final Duration MAX_PERMIT_TIMEOUT = Duration.ofMinutes(15);

  private final String profileName;
  private final OptionalInt percentageOfNodesToScore;
  private final KubernetesClient client;
  private final PodApi podApi;
  private final Optional<ApiCacher> apiCacher;
  private final FeatureGates featureGates;
  private final PreemptionMetrics preemptionMetrics;
  private final io.berth.framework.PluginMetrics pluginMetrics;
  private final Consumer<Collection<Pod>> activator;
  private final ListerProvider listers;
  private final EventRecorder eventRecorder;
  private final Parallelizer parallelizer;
  private final PodNominator nominator;
  private final Supplier<NodeInfoLister> snapshot;
  private final ExtensionPointMetrics metrics;
  private final BatchMetrics batchMetrics;
  private final ScheduledExecutorService timers;
  private final WaitingPods waitingPods;

  // immutable after the builder finished
  private Map<String, Plugin> plugins = Map.of();
  private List<PreEnqueuePlugin> preEnqueue = List.of();
  private QueueSortPlugin queueSort;
  private List<PreFilterPlugin> preFilter = List.of();
  private List<FilterPlugin> filter = List.of();
  private List<PostFilterPlugin> postFilter = List.of();
  private List<PreScorePlugin> preScore = List.of();
  private List<ScorePlugin> score = List.of();
  private int[] scoreWeights = new int[0];
  private List<ReservePlugin> reserve = List.of();
  private List<PermitPlugin> permit = List.of();
  private List<PreBindPlugin> preBind = List.of();
  private List<BindPlugin> bind = List.of();
  private List<PostBindPlugin> postBind = List.of();
  private Map<String, List<ClusterEventWithHint>> enqueueExtensions = Map.of();
  private Map<String, List<String>> listing = Map.of();
  private NodeHints nodeHints = NodeHints.DISABLED;
  private Optional<PodGroupPlugin> podGroupPlugin = Optional.empty();
  private Optional<GroupPreemptionPlugin> groupPreemptionPlugin = Optional.empty();
  // the last resolution of activeFilters: immutable, replaced whole by whichever thread resolves a new skip set
  private volatile ActiveFilters activeFilters;

  private FrameworkRuntime(Builder b) {
    this.profileName = b.profile.schedulerName();
    this.percentageOfNodesToScore = b.profile.percentageOfNodesToScore();
    this.client = b.client;
    this.podApi = b.podApi != null ? b.podApi : b.client != null ? new ClientPodApi(b.client)
        : PodApi.unavailable("profile \"" + profileName + "\"");
    this.apiCacher = Optional.ofNullable(b.apiCacher);
    this.featureGates = b.featureGates;
    this.preemptionMetrics = b.preemptionMetrics;
    this.pluginMetrics = b.pluginMetrics;
    this.activator = b.activator;
    this.listers = b.listers;
    this.eventRecorder = b.eventRecorder;
    this.parallelizer = b.parallelizer;
    this.nominator = b.nominator;
    this.snapshot = b.snapshot;
    this.metrics = b.metrics;
    this.batchMetrics = b.batchMetrics;
    this.timers = b.timers;
    this.waitingPods = new WaitingPods(b.timers);
  }

  public static Builder builder(Registry registry, ProfileConfig profile) {
    return new Builder(registry, profile);
  }

  /** Builds a runtime; creating plugins may call back into the half-built runtime's Handle. */
  public static final class Builder {
    private final Registry registry;
    private final ProfileConfig profile;
    private KubernetesClient client;
    private PodApi podApi;
    private ApiCacher apiCacher;
    private FeatureGates featureGates = FeatureGates.defaults();
    private PreemptionMetrics preemptionMetrics = PreemptionMetrics.NOOP;
    private io.berth.framework.PluginMetrics pluginMetrics = io.berth.framework.PluginMetrics.NOOP;
    private Consumer<Collection<Pod>> activator = pods -> { };
    private ListerProvider listers = ListerProvider.NONE;
    private EventRecorder eventRecorder = EventRecorder.NOOP;
    private Parallelizer parallelizer;
    private PodNominator nominator = nodeName -> List.of();
    private Supplier<NodeInfoLister> snapshot;
    private ExtensionPointMetrics metrics = ExtensionPointMetrics.NOOP;
    private BatchMetrics batchMetrics = BatchMetrics.NOOP;
    private ScheduledExecutorService timers;

    private Builder(Registry registry, ProfileConfig profile) {
      this.registry = registry;
      this.profile = profile;
    }

    public Builder client(KubernetesClient value) {
      this.client = value;
      return this;
    }

    /** The pod writes; by default {@link ClientPodApi} over the client. */
    public Builder podApi(PodApi value) {
      this.podApi = value;
      return this;
    }

    /** The asynchronous pod writes ({@code SchedulerAsyncAPICalls}); by default none. */
    public Builder apiCacher(ApiCacher value) {
      this.apiCacher = value;
      return this;
    }

    public Builder featureGates(FeatureGates value) {
      this.featureGates = value;
      return this;
    }

    public Builder preemptionMetrics(PreemptionMetrics value) {
      this.preemptionMetrics = value;
      return this;
    }

    /** Where plugins expose their own metrics ({@link io.berth.framework.Handle#pluginMetrics}). */
    public Builder pluginMetrics(io.berth.framework.PluginMetrics value) {
      this.pluginMetrics = value;
      return this;
    }

    /** What {@link io.berth.framework.Handle#activate} does: the scheduling queue's activate. */
    public Builder activator(Consumer<Collection<Pod>> value) {
      this.activator = value;
      return this;
    }

    public Builder listers(ListerProvider value) {
      this.listers = value;
      return this;
    }

    public Builder eventRecorder(EventRecorder value) {
      this.eventRecorder = value;
      return this;
    }

    public Builder parallelizer(Parallelizer value) {
      this.parallelizer = value;
      return this;
    }

    public Builder nominator(PodNominator value) {
      this.nominator = value;
      return this;
    }

    /** Where the current cycle's snapshot comes from (the scheduler swaps it every cycle). */
    public Builder snapshot(Supplier<NodeInfoLister> value) {
      this.snapshot = value;
      return this;
    }

    public Builder metrics(ExtensionPointMetrics value) {
      this.metrics = value;
      return this;
    }

    /** Where opportunistic batching reports (when its gate is on); none by default. */
    public Builder batchMetrics(BatchMetrics value) {
      this.batchMetrics = value;
      return this;
    }

    /** Timers for Permit timeouts; a daemon single-thread scheduler is created when unset. */
    public Builder timers(ScheduledExecutorService value) {
      this.timers = value;
      return this;
    }

    /**
     * Creates the plugins and resolves the extension points. Throws
     * {@link IllegalArgumentException} naming the profile and field on an unknown plugin, bad
     * args, a plugin enabled at a point it does not implement, or not exactly one QueueSort.
     */
    public FrameworkRuntime build() {
      if (parallelizer == null) {
        parallelizer = new DefaultParallelizer(16);
      }
      if (snapshot == null) {
        NodeInfoLister empty = new io.berth.framework.testing.ListNodeInfoLister(List.of());
        snapshot = () -> empty;
      }
      if (timers == null) {
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "permit-timers");
          t.setDaemon(true);
          return t;
        });
      }
      FrameworkRuntime fw = new FrameworkRuntime(this);
      fw.init(registry, profile);
      return fw;
    }
  }

  private void init(Registry registry, ProfileConfig profile) {
    Map<String, Plugin> instances = new LinkedHashMap<>();
    for (String name : PluginLists.enabledNames(profile)) {
      PluginFactory factory = registry.get(name).orElseThrow(() -> new IllegalArgumentException(
          "profile \"" + profileName + "\": plugin \"" + name + "\" is not registered"));
      Plugin plugin;
      try {
        plugin = factory.create(profile.argsOf(name), this);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("profile \"" + profileName + "\": pluginConfig["
            + name + "].args: " + e.getMessage(), e);
      }
      instances.put(name, plugin);
    }
    PluginLists lists = PluginLists.resolve(profile, instances);
    this.plugins = Map.copyOf(instances);
    this.podGroupPlugin = instances.values().stream().filter(PodGroupPlugin.class::isInstance)
        .map(PodGroupPlugin.class::cast).findFirst();
    this.groupPreemptionPlugin = instances.values().stream()
        .filter(GroupPreemptionPlugin.class::isInstance).map(GroupPreemptionPlugin.class::cast)
        .findFirst();
    this.preEnqueue = lists.get(ExtensionPoint.PRE_ENQUEUE);
    List<QueueSortPlugin> sorts = lists.get(ExtensionPoint.QUEUE_SORT);
    if (sorts.size() != 1) {
      throw new IllegalArgumentException("profile \"" + profileName
          + "\": plugins.queueSort: Invalid value: " + sorts.size()
          + " queue sort plugins enabled: exactly one is required");
    }
    this.queueSort = sorts.get(0);
    this.preFilter = lists.get(ExtensionPoint.PRE_FILTER);
    this.filter = lists.get(ExtensionPoint.FILTER);
    this.postFilter = lists.get(ExtensionPoint.POST_FILTER);
    this.preScore = lists.get(ExtensionPoint.PRE_SCORE);
    this.score = lists.get(ExtensionPoint.SCORE);
    this.scoreWeights = new int[score.size()];
    for (int i = 0; i < score.size(); i++) {
      scoreWeights[i] = lists.scoreWeights.getOrDefault(score.get(i).name(), 1);
    }
    this.reserve = lists.get(ExtensionPoint.RESERVE);
    this.permit = lists.get(ExtensionPoint.PERMIT);
    this.preBind = lists.get(ExtensionPoint.PRE_BIND);
    this.bind = lists.get(ExtensionPoint.BIND);
    if (bind.isEmpty()) {
      throw new IllegalArgumentException("profile \"" + profileName
          + "\": plugins.bind: Required value: at least one bind plugin is needed");
    }
    this.postBind = lists.get(ExtensionPoint.POST_BIND);
    Map<String, List<String>> names = new LinkedHashMap<>();
    for (ExtensionPoint point : ExtensionPoint.values()) {
      List<Plugin> list = lists.get(point);
      names.put(PluginLists.displayName(point), list.stream().map(Plugin::name).toList());
    }
    this.listing = Map.copyOf(names);
    this.enqueueExtensions = collectEnqueueExtensions(lists);
    if (featureGates.enabled(FeatureGates.OPPORTUNISTIC_BATCHING)) {
      PodSignatures signatures = PodSignatures.of(profileName, metrics, preFilter, filter,
          preScore, score);
      this.nodeHints = new OpportunisticBatch(this, signatures::sign, batchMetrics, System::nanoTime);
    }
  }

  private static Map<String, List<ClusterEventWithHint>> collectEnqueueExtensions(PluginLists lists) {
    Map<String, List<ClusterEventWithHint>> out = new LinkedHashMap<>();
    for (ExtensionPoint point : List.of(ExtensionPoint.PRE_ENQUEUE, ExtensionPoint.PRE_FILTER,
        ExtensionPoint.FILTER, ExtensionPoint.RESERVE, ExtensionPoint.PERMIT)) {
      for (Plugin plugin : lists.<Plugin>get(point)) {
        if (out.containsKey(plugin.name())) {
          continue;
        }
        if (plugin instanceof EnqueueExtensions ext) {
          out.put(plugin.name(), List.copyOf(ext.eventsToRegister()));
        } else {
          out.put(plugin.name(), List.of(ClusterEventWithHint.always(ClusterEvent.WILDCARD)));
        }
      }
    }
    return Map.copyOf(out);
  }

  // ---- Handle ----

  @Override
  public NodeInfoLister snapshotLister() {
    return snapshot.get();
  }

  @Override
  public KubernetesClient client() {
    if (client == null) {
      throw new IllegalStateException("profile \"" + profileName + "\" has no API client");
    }
    return client;
  }

  @Override
  public PodApi podApi() {
    return podApi;
  }

  @Override
  public Optional<ApiCacher> apiCacher() {
    return apiCacher;
  }

  @Override
  public FeatureGates featureGates() {
    return featureGates;
  }

  @Override
  public PreemptionMetrics preemptionMetrics() {
    return preemptionMetrics;
  }

  @Override
  public void activate(Collection<Pod> pods) {
    activator.accept(pods);
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    return listers.lister(type);
  }

  @Override
  public <T extends HasMetadata> io.berth.framework.ObjectIndex<T> index(Class<T> type,
      String indexName, java.util.function.Function<? super T, java.util.List<String>> keys) {
    return listers.index(type, indexName, keys);
  }

  @Override
  public <T extends HasMetadata> java.util.function.BooleanSupplier addEventHandler(Class<T> type,
      io.berth.framework.ObjectEventHandler<T> handler) {
    return listers.addEventHandler(type, handler);
  }

  @Override
  public io.berth.framework.PluginMetrics pluginMetrics() {
    return pluginMetrics;
  }

  @Override
  public EventRecorder eventRecorder() {
    return eventRecorder;
  }

  @Override
  public Parallelizer parallelizer() {
    return parallelizer;
  }

  @Override
  public PodNominator nominator() {
    return nominator;
  }

  @Override
  public Optional<WaitingPod> getWaitingPod(String podUid) {
    return waitingPods.get(podUid);
  }

  @Override
  public void iterateOverWaitingPods(Consumer<WaitingPod> action) {
    waitingPods.forEach(action);
  }

  @Override
  public void rejectWaitingPod(String podUid) {
    waitingPods.reject(podUid);
  }

  // ---- Framework ----

  @Override
  public String profileName() {
    return profileName;
  }

  @Override
  public QueueSortPlugin queueSortPlugin() {
    return queueSort;
  }

  @Override
  public boolean hasPreEnqueuePlugins() {
    return !preEnqueue.isEmpty();
  }

  @Override
  public Status runPreEnqueuePlugins(Pod pod) {
    for (PreEnqueuePlugin pl : preEnqueue) {
      Status s = safely(() -> pl.preEnqueue(pod), pl, "PreEnqueue");
      if (!s.isSuccess()) {
        return s.withPlugin(pl.name());
      }
    }
    return Status.SUCCESS;
  }

  @Override
  public Map<String, List<ClusterEventWithHint>> enqueueExtensions() {
    return enqueueExtensions;
  }

  @Override
  public PreFilterResult runPreFilterPlugins(CycleState state, Pod pod, List<NodeInfo> nodes) {
    long start = System.nanoTime();
    PreFilterResult merged = PreFilterResult.SUCCESS;
    Optional<Set<String>> nodeNames = Optional.empty();
    List<String> pluginsWithNodes = new ArrayList<>();
    Status result = Status.SUCCESS;
    PluginResults rec = PluginResults.of(state);
    for (PreFilterPlugin pl : preFilter) {
      PreFilterResult r;
      try {
        r = pl.preFilter(state, pod, nodes);
      } catch (RuntimeException e) {
        r = PreFilterResult.of(errorOf(e, pl, "PreFilter"));
      }
      Status s = r.status();
      if (rec != null) {
        rec.addPreFilter(pl.name(), s, r.nodeNames());
      }
      if (s.isSkip()) {
        state.skipFilterPlugins().add(pl.name());
        continue;
      }
      if (!s.isSuccess()) {
        result = s.isRejected() ? s.withPlugin(pl.name())
            : wrapError(s, "running PreFilter plugin \"" + pl.name() + "\"", pl.name());
        break;
      }
      if (!r.allNodes()) {
        pluginsWithNodes.add(pl.name());
        state.preFilterNodePlugins().add(pl.name());
      }
      nodeNames = r.mergeNodes(nodeNames);
      if (nodeNames.isPresent() && nodeNames.get().isEmpty()) {
        String msg = pluginsWithNodes.size() == 1
            ? "node(s) didn't satisfy plugin " + pluginsWithNodes.get(0)
            : "node(s) didn't satisfy plugin(s) " + pluginsWithNodes + " simultaneously";
        result = Status.unresolvable(msg).withPlugin(pluginsWithNodes.get(pluginsWithNodes.size() - 1));
        break;
      }
    }
    metrics.observe("PreFilter", result.code().displayName(), profileName, System.nanoTime() - start);
    if (!result.isSuccess()) {
      return new PreFilterResult(result, nodeNames);
    }
    return nodeNames.isEmpty() ? merged : PreFilterResult.nodes(nodeNames.get());
  }

  @Override
  public Status runFilterPlugins(CycleState state, Pod pod, NodeInfo nodeInfo) {
    for (FilterPlugin pl : activeFilters(state)) {
      Status s;
      try {
        s = pl.filter(state, pod, nodeInfo);
      } catch (RuntimeException e) {
        s = errorOf(e, pl, "Filter");
      }
      if (!s.isSuccess()) {
        if (!s.isRejected()) {
          return wrapError(s, "running \"" + pl.name() + "\" filter plugin", pl.name());
        }
        return s.withPlugin(pl.name());
      }
    }
    return Status.SUCCESS;
  }

  /**
   * The Filter plugins that {@code state} does not skip, in order. Resolved once per skip set (the cycle's PreFilter
   * fixes it; copies share it) rather than asking the set about every plugin on every node; the last resolution is
   * kept with the set it was made for and reused while a cycle presents that same set instance.
   */
  private FilterPlugin[] activeFilters(CycleState state) {
    Set<String> skip = state.skipFilterPluginsSnapshot();
    ActiveFilters a = activeFilters;
    if (a == null || a.skip() != skip) {
      List<FilterPlugin> out = new ArrayList<>(filter.size());
      for (FilterPlugin pl : filter) {
        if (skip.isEmpty() || !skip.contains(pl.name())) {
          out.add(pl);
        }
      }
      a = new ActiveFilters(skip, out.toArray(new FilterPlugin[0]));
      activeFilters = a;
    }
    return a.plugins();
  }

  /** The Filter plugins left to run under the skip set {@code skip} (compared by identity). */
  private record ActiveFilters(Set<String> skip, FilterPlugin[] plugins) { }

  @Override
  public Status runFilterPluginsWithNominatedPods(CycleState state, Pod pod, NodeInfo nodeInfo) {
    // Filter twice when nominated pods of equal or higher priority exist on the node: once with
    // them (they will likely land there), once without (they might not): the pod must fit both.
    Status status = Status.SUCCESS;
    boolean podsAdded = false;
    for (int i = 0; i < 2; i++) {
      CycleState stateToUse = state;
      NodeInfo nodeToUse = nodeInfo;
      if (i == 0) {
        List<PodInfo> nominated = nominatedPodsToAdd(pod, nodeInfo.nodeName());
        if (!nominated.isEmpty()) {
          podsAdded = true;
          stateToUse = state.copy();
          nodeToUse = nodeInfo.snapshot();
          for (PodInfo p : nominated) {
            nodeToUse.addPod(p);
            Status s = runPreFilterExtensionAddPod(stateToUse, pod, p, nodeToUse);
            if (!s.isSuccess()) {
              return s;
            }
          }
        }
      } else if (!podsAdded || !status.isSuccess()) {
        break;
      }
      status = runFilterPlugins(stateToUse, pod, nodeToUse);
      if (!status.isSuccess() && !status.isRejected()) {
        return status;
      }
    }
    return status;
  }

  private List<PodInfo> nominatedPodsToAdd(Pod pod, String nodeName) {
    List<PodInfo> nominated = nominator.nominatedPodsForNode(nodeName);
    if (nominated.isEmpty()) {
      return List.of();
    }
    int priority = priorityOf(pod);
    String uid = pod.getMetadata().getUid();
    List<PodInfo> out = null; // allocated at the first pod left out
    for (int i = 0; i < nominated.size(); i++) {
      PodInfo p = nominated.get(i);
      // the PodInfo's own priority and uid: no hops through each nominated Pod on every node
      boolean keep = p.priority() >= priority && !sameUid(p.uid(), uid);
      if (!keep && out == null) {
        out = new ArrayList<>(nominated.subList(0, i));
      } else if (keep && out != null) {
        out.add(p);
      }
    }
    return out == null ? nominated : out;
  }

  /** {@code Objects.equals(a, b)}; two different UIDs (nearly always) told apart by their cached hashes. */
  private static boolean sameUid(String a, String b) {
    if (a == b) {
      return true;
    }
    return a != null && b != null && a.hashCode() == b.hashCode() && a.equals(b);
  }

  private static int priorityOf(Pod pod) {
    Integer p = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return p == null ? 0 : p;
  }

  @Override
  public Status runPreFilterExtensionAddPod(CycleState state, Pod podToSchedule, PodInfo podToAdd,
      NodeInfo nodeInfo) {
    for (PreFilterPlugin pl : preFilter) {
      if (state.skipFilterPlugins().contains(pl.name())) {
        continue;
      }
      Optional<PreFilterExtensions> ext = pl.preFilterExtensions();
      if (ext.isEmpty()) {
        continue;
      }
      Status s = safely(() -> ext.get().addPod(state, podToSchedule, podToAdd, nodeInfo), pl,
          "AddPod");
      if (!s.isSuccess()) {
        return wrapError(s, "running AddPod on PreFilter plugin \"" + pl.name() + "\"", pl.name());
      }
    }
    return Status.SUCCESS;
  }

  @Override
  public Status runPreFilterExtensionRemovePod(CycleState state, Pod podToSchedule,
      PodInfo podToRemove, NodeInfo nodeInfo) {
    for (PreFilterPlugin pl : preFilter) {
      if (state.skipFilterPlugins().contains(pl.name())) {
        continue;
      }
      Optional<PreFilterExtensions> ext = pl.preFilterExtensions();
      if (ext.isEmpty()) {
        continue;
      }
      Status s = safely(() -> ext.get().removePod(state, podToSchedule, podToRemove, nodeInfo), pl,
          "RemovePod");
      if (!s.isSuccess()) {
        return wrapError(s, "running RemovePod on PreFilter plugin \"" + pl.name() + "\"",
            pl.name());
      }
    }
    return Status.SUCCESS;
  }

  @Override
  public boolean hasFilterPlugins() {
    return !filter.isEmpty();
  }

  @Override
  public boolean hasPostFilterPlugins() {
    return !postFilter.isEmpty();
  }

  @Override
  public boolean hasScorePlugins() {
    return !score.isEmpty();
  }

  @Override
  public PostFilterResult runPostFilterPlugins(CycleState state, Pod pod, NodeToStatus statuses) {
    long start = System.nanoTime();
    PostFilterResult chosen = null;
    List<String> reasons = new ArrayList<>();
    String rejector = "";
    PostFilterResult out = null;
    for (PostFilterPlugin pl : postFilter) {
      PostFilterResult r;
      try {
        r = pl.postFilter(state, pod, statuses);
      } catch (RuntimeException e) {
        r = PostFilterResult.of(errorOf(e, pl, "PostFilter"));
      }
      Status s = r.status();
      record(state, "PostFilter", pl.name(), s);
      if (s.isSuccess()) {
        out = r;
        break;
      }
      if (s.code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
        out = new PostFilterResult(s.withPlugin(pl.name()), r.nominatingInfo());
        break;
      }
      if (!s.isRejected()) {
        out = PostFilterResult.of(wrapError(s, "running PostFilter plugin \"" + pl.name() + "\"",
            pl.name()));
        break;
      }
      if (r.nominatingInfo().mode() != io.berth.framework.NominatingInfo.Mode.NOOP) {
        chosen = r;
      }
      reasons.addAll(s.reasons());
      if (rejector.isEmpty()) {
        rejector = pl.name();
      }
    }
    if (out == null) {
      Status s = Status.unschedulable(reasons.toArray(String[]::new)).withPlugin(rejector);
      out = new PostFilterResult(s, chosen == null
          ? io.berth.framework.NominatingInfo.NOOP : chosen.nominatingInfo());
    }
    metrics.observe("PostFilter", out.status().code().displayName(), profileName,
        System.nanoTime() - start);
    return out;
  }

  @Override
  public Status runPreScorePlugins(CycleState state, Pod pod, List<NodeInfo> nodes) {
    long start = System.nanoTime();
    Status result = Status.SUCCESS;
    for (PreScorePlugin pl : preScore) {
      Status s = safely(() -> pl.preScore(state, pod, nodes), pl, "PreScore");
      record(state, "PreScore", pl.name(), s);
      if (s.isSkip()) {
        state.skipScorePlugins().add(pl.name());
        continue;
      }
      if (!s.isSuccess()) {
        result = wrapError(s, "running PreScore plugin \"" + pl.name() + "\"", pl.name());
        break;
      }
    }
    metrics.observe("PreScore", result.code().displayName(), profileName, System.nanoTime() - start);
    return result;
  }

  @Override
  public long[] runScorePlugins(CycleState state, Pod pod, List<NodeInfo> nodes) {
    long start = System.nanoTime();
    String code = "Error";
    try {
      long[] total = ScorePass.run(score, scoreWeights, parallelizer, state, pod, nodes,
          PluginResults.of(state));
      code = "Success";
      return total;
    } finally {
      metrics.observe("Score", code, profileName, System.nanoTime() - start);
    }
  }

  @Override
  public NodeScores runScorePluginsKeeping(CycleState state, Pod pod, List<NodeInfo> nodes) {
    long start = System.nanoTime();
    String code = "Error";
    try {
      NodeScores scores = ScorePass.keeping(score, scoreWeights, parallelizer, state, pod, nodes,
          PluginResults.of(state), this::runPreScorePlugins);
      code = "Success";
      return scores;
    } finally {
      metrics.observe("Score", code, profileName, System.nanoTime() - start);
    }
  }

  @Override
  public Status runReservePluginsReserve(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.SUCCESS;
    for (ReservePlugin pl : reserve) {
      Status s = safely(() -> pl.reserve(state, pod, nodeName), pl, "Reserve");
      record(state, "Reserve", pl.name(), s);
      if (!s.isSuccess()) {
        result = s.isRejected() ? s.withPlugin(pl.name())
            : wrapError(s, "running Reserve plugin \"" + pl.name() + "\"", pl.name());
        break;
      }
    }
    metrics.observe("Reserve", result.code().displayName(), profileName, System.nanoTime() - start);
    return result;
  }

  @Override
  public void runReservePluginsUnreserve(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    for (int i = reserve.size() - 1; i >= 0; i--) {
      ReservePlugin pl = reserve.get(i);
      try {
        pl.unreserve(state, pod, nodeName);
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(FrameworkRuntime.class)
            .error("Unreserve of plugin {} failed for pod {}", pl.name(), podKey(pod), e);
      }
    }
    metrics.observe("Unreserve", "Success", profileName, System.nanoTime() - start);
  }

  @Override
  public Status runPermitPlugins(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Map<String, Duration> waitTimes = new LinkedHashMap<>();
    Status result = Status.SUCCESS;
    for (PermitPlugin pl : permit) {
      PermitResult r;
      try {
        r = pl.permit(state, pod, nodeName);
      } catch (RuntimeException e) {
        r = PermitResult.of(errorOf(e, pl, "Permit"));
      }
      Status s = r.status();
      record(state, "Permit", pl.name(), s);
      if (s.isSuccess()) {
        continue;
      }
      if (s.isRejected()) {
        result = s.withPlugin(pl.name());
        break;
      }
      if (s.isWait()) {
        Duration timeout = r.timeout().compareTo(MAX_PERMIT_TIMEOUT) > 0 ? MAX_PERMIT_TIMEOUT
            : r.timeout();
        waitTimes.put(pl.name(), timeout);
        continue;
      }
      result = wrapError(s, "running Permit plugin \"" + pl.name() + "\"", pl.name());
      break;
    }
    if (result.isSuccess() && !waitTimes.isEmpty()) {
      waitingPods.park(pod, waitTimes);
      result = Status.of(Code.WAIT, "one or more plugins asked to wait and no plugin rejected pod \""
          + pod.getMetadata().getName() + "\"");
    }
    metrics.observe("Permit", result.code().displayName(), profileName, System.nanoTime() - start);
    return result;
  }

  @Override
  public Status waitOnPermit(Pod pod) throws InterruptedException {
    return waitingPods.await(pod);
  }

  @Override
  public Status runPreBindPreFlights(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.skip();
    Set<String> skipped = null; // allocated at the first plugin that skips
    for (PreBindPlugin pl : preBind) {
      Status s = safely(() -> pl.preBindPreFlight(state, pod, nodeName), pl, "PreBindPreFlight");
      if (s.isSuccess()) {
        result = Status.SUCCESS;
      } else if (s.isSkip()) {
        if (skipped == null) {
          skipped = new HashSet<>();
        }
        skipped.add(pl.name());
      } else if (s.code() == Code.ERROR) {
        result = wrapError(s, "running PreBindPreFlight \"" + pl.name() + "\"", pl.name());
        break;
      } else {
        result = Status.error("PreBindPreFlight " + pl.name() + " returned \""
            + s.code().displayName() + "\", which is unsupported. It is supposed to return"
            + " Success, Skip, or Error status").withPlugin(pl.name());
        break;
      }
    }
    if (skipped != null && result.code() != Code.ERROR) {
      state.setSkipPreBindPlugins(skipped);
    }
    metrics.observe("PreBindPreFlight", result.code().displayName(), profileName,
        System.nanoTime() - start);
    return result;
  }

  @Override
  public Status runPreBindPlugins(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.SUCCESS;
    Set<String> skip = state.skipPreBindPlugins();
    for (PreBindPlugin pl : preBind) {
      if (skip.contains(pl.name())) {
        continue;
      }
      Status s = safely(() -> pl.preBind(state, pod, nodeName), pl, "PreBind");
      record(state, "PreBind", pl.name(), s);
      if (!s.isSuccess()) {
        result = s.isRejected() ? s.withPlugin(pl.name())
            : wrapError(s, "running PreBind plugin \"" + pl.name() + "\"", pl.name());
        break;
      }
    }
    metrics.observe("PreBind", result.code().displayName(), profileName, System.nanoTime() - start);
    return result;
  }

  @Override
  public Status runBindPlugins(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    Status result = Status.skip();
    for (BindPlugin pl : bind) {
      Status s = safely(() -> pl.bind(state, pod, nodeName), pl, "Bind");
      record(state, "Bind", pl.name(), s);
      if (s.isSkip()) {
        continue;
      }
      result = s.isSuccess() || s.isRejected() ? s.withPlugin(pl.name())
          : wrapError(s, "binding rejected: running Bind plugin \"" + pl.name() + "\"", pl.name());
      break;
    }
    metrics.observe("Bind", result.code().displayName(), profileName, System.nanoTime() - start);
    return result;
  }

  @Override
  public void runPostBindPlugins(CycleState state, Pod pod, String nodeName) {
    long start = System.nanoTime();
    for (PostBindPlugin pl : postBind) {
      try {
        pl.postBind(state, pod, nodeName);
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(FrameworkRuntime.class)
            .error("PostBind of plugin {} failed for pod {}", pl.name(), podKey(pod), e);
      }
    }
    metrics.observe("PostBind", "Success", profileName, System.nanoTime() - start);
  }

  @Override
  public NodeHints nodeHints() {
    return nodeHints;
  }

  @Override
  public Optional<PodGroupPlugin> podGroupPlugin() {
    return podGroupPlugin;
  }

  @Override
  public Optional<GroupPreemptionPlugin> groupPreemptionPlugin() {
    return groupPreemptionPlugin;
  }

  @Override
  public OptionalInt percentageOfNodesToScore() {
    return percentageOfNodesToScore;
  }

  @Override
  public Map<String, List<String>> listPlugins() {
    return listing;
  }

  /** Appends to the attempt's {@link PluginResults} when the scheduler installed one. */
  private static void record(CycleState state, String point, String plugin, Status s) {
    PluginResults rec = PluginResults.of(state);
    if (rec != null) {
      rec.add(point, plugin, s);
    }
  }

  /** The plugin instance by name, for tests and the debug endpoint. */
  public Optional<Plugin> plugin(String name) {
    return Optional.ofNullable(plugins.get(name));
  }
}
