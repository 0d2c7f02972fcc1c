package io.berth.scheduler.explain;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One scheduling attempt of one pod, as the scheduler recorded it: every extension point's
 * per-plugin verdicts, the per-node Filter outcome, the Score table of the feasible nodes, the
 * chosen or nominated node and what PostFilter (preemption) found. Immutable and safe to share
 * between threads; built by the scheduler's recorder thread and read through {@link ExplainStore}.
 *
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param uid the pod's UID
 * @param profile the scheduler name (profile) that ran the attempt
 * @param time when the attempt ended
 * @param attempt the pod's attempt number (1 for the first), as the queue counts them
 * @param outcome how it ended
 * @param message the scheduler's message: upstream's FitError text ("0/5 nodes are available:
 *     ...") for unschedulable pods, the error for errors, "" when scheduled
 * @param preFilter each PreFilter plugin's verdict, in the order they ran
 * @param filter the per-node Filter verdicts
 * @param preScore each PreScore plugin's verdict (empty when Score did not run)
 * @param scores the per-plugin raw, normalized and weighted scores of the scored nodes (empty when
 *     one node was feasible or none)
 * @param selectedNode the node the pod was assumed on, if any
 * @param nominatedNode the node PostFilter nominated, if any
 * @param postFilter each PostFilter plugin's verdict (empty when PostFilter did not run)
 * @param preemption what preemption found, if it ran and reported
 * @param reserve each Reserve plugin's verdict on the selected node
 * @param permit each Permit plugin's verdict on the selected node
 * @param preBind each PreBind plugin's verdict on the selected node
 * @param bind each Bind plugin's verdict until one bound (or rejected)
 */
public record Attempt(String namespace, String name, String uid, String profile, Instant time,
    int attempt, Outcome outcome, String message, List<PluginVerdict> preFilter,
    FilterTable filter, List<PluginVerdict> preScore, ScoreTable scores,
    Optional<String> selectedNode, Optional<String> nominatedNode,
    List<PluginVerdict> postFilter, Optional<Preemption> preemption, List<PluginVerdict> reserve,
    List<PluginVerdict> permit, List<PluginVerdict> preBind, List<PluginVerdict> bind) {

  public Attempt {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(scores, "scores");
    uid = uid == null ? "" : uid;
    profile = profile == null ? "" : profile;
    message = message == null ? "" : message;
    preFilter = List.copyOf(preFilter);
    preScore = List.copyOf(preScore);
    postFilter = List.copyOf(postFilter);
    reserve = List.copyOf(reserve);
    permit = List.copyOf(permit);
    preBind = List.copyOf(preBind);
    bind = List.copyOf(bind);
  }

  /** How an attempt ended. */
  public enum Outcome {
    /** Bound to {@link Attempt#selectedNode()}. */
    SCHEDULED,
    /** Assumed on the selected node and waiting in Permit; replaced once its binding cycle ends. */
    WAITING_ON_PERMIT,
    /** No node fits, or a plugin rejected the pod (it goes back to the queue). */
    UNSCHEDULABLE,
    /** A plugin or the scheduler failed (the pod goes back to the queue with backoff). */
    ERROR
  }

  /**
   * One plugin's verdict at one extension point.
   *
   * @param plugin the plugin's name
   * @param code the status code as upstream spells it ("Success", "Unschedulable",
   *     "UnschedulableAndUnresolvable", "Wait", "Skip", "Error", "Pending")
   * @param message the status message ("" on success)
   * @param nodeNames for PreFilter: the node set the plugin narrowed to, sorted; empty when it
   *     did not narrow
   */
  public record PluginVerdict(String plugin, String code, String message,
      Optional<List<String>> nodeNames) {
    public PluginVerdict {
      Objects.requireNonNull(plugin, "plugin");
      Objects.requireNonNull(code, "code");
      message = message == null ? "" : message;
      nodeNames = nodeNames.map(List::copyOf);
    }

    /** Whether the plugin returned Success. */
    public boolean success() {
      return code.equals("Success");
    }
  }

  /**
   * What preemption found (reported by the DefaultPreemption plugin).
   *
   * @param candidates the candidate nodes with how many victims each would need, best first
   * @param nominatedNode the node chosen, if any
   * @param victims the pods to evict on it ({@code namespace/name})
   */
  public record Preemption(List<Candidate> candidates, Optional<String> nominatedNode,
      List<String> victims) {
    public Preemption {
      candidates = List.copyOf(candidates);
      victims = List.copyOf(victims);
    }
  }

  /**
   * A node where the pod would fit once {@code victims} pods are gone.
   *
   * @param node the node
   * @param victims how many pods would be evicted
   * @param pdbViolations how many of them would violate a PodDisruptionBudget
   */
  public record Candidate(String node, int victims, int pdbViolations) {
  }
}
