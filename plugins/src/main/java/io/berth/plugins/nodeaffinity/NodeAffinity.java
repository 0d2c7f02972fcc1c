package io.berth.plugins.nodeaffinity;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.NodeSelectorMatcher;
import io.berth.framework.Plugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.RequiredNodeAffinity;
import io.berth.framework.ScorePlugin;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.plugins.helper.NormalizeScore;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Node affinity, as kube-scheduler's {@code NodeAffinity}. Filter keeps the nodes that match the
 * pod's {@code spec.nodeSelector} and required node affinity terms (UnschedulableAndUnresolvable
 * "node(s) didn't match Pod's node affinity/selector") and the profile's enforced
 * {@code addedAffinity} ("node(s) didn't match scheduler-enforced node affinity"). PreFilter
 * narrows the cycle to the named nodes when every required term pins {@code metadata.name} with
 * In. Score sums the weights of the preferred terms (the pod's and the enforced ones) a node
 * matches; NormalizeScore scales them to [0, 100]. A pod whose terms cannot be parsed is rejected
 * with a status naming the field. Immutable after construction; Filter and Score are thread-safe.
 */
public final class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin,
    ScorePlugin, ScorePlugin.ScoreExtensions, EnqueueExtensions, SignPlugin {
  public static final String NAME = "NodeAffinity";
  /** Upstream's {@code ErrReasonPod}. */
  public static final String ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
  /** Upstream's {@code errReasonEnforced}: the node fails the profile's addedAffinity. */
  public static final String ERR_REASON_ENFORCED =
      "node(s) didn't match scheduler-enforced node affinity";
  /** Upstream's {@code errReasonConflict}: the terms' metadata.name pins have no node in common. */
  public static final String ERR_REASON_CONFLICT = "pod affinity terms conflict";

  static final String REQUIRED_FIELD =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  static final String PREFERRED_FIELD =
      "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
  private static final String PRE_FILTER_STATE_KEY = "PreFilter" + NAME;
  private static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;

  private final NodeSelectorMatcher addedNodeSelector; // null: nothing enforced
  private final PreferredTerms addedPreferred; // null: nothing enforced

  /** The pod's compiled hard constraints. Immutable. */
  private record PreFilterState(RequiredNodeAffinity required) implements StateData {
    @Override
    public StateData copy() {
      return this;
    }
  }

  /** The pod's compiled preferred terms (empty when it has none). Immutable. */
  private record PreScoreState(Optional<PreferredTerms> preferred) implements StateData {
    @Override
    public StateData copy() {
      return this;
    }
  }

  private NodeAffinity(NodeAffinityArgs args) {
    this.addedNodeSelector = args.addedNodeSelector().orElse(null);
    this.addedPreferred = args.addedPreferred().orElse(null);
  }

  /**
   * The factory registered for {@link #NAME}. Throws {@link IllegalArgumentException} naming the
   * field when {@code addedAffinity} is invalid.
   */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return new NodeAffinity(NodeAffinityArgs.parse(args));
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility and scores depend on the node affinity and the node selector of the pod. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.NODE_AFFINITY, PodSigners.nodeAffinity(pod)),
        new SignFragment(PodSigners.NODE_SELECTOR, PodSigners.nodeSelector(pod)));
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // With queueing hints no preCheck runs, so only label changes (and new nodes) can matter.
    return List.of(new ClusterEventWithHint(
        new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        this::isSchedulableAfterNodeChange));
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    NodeSelector required = requiredSelector(pod);
    if (required == null && addedNodeSelector == null && nodeSelector(pod).isEmpty()) {
      return PreFilterResult.of(Status.skip());
    }
    RequiredNodeAffinity compiled;
    try {
      compiled = compileRequired(pod);
    } catch (IllegalArgumentException e) {
      return PreFilterResult.of(Status.unresolvable(e.getMessage()));
    }
    state.write(PRE_FILTER_STATE_KEY, new PreFilterState(compiled));
    if (required == null || required.getNodeSelectorTerms() == null
        || required.getNodeSelectorTerms().isEmpty()) {
      return PreFilterResult.SUCCESS;
    }
    Optional<Set<String>> names = preFilterNodeNames(required.getNodeSelectorTerms());
    if (names.isEmpty()) {
      return PreFilterResult.SUCCESS;
    }
    if (names.get().isEmpty()) {
      return PreFilterResult.of(Status.unresolvable(ERR_REASON_CONFLICT));
    }
    return PreFilterResult.nodes(names.get());
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Node node = nodeInfo.getNode();
    if (addedNodeSelector != null && !addedNodeSelector.matches(node)) {
      return Status.unresolvable(ERR_REASON_ENFORCED);
    }
    RequiredNodeAffinity required;
    Optional<PreFilterState> s = state.read(PRE_FILTER_STATE_KEY, PreFilterState.class);
    if (s.isPresent()) {
      required = s.get().required();
    } else {
      // PreFilter did not run (disabled, or a caller evaluating one node): compile here
      try {
        required = compileRequired(pod);
      } catch (IllegalArgumentException e) {
        return Status.unresolvable(e.getMessage());
      }
    }
    return required.matches(node) ? Status.SUCCESS : Status.unresolvable(ERR_REASON_POD);
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
    Optional<PreferredTerms> preferred;
    try {
      preferred = compilePreferred(pod);
    } catch (IllegalArgumentException e) {
      return Status.error(e.getMessage());
    }
    if (preferred.isEmpty() && addedPreferred == null) {
      return Status.skip();
    }
    state.write(PRE_SCORE_STATE_KEY, new PreScoreState(preferred));
    return Status.SUCCESS;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Node node = nodeInfo.getNode();
    long count = addedPreferred == null ? 0 : addedPreferred.score(node);
    Optional<PreferredTerms> preferred = state.read(PRE_SCORE_STATE_KEY, PreScoreState.class)
        .map(PreScoreState::preferred)
        .orElseGet(() -> {
          try {
            return compilePreferred(pod);
          } catch (IllegalArgumentException e) {
            throw new StatusException(Status.error(e.getMessage()));
          }
        });
    if (preferred.isPresent()) {
      count += preferred.get().score(node);
    }
    return count;
  }

  @Override
  public Optional<ScoreExtensions> scoreExtensions() {
    return Optional.of(this);
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, List<NodeScore> scores) {
    return NormalizeScore.defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
  }

  /**
   * Queue when a node is added matching the pod (and the enforced affinity), or an update makes a
   * node that did not match the pod match it.
   */
  QueueingHint isSchedulableAfterNodeChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Node modified) || (oldObj != null && !(oldObj instanceof Node))) {
      return QueueingHint.QUEUE;
    }
    if (addedNodeSelector != null && !addedNodeSelector.matches(modified)) {
      return QueueingHint.QUEUE_SKIP;
    }
    RequiredNodeAffinity required;
    try {
      required = compileRequired(pod);
    } catch (IllegalArgumentException e) {
      return QueueingHint.QUEUE;
    }
    if (!required.matches(modified)) {
      return QueueingHint.QUEUE_SKIP;
    }
    if (oldObj == null) {
      return QueueingHint.QUEUE;
    }
    return required.matches((Node) oldObj) ? QueueingHint.QUEUE_SKIP : QueueingHint.QUEUE;
  }

  /**
   * The node names the required terms confine the pod to, as upstream's PreFilter computes them:
   * within a term, metadata.name In requirements intersect; across terms (ORed) they unite; a term
   * without such a requirement allows every node (empty result). A present empty set means the
   * terms cannot all be satisfied by any node.
   */
  static Optional<Set<String>> preFilterNodeNames(List<NodeSelectorTerm> terms) {
    Set<String> union = new HashSet<>();
    for (NodeSelectorTerm term : terms) {
      Set<String> termNames = null;
      List<NodeSelectorRequirement> fields = term.getMatchFields() == null ? List.of()
          : term.getMatchFields();
      for (NodeSelectorRequirement r : fields) {
        if (NodeSelectorMatcher.NODE_NAME_FIELD.equals(r.getKey())
            && "In".equals(r.getOperator())) {
          Set<String> values = r.getValues() == null ? new HashSet<>()
              : new HashSet<>(r.getValues());
          if (termNames == null) {
            termNames = values;
          } else {
            termNames.retainAll(values);
          }
        }
      }
      if (termNames == null) {
        return Optional.empty();
      }
      union.addAll(termNames);
    }
    return Optional.of(union);
  }

  private static RequiredNodeAffinity compileRequired(Pod pod) {
    NodeSelector required = requiredSelector(pod);
    if (required != null) {
      LabelSyntax.validateSelector(required, REQUIRED_FIELD);
    }
    return RequiredNodeAffinity.of(pod);
  }

  private static Optional<PreferredTerms> compilePreferred(Pod pod) {
    io.fabric8.kubernetes.api.model.NodeAffinity affinity = podNodeAffinity(pod);
    List<PreferredSchedulingTerm> terms = affinity == null ? null
        : affinity.getPreferredDuringSchedulingIgnoredDuringExecution();
    return PreferredTerms.compile(terms, PREFERRED_FIELD);
  }

  private static NodeSelector requiredSelector(Pod pod) {
    io.fabric8.kubernetes.api.model.NodeAffinity affinity = podNodeAffinity(pod);
    return affinity == null ? null : affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
  }

  private static io.fabric8.kubernetes.api.model.NodeAffinity podNodeAffinity(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getAffinity() == null) {
      return null;
    }
    return pod.getSpec().getAffinity().getNodeAffinity();
  }

  private static Map<String, String> nodeSelector(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getNodeSelector() == null ? Map.of()
        : pod.getSpec().getNodeSelector();
  }
}
