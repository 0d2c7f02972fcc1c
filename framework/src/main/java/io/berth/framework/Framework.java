package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One scheduling profile's plugins, run in upstream order for each extension point. The scheduler
 * calls the {@code run*} methods from its scheduling thread (Filter and Score fan out to the
 * parallelizer) and from binding threads. Thread-safe: its plugin lists are immutable after
 * construction; per-pod state lives in {@link CycleState}.
 */
public interface Framework extends Handle {
  String profileName();

  /** The profile's QueueSort plugin (exactly one per profile). */
  QueueSortPlugin queueSortPlugin();

  /** Whether any PreEnqueue plugin is enabled. */
  boolean hasPreEnqueuePlugins();

  /** Runs PreEnqueue plugins; the first non-success (with its plugin) gates the pod. */
  Status runPreEnqueuePlugins(Pod pod);

  /**
   * The events each enabled plugin that can reject pods registered, by plugin name. A plugin
   * without {@link EnqueueExtensions} is registered for every event with an always-queue hint.
   */
  Map<String, List<ClusterEventWithHint>> enqueueExtensions();

  /** Runs PreFilter plugins; the status names the rejecting plugin, the node set is intersected. */
  PreFilterResult runPreFilterPlugins(CycleState state, Pod pod, List<NodeInfo> nodes);

  /** Runs Filter plugins on one node until the first non-success (named by its plugin). */
  Status runFilterPlugins(CycleState state, Pod pod, NodeInfo nodeInfo);

  boolean hasFilterPlugins();

  boolean hasPostFilterPlugins();

  boolean hasScorePlugins();

  PostFilterResult runPostFilterPlugins(CycleState state, Pod pod, NodeToStatus filteredNodeStatus);

  Status runPreScorePlugins(CycleState state, Pod pod, List<NodeInfo> nodes);

  /**
   * Runs Score, NormalizeScore and the weighted sum; returns the total score of each node in the
   * order of {@code nodes}. Throws {@link StatusException} if a plugin fails.
   */
  long[] runScorePlugins(CycleState state, Pod pod, List<NodeInfo> nodes);

  /**
   * As {@link #runScorePlugins}, keeping each plugin's scores so that one node can be re-scored
   * later against this pass's normalization ({@link NodeScores#rescore}): for the batch of a group
   * scheduling cycle, which refreshes the node each member was placed on.
   */
  NodeScores runScorePluginsKeeping(CycleState state, Pod pod, List<NodeInfo> nodes);

  Status runReservePluginsReserve(CycleState state, Pod pod, String nodeName);

  /** Runs Unreserve of every Reserve plugin in reverse order. */
  void runReservePluginsUnreserve(CycleState state, Pod pod, String nodeName);

  /** Runs Permit; Wait parks the pod as a waiting pod and returns a Wait status. */
  Status runPermitPlugins(CycleState state, Pod pod, String nodeName);

  /** Blocks until a waiting pod is allowed, rejected or timed out; Success if it was not waiting. */
  Status waitOnPermit(Pod pod) throws InterruptedException;

  /**
   * Runs every PreBind plugin's {@code preBindPreFlight}: Success if one or more will do work,
   * Skip if all skip (also with no PreBind plugins), an Error naming the plugin otherwise. The
   * plugins that skipped are recorded in the cycle state and their PreBind does not run.
   */
  Status runPreBindPreFlights(CycleState state, Pod pod, String nodeName);

  /** Whether the pod is parked in Permit (waitOnPermit will block). */
  default boolean willWaitOnPermit(Pod pod) {
    return getWaitingPod(pod.getMetadata().getUid()).isPresent();
  }

  Status runPreBindPlugins(CycleState state, Pod pod, String nodeName);

  Status runBindPlugins(CycleState state, Pod pod, String nodeName);

  void runPostBindPlugins(CycleState state, Pod pod, String nodeName);

  /** The profile's own percentageOfNodesToScore, if it sets one. */
  OptionalInt percentageOfNodesToScore();

  /** Names of the enabled plugins per extension point, for logs and tests. */
  Map<String, List<String>> listPlugins();

  /** The profile's opportunistic batching; {@link NodeHints#DISABLED} when the gate is off. */
  default NodeHints nodeHints() {
    return NodeHints.DISABLED;
  }

  /** The profile's first enabled {@link PodGroupPlugin}, which opens group scheduling cycles. */
  default Optional<PodGroupPlugin> podGroupPlugin() {
    return Optional.empty();
  }

  /** The profile's first enabled {@link GroupPreemptionPlugin}, which preempts for pod groups. */
  default Optional<GroupPreemptionPlugin> groupPreemptionPlugin() {
    return Optional.empty();
  }
}
