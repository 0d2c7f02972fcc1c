package io.berth.scheduler;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.NodeHints;
import io.berth.framework.NodeHints.NodeHint;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.NodeScores;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.framework.runtime.PluginResults;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

/**
 * Finds the node for one pod, as kube-scheduler's {@code schedulePod}: PreFilter; the nominated
 * node first if the pod has one; Filter in parallel over the nodes starting where the previous
 * cycle stopped, stopping once enough feasible nodes are found (percentageOfNodesToScore); then
 * PreScore, Score and a uniformly random choice among the highest scores (reservoir sampling;
 * with OpportunisticBatching, a heap with a random tie-break, as upstream, whose remainder feeds
 * the profile's batch).
 * Not thread-safe: confined to the scheduling thread (its own fan-out goes through the profile's
 * parallelizer).
 */
public final class SchedulingAlgorithm {
  /** Below this many nodes every node is evaluated. */
  static final int MIN_FEASIBLE_NODES_TO_FIND = 100;
  /** The adaptive percentage never goes below this. */
  static final int MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
  /** How many feasible nodes a Filter worker finds before it claims them in the shared count. */
  static final int PUBLISH_EVERY = 8;

  /** Thrown when the cluster has no nodes at all. */
  public static final class NoNodesAvailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoNodesAvailableException() {
      super("no nodes available to schedule pods", null, false, false);
    }
  }

  private final int percentageOfNodesToScore;
  private final RandomGenerator random;
  // confined to the scheduling thread
  private int nextStartNodeIndex;
  // Filter's per-position results, reused from cycle to cycle instead of two arrays of every node per pod:
  // owned by the scheduling thread, written by the Filter workers only inside one findNodesThatPassFilters call
  // (the parallelizer's join orders their writes before the reads), and all null again when the call returns
  private NodeInfo[] feasibleScratch = new NodeInfo[0];
  private Status[] rejectedScratch = new Status[0];

  /** {@code percentageOfNodesToScore} 0 means adaptive. */
  public SchedulingAlgorithm(int percentageOfNodesToScore, RandomGenerator random) {
    this.percentageOfNodesToScore = percentageOfNodesToScore;
    this.random = random;
  }

  /**
   * Picks a node for {@code pod}. Throws {@link FitError} when no node fits,
   * {@link NoNodesAvailableException} when there are no nodes and {@link StatusException} on a
   * plugin error.
   */
  public ScheduleResult schedulePod(Framework fw, CycleState state, Pod pod, NodeInfoLister snapshot) {
    return schedulePod(fw, state, pod, snapshot, 0);
  }

  /**
   * As {@link #schedulePod(Framework, CycleState, Pod, NodeInfoLister)}, in the queue's scheduling
   * cycle {@code cycle}. With the profile's opportunistic batching on (see {@link NodeHints}), the
   * pod first tries the batch's hint node, like a nominated node; the chosen node comes off a
   * heap of the scored nodes and the rest of the heap is stored for the next pod.
   */
  public ScheduleResult schedulePod(Framework fw, CycleState state, Pod pod,
      NodeInfoLister snapshot, long cycle) {
    return schedulePod(fw, state, pod, snapshot, cycle, false);
  }

  /**
   * As {@link #schedulePod(Framework, CycleState, Pod, NodeInfoLister, long)}; with
   * {@code sameSnapshot} (a group cycle's members after the first: the previous cycle ran on this
   * snapshot, amended only by the previous member's placement) the batch may take the previous
   * member's node back with a fresh score ({@link NodeHints#getNodeHint(CycleState, Pod, long,
   * boolean)}), so identical members are placed from one Filter and Score pass.
   */
  public ScheduleResult schedulePod(Framework fw, CycleState state, Pod pod,
      NodeInfoLister snapshot, long cycle, boolean sameSnapshot) {
    List<NodeInfo> allNodes = snapshot.list();
    if (allNodes.isEmpty()) {
      throw new NoNodesAvailableException();
    }
    Diagnosis diagnosis = new Diagnosis();
    NodeHints hints = fw.nodeHints();
    NodeHint[] hint = {NodeHint.NONE};
    List<NodeInfo> feasible = findNodesThatFitPod(fw, state, pod, snapshot, allNodes, diagnosis,
        hints, cycle, sameSnapshot, hint);
    PluginResults rec = PluginResults.of(state);
    if (rec != null) {
      rec.filtered(new PluginResults.Filtered(feasible, diagnosis.nodeToStatus(), allNodes.size()));
    }
    if (feasible.isEmpty()) {
      throw new FitError(pod, allNodes.size(), diagnosis);
    }
    int evaluated = feasible.size() + diagnosis.nodeToStatus().size();
    if (feasible.size() == 1) {
      String node = feasible.get(0).nodeName();
      if (hints.enabled()) {
        hints.storeScheduleResults(hint[0].signature(), hint[0].node(), node, null, cycle);
      }
      return new ScheduleResult(node, evaluated, 1);
    }
    if (hints.enabled() && hint[0].signature() != null && fw.hasScorePlugins()) {
      // the batch keeps the remaining order; with each plugin's scores kept, a group cycle's
      // next member can re-score the node this one goes to instead of scoring every node again
      ScoredNodeHeap sorted = new ScoredNodeHeap(feasible, prioritizeNodesKeeping(fw, state, pod,
          feasible), random);
      String node = sorted.pop();
      hints.storeScheduleResults(hint[0].signature(), hint[0].node(), node, sorted, cycle);
      return new ScheduleResult(node, evaluated, feasible.size());
    }
    long[] scores = prioritizeNodes(fw, state, pod, feasible);
    if (!hints.enabled()) {
      return new ScheduleResult(selectHost(feasible, scores), evaluated, feasible.size());
    }
    if (hint[0].signature() == null) {
      // an unsignable pod's remaining order is discarded by the batch: the heap's top node, found
      // without sorting (same random draws, same node), and only the count handed on
      String node = feasible.get(ScoredNodeHeap.top(scores, random)).nodeName();
      hints.storeScheduleResults(null, hint[0].node(), node,
          ScoredNodeHeap.discarded(feasible.size() - 1), cycle);
      return new ScheduleResult(node, evaluated, feasible.size());
    }
    ScoredNodeHeap sorted = new ScoredNodeHeap(feasible, scores, random);
    String node = sorted.pop();
    hints.storeScheduleResults(hint[0].signature(), hint[0].node(), node, sorted, cycle);
    return new ScheduleResult(node, evaluated, feasible.size());
  }

  List<NodeInfo> findNodesThatFitPod(Framework fw, CycleState state, Pod pod,
      NodeInfoLister snapshot, List<NodeInfo> allNodes, Diagnosis diagnosis) {
    return findNodesThatFitPod(fw, state, pod, snapshot, allNodes, diagnosis, NodeHints.DISABLED,
        0, false, new NodeHint[1]);
  }

  private List<NodeInfo> findNodesThatFitPod(Framework fw, CycleState state, Pod pod,
      NodeInfoLister snapshot, List<NodeInfo> allNodes, Diagnosis diagnosis, NodeHints hints,
      long cycle, boolean sameSnapshot, NodeHint[] hintOut) {
    PreFilterResult pre = fw.runPreFilterPlugins(state, pod, allNodes);
    Status s = pre.status();
    if (!s.isSuccess()) {
      if (!s.isRejected()) {
        throw new StatusException(s);
      }
      // every node shares PreFilter's verdict, so preemption sees it for each of them
      diagnosis.nodeToStatus().setAbsentNodesStatus(s);
      diagnosis.setPreFilterMsg(s.message());
      diagnosis.addPluginStatus(s);
      return List.of();
    }
    NodeHint hint = hints.enabled() ? hints.getNodeHint(state, pod, cycle, sameSnapshot)
        : NodeHint.NONE;
    hintOut[0] = hint;
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (nominated == null || nominated.isEmpty()) {
      // the batch's hint is tried like a nominated node (a nominated node takes precedence)
      nominated = hint.node();
    }
    if (nominated != null && !nominated.isEmpty()) {
      Optional<NodeInfo> node = snapshot.get(nominated);
      if (node.isPresent() && node.get().node().isPresent()) {
        List<NodeInfo> ok = findNodesThatPassFilters(fw, state, pod, diagnosis, List.of(node.get()),
            false);
        if (!ok.isEmpty()) {
          return ok;
        }
      }
    }
    List<NodeInfo> nodes = allNodes;
    if (!pre.allNodes()) {
      nodes = new ArrayList<>(pre.nodeNames().get().size());
      for (String name : pre.nodeNames().get()) {
        snapshot.get(name).filter(n -> n.node().isPresent()).ifPresent(nodes::add);
      }
      diagnosis.nodeToStatus().setAbsentNodesStatus(Status.unresolvable(
          "node(s) didn't satisfy plugin(s) " + new java.util.TreeSet<>(state.preFilterNodePlugins())));
    }
    return findNodesThatPassFilters(fw, state, pod, diagnosis, nodes, true);
  }

  private List<NodeInfo> findNodesThatPassFilters(Framework fw, CycleState state, Pod pod,
      Diagnosis diagnosis, List<NodeInfo> nodes, boolean advanceStart) {
    int numAll = nodes.size();
    if (numAll == 0) {
      return List.of();
    }
    int numToFind = numFeasibleNodesToFind(fw.percentageOfNodesToScore().orElse(
        percentageOfNodesToScore), numAll);
    int start = advanceStart ? nextStartNodeIndex % numAll : 0;
    if (!fw.hasFilterPlugins()) {
      List<NodeInfo> out = new ArrayList<>(numToFind);
      for (int i = 0; i < numToFind; i++) {
        out.add(nodes.get((start + i) % numAll));
      }
      if (advanceStart) {
        nextStartNodeIndex = (start + numToFind) % numAll;
      }
      return out;
    }
    // Workers walk whole chunks, keep the feasible nodes they find locally and claim them in the shared count only
    // every PUBLISH_EVERY nodes: a claim per node made the two workers of a small machine bounce that counter's cache
    // line on every node. A worker stops once the count plus its unclaimed nodes reach numToFind (so a single worker
    // stops exactly there, as before); claims beyond numToFind are dropped unprocessed, as upstream drops a node found
    // after the count was reached. Kept nodes are read back in node order.
    if (feasibleScratch.length < numAll) {
      feasibleScratch = new NodeInfo[numAll];
      rejectedScratch = new Status[numAll];
    }
    NodeInfo[] feasibleAt = feasibleScratch;
    Status[] rejected = rejectedScratch;
    AtomicInteger found = new AtomicInteger();
    // one past the highest position any worker filtered: nothing at or above it was written
    AtomicInteger highWater = new AtomicInteger();
    AtomicReference<Status> error = new AtomicReference<>();
    boolean joined = false;
    try {
      fw.parallelizer().untilRanges(numAll, (from, to) -> {
        int[] unclaimed = new int[PUBLISH_EVERY];
        int pending = 0;
        int i = from;
        try {
          for (; i < to; i++) {
            if (found.get() + pending >= numToFind || error.get() != null) {
              break;
            }
            NodeInfo node = nodes.get((start + i) % numAll);
            Status st = fw.runFilterPluginsWithNominatedPods(state, pod, node);
            if (st.code() == Code.ERROR) {
              error.compareAndSet(null, st);
              break;
            }
            if (st.isSuccess()) {
              unclaimed[pending++] = i;
              if (pending == PUBLISH_EVERY) {
                claim(found, numToFind, unclaimed, pending, nodes, start, feasibleAt);
                pending = 0;
              }
            } else {
              rejected[i] = st;
            }
          }
          if (pending > 0) {
            claim(found, numToFind, unclaimed, pending, nodes, start, feasibleAt);
          }
        } finally {
          int reached = Math.min(to, i + 1);
          highWater.accumulateAndGet(reached, Math::max);
        }
      }, () -> found.get() >= numToFind || error.get() != null);
      joined = true;
      if (error.get() != null) {
        throw new StatusException(error.get());
      }
      int end = highWater.get();
      int numRejected = 0;
      for (int i = 0; i < end; i++) {
        numRejected += rejected[i] == null ? 0 : 1;
      }
      diagnosis.nodeToStatus().reserve(numRejected);
      int processed = 0;
      for (int i = 0; i < end; i++) {
        if (rejected[i] != null) {
          NodeInfo node = nodes.get((start + i) % numAll);
          diagnosis.nodeToStatus().set(node.nodeName(), rejected[i]);
          diagnosis.addPluginStatus(rejected[i]);
          processed++;
        }
      }
      int count = Math.min(found.get(), numToFind);
      processed += count;
      if (advanceStart) {
        nextStartNodeIndex = (start + processed) % numAll;
      }
      List<NodeInfo> out = new ArrayList<>(count);
      for (int i = 0; i < end; i++) {
        if (feasibleAt[i] != null) {
          out.add(feasibleAt[i]);
        }
      }
      return out;
    } finally {
      if (joined) {
        // every worker has returned: the next cycle starts from all-null arrays
        java.util.Arrays.fill(feasibleAt, 0, highWater.get(), null);
        java.util.Arrays.fill(rejected, 0, highWater.get(), null);
      } else {
        // the parallelizer threw (a worker failed, or the wait was interrupted) and a worker may still be writing:
        // leave these arrays to it and start the next cycle on new ones
        feasibleScratch = new NodeInfo[0];
        rejectedScratch = new Status[0];
      }
    }
  }

  /**
   * Claims {@code n} feasible node positions in the shared count, keeping (in {@code feasibleAt}) those that still
   * fit under {@code numToFind}.
   */
  private static void claim(AtomicInteger found, int numToFind, int[] positions, int n, List<NodeInfo> nodes,
      int start, NodeInfo[] feasibleAt) {
    int before = found.getAndAdd(n);
    int keep = Math.max(0, Math.min(n, numToFind - before));
    for (int j = 0; j < keep; j++) {
      int i = positions[j];
      feasibleAt[i] = nodes.get((start + i) % nodes.size());
    }
  }

  /**
   * How many feasible nodes to look for among {@code numAllNodes}: all below 100 nodes; else
   * {@code percentage} of them (adaptive {@code 50 - n/125}, at least 5%, when 0), at least 100.
   */
  static int numFeasibleNodesToFind(int percentage, int numAllNodes) {
    if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) {
      return numAllNodes;
    }
    int p = percentage;
    if (p <= 0) {
      p = 50 - numAllNodes / 125;
      if (p < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) {
        p = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
      }
    }
    if (p >= 100) {
      return numAllNodes;
    }
    int n = (int) ((long) numAllNodes * p / 100);
    return Math.max(n, MIN_FEASIBLE_NODES_TO_FIND);
  }

  private long[] prioritizeNodes(Framework fw, CycleState state, Pod pod, List<NodeInfo> nodes) {
    if (!fw.hasScorePlugins()) {
      long[] ones = new long[nodes.size()];
      java.util.Arrays.fill(ones, 1);
      return ones;
    }
    Status pre = fw.runPreScorePlugins(state, pod, nodes);
    if (!pre.isSuccess()) {
      throw new StatusException(pre);
    }
    return fw.runScorePlugins(state, pod, nodes);
  }

  private NodeScores prioritizeNodesKeeping(Framework fw, CycleState state, Pod pod,
      List<NodeInfo> nodes) {
    Status pre = fw.runPreScorePlugins(state, pod, nodes);
    if (!pre.isSuccess()) {
      throw new StatusException(pre);
    }
    return fw.runScorePluginsKeeping(state, pod, nodes);
  }

  /**
   * The node with the highest score; ties broken uniformly at random in one pass: the k-th node
   * seen with the current best score replaces the choice with probability 1/k (reservoir sampling
   * with a reservoir of one), so each of the m tied nodes ends up chosen with probability 1/m.
   */
  String selectHost(List<NodeInfo> nodes, long[] scores) {
    int selected = 0;
    long max = scores[0];
    int tied = 1;
    for (int i = 1; i < nodes.size(); i++) {
      if (scores[i] > max) {
        max = scores[i];
        selected = i;
        tied = 1;
      } else if (scores[i] == max) {
        tied++;
        if (random.nextInt(tied) == 0) {
          selected = i;
        }
      }
    }
    return nodes.get(selected).nodeName();
  }
}
