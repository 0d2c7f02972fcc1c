package io.berth.scheduler.debug;

import io.berth.framework.AssumedPod;
import io.berth.framework.CycleState;
import io.berth.framework.FeatureGates;
import io.berth.framework.Framework;
import io.berth.framework.NodeInfo;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.PodInfo;
import io.berth.framework.PostFilterResult;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.framework.runtime.DefaultParallelizer;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.ListerProvider;
import io.berth.framework.runtime.PluginResults;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.scheduler.FitError;
import io.berth.scheduler.ScheduleResult;
import io.berth.scheduler.SchedulingAlgorithm;
import io.berth.scheduler.cache.CacheDump;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.explain.Attempt;
import io.berth.scheduler.explain.AttemptRecorder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where pods would land now, without binding or writing anything ({@code POST /debug/simulate}):
 * copies the scheduler's cache into a private snapshot, builds the profiles afresh (from the
 * scheduler's configuration or one given with the request) with no API client, no pod writes and
 * no events, over the daemon's listers read-only ({@link ReadOnlyListers}: a plugin's event handler
 * is handed the objects listed now and never registered) and with the gang and quota plugins
 * reading the live daemon's PodGroups and a copy of its quota book ({@link SimulationRegistry}),
 * and runs the scheduling cycle for each pod in turn: PreFilter, Filter, PreScore and
 * Score; for a pod no node fits, PostFilter (preemption: the candidates, the victims it would
 * evict and the node it would nominate, through a {@link PodApi} that writes nothing, so no pod
 * is evicted or patched); for a placed pod, Reserve and Permit on the chosen node (a pod Permit
 * makes wait is reported as waiting). A placed or waiting pod is added to the copy, so the next
 * one sees it (and a Reserve plugin's in-memory assumptions live in the call's own runtimes);
 * the binding cycle (PreBind, Bind) is not run. Thread-safe: each call works on its own copy and
 * runtimes; the cache dump takes the cache's lock.
 */
public final class Simulation {
  private final SchedulerConfiguration config;
  private final Registry registry;
  private final ListerProvider listers;
  private final FeatureGates featureGates;
  private final SchedulerCache cache;
  private final SimulationRegistry live;

  /**
   * A simulation with no live daemon behind it: the registry's factories as they are.
   *
   * @param config the scheduler's configuration (used when a request brings none)
   * @param registry the plugin registry
   * @param listers the informer listers plugins read (read-only)
   * @param featureGates the scheduler's gates
   * @param cache the scheduler's cache, copied per call
   */
  public Simulation(SchedulerConfiguration config, Registry registry, ListerProvider listers,
      FeatureGates featureGates, SchedulerCache cache) {
    this(config, registry, listers, featureGates, cache, SimulationRegistry.NONE);
  }

  /**
   * As {@link #Simulation(SchedulerConfiguration, Registry, ListerProvider, FeatureGates,
   * SchedulerCache)}, the gang and quota plugins reading the live state {@code live} finds.
   */
  public Simulation(SchedulerConfiguration config, Registry registry, ListerProvider listers,
      FeatureGates featureGates, SchedulerCache cache, SimulationRegistry live) {
    this.config = Objects.requireNonNull(config, "config");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.listers = new ReadOnlyListers(Objects.requireNonNull(listers, "listers"));
    this.featureGates = Objects.requireNonNull(featureGates, "featureGates");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.live = Objects.requireNonNull(live, "live");
  }

  public Registry registry() {
    return registry;
  }

  /**
   * One simulated pod's result.
   *
   * @param pod the pod as simulated ({@code namespace/name})
   * @param attempt what the scheduler would do, in the explain model (outcome SCHEDULED means
   *     "would be bound to selectedNode")
   */
  public record Result(String pod, Attempt attempt) {
  }

  /**
   * A call's results, and what the caller should know of how they were reached.
   *
   * @param results one per pod, in order
   * @param notes the plugins simulated without the live state they need (see
   *     {@link SimulationRegistry}), one sentence each; empty when none
   */
  public record Report(List<Result> results, List<String> notes) {
    public Report {
      results = List.copyOf(results);
      notes = List.copyOf(notes);
    }
  }

  /** {@link #simulate}'s results alone. */
  public List<Result> run(List<Pod> pods, SchedulerConfiguration configuration) {
    return simulate(pods, configuration).results();
  }

  /**
   * Simulates {@code pods} in order against {@code configuration} (the scheduler's own when
   * null). Throws {@link IllegalArgumentException} naming the pod and field for a pod no profile
   * schedules.
   */
  public Report simulate(List<Pod> pods, SchedulerConfiguration configuration) {
    SchedulerConfiguration cfg = configuration == null ? config : configuration;
    CacheDump dump = cache.dump();
    List<Node> nodes = new ArrayList<>();
    List<Pod> placed = new ArrayList<>();
    for (NodeInfo info : dump.nodes().values()) {
      info.node().ifPresent(nodes::add);
      for (PodInfo p : info.pods()) {
        placed.add(p.pod());
      }
    }
    nodes.sort((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName()));
    Snapshot[] current = {Snapshot.of(placed, nodes)};
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "simulate-timers");
      t.setDaemon(true);
      return t;
    });
    DefaultParallelizer parallelizer = new DefaultParallelizer(cfg.parallelism());
    List<String> notes = new ArrayList<>();
    try {
      Registry plugins = live.forCall(registry, timers, notes);
      Map<String, Framework> profiles = new LinkedHashMap<>();
      for (ProfileConfig profile : cfg.profiles()) {
        profiles.put(profile.schedulerName(), FrameworkRuntime.builder(plugins, profile)
            .podApi(DRY_RUN).featureGates(featureGates).listers(listers)
            .parallelizer(parallelizer).snapshot(() -> current[0]).timers(timers).build());
      }
      SchedulingAlgorithm algorithm = new SchedulingAlgorithm(
          cfg.percentageOfNodesToScore().orElse(0), new SplittableRandom(0));
      List<Result> out = new ArrayList<>();
      for (int i = 0; i < pods.size(); i++) {
        Pod pod = defaulted(pods.get(i), i);
        String schedulerName = pod.getSpec().getSchedulerName();
        Framework fw = profiles.get(schedulerName);
        if (fw == null) {
          throw new IllegalArgumentException("pods[" + i + "] " + key(pod)
              + ": spec.schedulerName: Unsupported value: \"" + schedulerName
              + "\": no profile has this schedulerName (profiles: " + profiles.keySet() + ")");
        }
        Attempt a = simulateOne(fw, algorithm, pod, current[0]);
        out.add(new Result(key(pod), a));
        if ((a.outcome() == Attempt.Outcome.SCHEDULED
            || a.outcome() == Attempt.Outcome.WAITING_ON_PERMIT) && a.selectedNode().isPresent()) {
          placed.add(new PodBuilder(pod).editSpec().withNodeName(a.selectedNode().get()).endSpec()
              .build());
          current[0] = Snapshot.of(placed, nodes);
        }
      }
      return new Report(out, notes);
    } finally {
      timers.shutdownNow();
      parallelizer.close();
    }
  }

  private static Attempt simulateOne(Framework fw, SchedulingAlgorithm algorithm, Pod pod,
      Snapshot snapshot) {
    CycleState state = new CycleState();
    PluginResults.install(state);
    Status status;
    String message;
    String host = null;
    NominatingInfo nominating = null;
    List<NodeInfo> nodes = List.of();
    try {
      ScheduleResult r = algorithm.schedulePod(fw, state, pod, snapshot);
      host = r.suggestedHost();
      Pod assumed = AssumedPod.on(pod, host);
      status = fw.runReservePluginsReserve(state, assumed, host);
      if (status.isSuccess()) {
        status = fw.runPermitPlugins(state, assumed, host);
      }
      if (!status.isSuccess() && !status.isWait()) {
        fw.runReservePluginsUnreserve(state, assumed, host);
      }
      message = status.isSuccess() ? "" : status.isWait() ? "waiting in Permit" : status.message();
    } catch (FitError e) {
      if (fw.hasPostFilterPlugins()) {
        PostFilterResult post = fw.runPostFilterPlugins(state, pod,
            e.diagnosis().nodeToStatus());
        e.diagnosis().setPostFilterMsg(post.status().message());
        nominating = post.nominatingInfo();
      }
      status = Status.unschedulable(e.getMessage());
      message = e.getMessage();
      nodes = List.copyOf(snapshot.list());
    } catch (SchedulingAlgorithm.NoNodesAvailableException e) {
      status = Status.unresolvable(e.getMessage());
      message = e.getMessage();
    } catch (StatusException e) {
      status = e.status();
      message = e.status().message();
    }
    return AttemptRecorder.toAttempt(fw, state, pod, 1, status, message,
        status.isSuccess() || status.isWait() ? host : null, nominating, nodes, Instant.now());
  }

  /**
   * What preemption's victims and nominations go through while simulating: nothing is written,
   * every pod counts as patched or deleted.
   */
  private static final PodApi DRY_RUN = new PodApi() {
    @Override
    public boolean patchStatus(Pod pod, io.berth.framework.PodStatusPatch patch) {
      return true;
    }

    @Override
    public boolean delete(Pod pod) {
      return true;
    }
  };

  /** Fills what a pod sent for simulation may leave out: namespace, uid, schedulerName. */
  static Pod defaulted(Pod pod, int index) {
    if (pod.getMetadata() == null || pod.getMetadata().getName() == null
        || pod.getMetadata().getName().isEmpty()) {
      throw new IllegalArgumentException("pods[" + index + "]: metadata.name: Required value");
    }
    if (pod.getSpec() == null) {
      throw new IllegalArgumentException("pods[" + index + "] " + pod.getMetadata().getName()
          + ": spec: Required value");
    }
    PodBuilder b = new PodBuilder(pod);
    if (pod.getMetadata().getNamespace() == null || pod.getMetadata().getNamespace().isEmpty()) {
      b.editMetadata().withNamespace("default").endMetadata();
    }
    if (pod.getMetadata().getUid() == null) {
      b.editMetadata().withUid("simulated-" + index).endMetadata();
    }
    if (pod.getSpec().getSchedulerName() == null || pod.getSpec().getSchedulerName().isEmpty()) {
      b.editSpec().withSchedulerName("default-scheduler").endSpec();
    }
    if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
      throw new IllegalArgumentException("pods[" + index + "] " + pod.getMetadata().getName()
          + ": spec.nodeName: Invalid value: \"" + pod.getSpec().getNodeName()
          + "\": the pod is already bound");
    }
    return b.build();
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
