package io.berth.plugins.tainttoleration;

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
import io.berth.framework.Plugin;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.ScorePlugin;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.framework.Taints;
import io.berth.plugins.helper.NormalizeScore;
import io.berth.plugins.helper.TaintFilters;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Taints and tolerations, as kube-scheduler's {@code TaintToleration}. Filter rejects a node with
 * a NoSchedule or NoExecute taint the pod does not tolerate (UnschedulableAndUnresolvable
 * "node(s) had untolerated taint {key: value}", naming the first such taint), and a node whose
 * taints the API server would have refused (no key, an unknown effect: "node(s) had malformed
 * taints: spec.taints[0].effect: ..."). Score counts the
 * node's PreferNoSchedule taints the pod does not tolerate, and NormalizeScore reverses the counts
 * so the node with the fewest scores 100. Stateless apart from the immutable cycle state PreScore
 * writes; Filter and Score are thread-safe.
 */
public final class TaintToleration
    implements FilterPlugin, PreScorePlugin, ScorePlugin, ScorePlugin.ScoreExtensions, SignPlugin,
    EnqueueExtensions {
  public static final String NAME = "TaintToleration";

  private static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;
  private static final TaintToleration INSTANCE = new TaintToleration();

  /** The tolerations that can tolerate a PreferNoSchedule taint. Immutable after construction. */
  private record PreferNoScheduleTolerations(List<Toleration> tolerations) implements StateData {
    @Override
    public StateData copy() {
      return this;
    }
  }

  private TaintToleration() {}

  /** The factory registered for {@link #NAME}; TaintToleration takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return INSTANCE;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility and scores depend on the pod's tolerations only. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.TOLERATIONS, PodSigners.tolerations(pod)));
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
            TaintToleration::isSchedulableAfterNodeChange),
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
            TaintToleration::isSchedulableAfterPodTolerationChange));
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    // NodeInfo keeps spec.taints: reading them through the Node was a cache miss per node
    List<Taint> taints = nodeInfo.taints();
    if (!taints.isEmpty()) {
      Optional<String> malformed = Taints.validateTaints(taints);
      if (malformed.isPresent()) {
        return Status.unresolvable(malformedReason(malformed.get()));
      }
    }
    Optional<Taint> untolerated = Taints.findUntolerated(taints,
        tolerations(pod), TaintFilters.DO_NOT_SCHEDULE);
    if (untolerated.isEmpty()) {
      return Status.SUCCESS;
    }
    return Status.unresolvable(untoleratedReason(untolerated.get()));
  }

  /**
   * Berth's Filter reason for a node the API server would have refused: the node is left out
   * (naming the field) rather than guessing what its taint means.
   */
  static String malformedReason(String error) {
    return "node(s) had malformed taints: " + error;
  }

  /** Upstream's Filter reason: {@code node(s) had untolerated taint {key: value}}. */
  public static String untoleratedReason(Taint taint) {
    String value = taint.getValue() == null ? "" : taint.getValue();
    return "node(s) had untolerated taint {" + taint.getKey() + ": " + value + "}";
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
    List<Toleration> preferNoSchedule = new ArrayList<>();
    for (Toleration t : tolerations(pod)) {
      // an empty effect tolerates every effect, PreferNoSchedule included
      String effect = t.getEffect();
      if (effect == null || effect.isEmpty() || Taints.PREFER_NO_SCHEDULE.equals(effect)) {
        preferNoSchedule.add(t);
      }
    }
    state.write(PRE_SCORE_STATE_KEY,
        new PreferNoScheduleTolerations(List.copyOf(preferNoSchedule)));
    return Status.SUCCESS;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    PreferNoScheduleTolerations s = state.readOrElse(PRE_SCORE_STATE_KEY,
        PreferNoScheduleTolerations.class, null);
    if (s == null) {
      throw new StatusException(Status.error(
          "failed to read \"" + PRE_SCORE_STATE_KEY + "\" from cycleState: not found"));
    }
    long intolerable = 0;
    for (Taint taint : nodeInfo.taints()) {
      if (Taints.PREFER_NO_SCHEDULE.equals(taint.getEffect())
          && !Taints.toleratedBy(taint, s.tolerations())) {
        intolerable++;
      }
    }
    return intolerable;
  }

  @Override
  public Optional<ScoreExtensions> scoreExtensions() {
    return Optional.of(this);
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, List<NodeScore> scores) {
    return NormalizeScore.defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
  }

  /** Queue when a node is added or updated so that all its do-not-schedule taints are tolerated. */
  static QueueingHint isSchedulableAfterNodeChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Node modified) || (oldObj != null && !(oldObj instanceof Node))) {
      return QueueingHint.QUEUE;
    }
    boolean wasUntolerated = oldObj == null || Taints.findUntolerated(taints((Node) oldObj),
        tolerations(pod), TaintFilters.DO_NOT_SCHEDULE).isPresent();
    boolean isUntolerated = Taints.findUntolerated(taints(modified), tolerations(pod),
        TaintFilters.DO_NOT_SCHEDULE).isPresent();
    return wasUntolerated && !isUntolerated ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /** Queue when the rejected pod itself gained a toleration; other pods' tolerations are moot. */
  static QueueingHint isSchedulableAfterPodTolerationChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Pod modified)) {
      return QueueingHint.QUEUE;
    }
    return Objects.equals(pod.getMetadata().getUid(), modified.getMetadata().getUid())
        ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  private static List<Taint> taints(Node node) {
    return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of()
        : node.getSpec().getTaints();
  }

  private static List<Toleration> tolerations(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getTolerations() == null ? List.of()
        : pod.getSpec().getTolerations();
  }
}
