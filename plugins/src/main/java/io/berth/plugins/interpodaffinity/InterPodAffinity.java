package io.berth.plugins.interpodaffinity;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.ActionType;
import io.berth.framework.AffinityTerm;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.NodeScore;
import io.berth.framework.ObjectLister;
import io.berth.framework.Parallelizer;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.framework.WeightedAffinityTerm;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * InterPodAffinity, as kube-scheduler v1.32's plugin: Filter enforces the incoming pod's required
 * pod affinity and anti-affinity and the existing pods' required anti-affinity; Score prefers
 * nodes by the preferred terms of both sides and by existing pods' required affinity terms
 * (weighted by {@code hardPodAffinityWeight}).
 *
 * <p>PreFilter and PreScore run on the scheduling thread and precompute per-topology counts into
 * {@link CycleState} (PreFilter spreads the work over the handle's parallelizer); Filter and Score
 * only read that state and are safe to call from many threads. The plugin's only mutable state
 * is two thread-safe {@link NodeContributions} through which PreFilter reuses the counts of nodes
 * unchanged since an earlier cycle. Namespace selectors are resolved through the handle's
 * Namespace lister, requested in {@link #create}.
 */
public final class InterPodAffinity implements PreFilterPlugin, PreFilterExtensions,
    FilterPlugin, PreScorePlugin, ScorePlugin, ScorePlugin.ScoreExtensions, EnqueueExtensions,
    SignPlugin {
  public static final String NAME = "InterPodAffinity";

  /** Filter reason: the node's domains hold no pod satisfying the pod's affinity. */
  public static final String ERR_REASON_AFFINITY_RULES_NOT_MATCH =
      "node(s) didn't match pod affinity rules";
  /** Filter reason: the node's domains hold a pod the pod's anti-affinity rejects. */
  public static final String ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH =
      "node(s) didn't match pod anti-affinity rules";
  /** Filter reason: an existing pod's anti-affinity rejects the pod in the node's domains. */
  public static final String ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH =
      "node(s) didn't satisfy existing pods anti-affinity rules";

  private final InterPodAffinityArgs args;
  private final Handle handle;
  private final ObjectLister<Namespace> namespaceLister;
  private final Parallelizer parallelizer;
  private final QueueingHints hints;
  // thread-safe (see NodeContributions): PreFilter's per-node counts carried across cycles
  private final NodeContributions existingAntiMemo = new NodeContributions(1);
  private final NodeContributions incomingMemo = new NodeContributions(2);

  InterPodAffinity(InterPodAffinityArgs args, Handle handle,
      ObjectLister<Namespace> namespaceLister, Parallelizer parallelizer) {
    this.args = Objects.requireNonNull(args, "args");
    this.handle = Objects.requireNonNull(handle, "handle");
    this.namespaceLister = Objects.requireNonNull(namespaceLister, "namespaceLister");
    this.parallelizer = Objects.requireNonNull(parallelizer, "parallelizer");
    this.hints = new QueueingHints(namespaceLister);
  }

  /** The factory ({@link io.berth.framework.PluginFactory}); validates the args. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    InterPodAffinityArgs parsed = InterPodAffinityArgs.parse(args);
    return new InterPodAffinity(parsed, handle, handle.lister(Namespace.class),
        handle.parallelizer());
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Pods with pod affinity or anti-affinity depend on where other pods are: unsignable. Otherwise
   * existing pods' terms match the pod's labels, which are signed, unless the profile ignores the
   * preferred terms of existing pods (upstream signs nothing then).
   */
  @Override
  public SignResult signPod(Pod pod) {
    io.fabric8.kubernetes.api.model.Affinity a = pod.getSpec() == null ? null
        : pod.getSpec().getAffinity();
    if (a != null && (a.getPodAffinity() != null || a.getPodAntiAffinity() != null)) {
      return SignResult.unsignable("pods with pod affinity or anti-affinity are not signable");
    }
    if (args.ignorePreferredTermsOfExistingPods()) {
      return SignResult.none();
    }
    return SignResult.of(new SignFragment(PodSigners.LABELS, PodSigners.labels(pod)));
  }

  /** The validated arguments in use. */
  public InterPodAffinityArgs args() {
    return args;
  }

  // ---- Filtering ----

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    PodInfo podInfo = PodInfo.of(pod);
    Optional<String> parseError = podInfo.parseError();
    if (parseError.isPresent()) {
      return PreFilterResult.of(Status.unresolvable(parseError.get()));
    }
    NodeInfoLister snapshot = handle.snapshotLister();
    List<AffinityTerm> affinityTerms =
        AffinityTerms.mergeNamespaces(podInfo.requiredAffinityTerms(), namespaceLister);
    List<AffinityTerm> antiAffinityTerms =
        AffinityTerms.mergeNamespaces(podInfo.requiredAntiAffinityTerms(), namespaceLister);
    Map<String, String> namespaceLabels =
        AffinityTerms.namespaceLabels(podInfo.namespace(), namespaceLister);

    TopologyCounts existingAnti = PreFilterState.existingAntiAffinityCounts(pod, namespaceLabels,
        snapshot.havePodsWithRequiredAntiAffinityList(), parallelizer, existingAntiMemo);
    PreFilterState.IncomingCounts incoming = PreFilterState.incomingCounts(affinityTerms,
        antiAffinityTerms, snapshot.list(), parallelizer,
        incomingKey(pod, affinityTerms, antiAffinityTerms), incomingMemo);

    if (existingAnti.isEmpty() && affinityTerms.isEmpty() && antiAffinityTerms.isEmpty()) {
      return PreFilterResult.of(Status.skip());
    }
    state.write(PreFilterState.KEY, new PreFilterState(podInfo, affinityTerms, antiAffinityTerms,
        namespaceLabels, existingAnti, incoming.affinity(), incoming.antiAffinity()));
    return PreFilterResult.SUCCESS;
  }

  /**
   * What determines the incoming pod's merged required terms: its namespace, the terms as written
   * and the namespace sets their selectors were merged into.
   */
  private static Optional<Object> incomingKey(Pod pod, List<AffinityTerm> affinityTerms,
      List<AffinityTerm> antiAffinityTerms) {
    Affinity affinity = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
    Object affinitySpec = affinity == null || affinity.getPodAffinity() == null ? null
        : affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    Object antiSpec = affinity == null || affinity.getPodAntiAffinity() == null ? null
        : affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    List<Object> key = new ArrayList<>();
    key.add(AffinityTerms.namespace(pod));
    key.add(affinitySpec == null ? List.of() : affinitySpec);
    key.add(antiSpec == null ? List.of() : antiSpec);
    for (AffinityTerm t : affinityTerms) {
      key.add(t.namespaces());
    }
    key.add("|");
    for (AffinityTerm t : antiAffinityTerms) {
      key.add(t.namespaces());
    }
    return Optional.of(key);
  }

  @Override
  public Optional<PreFilterExtensions> preFilterExtensions() {
    return Optional.of(this);
  }

  @Override
  public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo) {
    return updateWithPod(state, podToAdd, nodeInfo, 1);
  }

  @Override
  public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove,
      NodeInfo nodeInfo) {
    return updateWithPod(state, podToRemove, nodeInfo, -1);
  }

  private Status updateWithPod(CycleState state, PodInfo pod, NodeInfo nodeInfo, long multiplier) {
    Optional<PreFilterState> s = state.read(PreFilterState.KEY, PreFilterState.class);
    if (s.isEmpty()) {
      return notFound(PreFilterState.KEY);
    }
    if (nodeInfo.node().isEmpty()) {
      return Status.error("node not found");
    }
    s.get().updateWithPod(pod, nodeInfo.getNode(), multiplier);
    return Status.SUCCESS;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Optional<PreFilterState> read = state.read(PreFilterState.KEY, PreFilterState.class);
    if (read.isEmpty()) {
      return notFound(PreFilterState.KEY);
    }
    if (nodeInfo.node().isEmpty()) {
      return Status.error("node not found");
    }
    PreFilterState s = read.get();
    Map<String, String> nodeLabels = AffinityTerms.labels(nodeInfo.getNode());
    if (!s.satisfiesPodAffinity(nodeLabels)) {
      // removing pods cannot make affinity hold, so preemption would not help
      return Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH);
    }
    if (!s.satisfiesPodAntiAffinity(nodeLabels)) {
      return Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
    }
    if (!s.satisfiesExistingPodsAntiAffinity(nodeLabels)) {
      return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
    }
    return Status.SUCCESS;
  }

  // ---- Scoring ----

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
    PodInfo podInfo = PodInfo.of(pod);
    boolean hasConstraints = !podInfo.preferredAffinityTerms().isEmpty()
        || !podInfo.preferredAntiAffinityTerms().isEmpty();
    if (podInfo.parseError().isPresent()) {
      // normally unreachable: PreFilter rejects such a pod first
      return Status.error(podInfo.parseError().get());
    }
    if (args.ignorePreferredTermsOfExistingPods() && !hasConstraints) {
      return Status.skip();
    }
    NodeInfoLister snapshot = handle.snapshotLister();
    // unless the incoming pod has preferred terms, only pods with affinity can contribute
    List<NodeInfo> allNodes =
        hasConstraints ? snapshot.list() : snapshot.havePodsWithAffinityList();
    IncomingPod incoming = new IncomingPod(pod,
        AffinityTerms.mergeWeightedNamespaces(podInfo.preferredAffinityTerms(), namespaceLister),
        AffinityTerms.mergeWeightedNamespaces(podInfo.preferredAntiAffinityTerms(),
            namespaceLister),
        AffinityTerms.namespaceLabels(podInfo.namespace(), namespaceLister));

    TopologyScores scores = new TopologyScores();
    parallelizer.until(allNodes.size(), i -> {
      NodeInfo nodeInfo = allNodes.get(i);
      if (nodeInfo.node().isEmpty()) {
        return;
      }
      List<PodInfo> podsToProcess =
          hasConstraints ? nodeInfo.pods() : nodeInfo.podsWithAffinity();
      TopologyScores local = new TopologyScores();
      Map<String, String> nodeLabels = AffinityTerms.labels(nodeInfo.getNode());
      for (PodInfo existing : podsToProcess) {
        processExistingPod(incoming, existing, nodeLabels, local);
      }
      scores.addAll(local);
    });
    if (scores.isEmpty()) {
      return Status.skip();
    }
    state.write(PreScoreState.KEY, new PreScoreState(scores.freeze()));
    return Status.SUCCESS;
  }

  /** The incoming pod, its preferred terms (namespace selectors merged), its namespace labels. */
  private record IncomingPod(Pod pod, List<WeightedAffinityTerm> affinityTerms,
      List<WeightedAffinityTerm> antiAffinityTerms, Map<String, String> namespaceLabels) {}

  /**
   * Adds what one existing pod contributes to its node's domains: the incoming pod's preferred
   * (anti-)affinity terms it matches, and its own required affinity (hardPodAffinityWeight) and
   * preferred (anti-)affinity terms the incoming pod matches.
   */
  private void processExistingPod(IncomingPod incoming, PodInfo existing,
      Map<String, String> nodeLabels, TopologyScores scores) {
    if (nodeLabels.isEmpty()) {
      return;
    }
    Pod existingPod = existing.pod();
    // merged incoming terms: the existing pod's namespace labels are not needed
    scores.processTerms(incoming.affinityTerms(), existingPod, Map.of(), nodeLabels, 1);
    scores.processTerms(incoming.antiAffinityTerms(), existingPod, Map.of(), nodeLabels, -1);
    if (args.hardPodAffinityWeight() > 0) {
      for (AffinityTerm term : existing.requiredAffinityTerms()) {
        scores.processTerm(term, args.hardPodAffinityWeight(), incoming.pod(),
            incoming.namespaceLabels(), nodeLabels, 1);
      }
    }
    scores.processTerms(existing.preferredAffinityTerms(), incoming.pod(),
        incoming.namespaceLabels(), nodeLabels, 1);
    scores.processTerms(existing.preferredAntiAffinityTerms(), incoming.pod(),
        incoming.namespaceLabels(), nodeLabels, -1);
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Optional<PreScoreState> s = state.read(PreScoreState.KEY, PreScoreState.class);
    if (s.isEmpty()) {
      throw new StatusException(notFound(PreScoreState.KEY));
    }
    if (nodeInfo.node().isEmpty()) {
      throw new StatusException(Status.error("node not found"));
    }
    return s.get().score(AffinityTerms.labels(nodeInfo.getNode()));
  }

  @Override
  public Optional<ScoreExtensions> scoreExtensions() {
    return Optional.of(this);
  }

  /** Scales the scores to [0, 100]: MaxNodeScore * (score - min) / (max - min), 0 if max == min. */
  @Override
  public Status normalizeScore(CycleState state, Pod pod, List<NodeScore> scores) {
    Optional<PreScoreState> s = state.read(PreScoreState.KEY, PreScoreState.class);
    if (s.isEmpty()) {
      return notFound(PreScoreState.KEY);
    }
    if (s.get().isEmpty() || scores.isEmpty()) {
      return Status.SUCCESS;
    }
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (NodeScore score : scores) {
      min = Math.min(min, score.score());
      max = Math.max(max, score.score());
    }
    long diff = max - min;
    for (NodeScore score : scores) {
      double scaled = 0;
      if (diff > 0) {
        scaled = MAX_NODE_SCORE * ((double) (score.score() - min) / (double) diff);
      }
      score.setScore((long) scaled);
    }
    return Status.SUCCESS;
  }

  // ---- Queueing ----

  /**
   * Assigned pods added, relabelled or deleted, and nodes added or relabelled, each with its hint
   * (v1.32 with queueing hints enabled, so no UpdateNodeTaint registration).
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD,
            ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
            hints::afterPodChange),
        new ClusterEventWithHint(new ClusterEvent(EventResource.NODE,
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
            hints::afterNodeChange));
  }

  private static Status notFound(String key) {
    return Status.error("error reading \"" + key + "\" from cycleState: not found");
  }
}
