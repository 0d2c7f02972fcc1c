package io.berth.plugins.defaultpreemption;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Simulates preemption on the potential nodes in parallel, as upstream's {@code DryRunPreemption}:
 * node {@code i} of the run is {@code potentialNodes[(offset + i) % n]}, evaluated on its own
 * copies of the NodeInfo and the CycleState. Candidates that break no PodDisruptionBudget and those
 * that do are kept in two lists of capacity {@code candidatesNum} each (extra ones are dropped);
 * the run stops handing out nodes once it has at least one non-violating candidate and
 * {@code candidatesNum} in all. Nodes that cannot help are recorded with their status.
 *
 * <p>Stateless; each {@link #run} owns its result holders, which parallel workers share: the
 * candidate lists are lock-free (an atomic index claims a slot), the statuses are an atomic array
 * with one slot per node, the errors a synchronized list.
 */
final class DryRunPreemption {
  /**
   * Candidates (non-violating first), statuses of nodes that cannot help, and the errors. The statuses by node name
   * are only read when no candidate was found (for the message), so the run leaves them by position and the map is
   * built on the first call of {@link #nodeStatuses}; confined to the thread that received it.
   */
  static final class Result {
    private final List<Candidate> candidates;
    private final List<Status> errors;
    private final List<NodeInfo> nodes;
    private final int offset;
    private final AtomicReferenceArray<Status> statusAt;
    private Map<String, Status> nodeStatuses;

    /** A result with its statuses already by node name. */
    Result(List<Candidate> candidates, Map<String, Status> nodeStatuses, List<Status> errors) {
      this(candidates, errors, List.of(), 0, new AtomicReferenceArray<>(0));
      this.nodeStatuses = Map.copyOf(nodeStatuses);
    }

    /** {@code statusAt[i]} is the status of {@code nodes[(offset + i) % n]}, null where there is none. */
    private Result(List<Candidate> candidates, List<Status> errors, List<NodeInfo> nodes, int offset,
        AtomicReferenceArray<Status> statusAt) {
      this.candidates = candidates;
      this.errors = errors;
      this.nodes = nodes;
      this.offset = offset;
      this.statusAt = statusAt;
    }

    List<Candidate> candidates() {
      return candidates;
    }

    List<Status> errors() {
      return errors;
    }

    /** The statuses of the nodes that cannot help, by node name (immutable). */
    Map<String, Status> nodeStatuses() {
      if (nodeStatuses == null) {
        Map<String, Status> byName = new HashMap<>();
        for (int i = 0; i < statusAt.length(); i++) {
          Status s = statusAt.get(i);
          if (s != null) {
            byName.put(nodes.get((offset + i) % nodes.size()).nodeName(), s);
          }
        }
        nodeStatuses = Map.copyOf(byName);
      }
      return nodeStatuses;
    }
  }

  private DryRunPreemption() {}

  static Result run(Parallelizer parallelizer, VictimSelector selector, CycleState state,
      Pod pod, List<NodeInfo> potentialNodes, List<PodDisruptionBudget> pdbs, int offset,
      int candidatesNum) {
    CandidateList nonViolating = new CandidateList(candidatesNum);
    CandidateList violating = new CandidateList(candidatesNum);
    int n = potentialNodes.size();
    // shared by the workers of this run: atomic flag, one slot per node written once by its worker (a concurrent
    // map's put per failing node, and its resizing, cost more than the simulation of some nodes), synchronized list
    AtomicBoolean enough = new AtomicBoolean();
    AtomicReferenceArray<Status> statuses = new AtomicReferenceArray<>(n);
    List<Status> errors = Collections.synchronizedList(new ArrayList<>());
    parallelizer.until(n, i -> {
      NodeInfo nodeCopy = potentialNodes.get((offset + i) % n).snapshot();
      String nodeName = nodeCopy.nodeName();
      VictimSelector.Selection s = selector.select(state.copy(), pod, nodeCopy, pdbs);
      Status status = s.status();
      if (status.isSuccess() && !s.victims().isEmpty()) {
        Candidate c = new Candidate(nodeName, s.victims(), s.numPdbViolations());
        (s.numPdbViolations() == 0 ? nonViolating : violating).add(c);
        int nvc = nonViolating.size();
        if (nvc > 0 && nvc + violating.size() >= candidatesNum) {
          enough.set(true);
        }
        return;
      }
      if (status.isSuccess()) {
        status = Status.error("expected at least one victim pod on node \"" + nodeName + "\"");
      }
      if (status.code() == Code.ERROR) {
        errors.add(status);
      }
      statuses.set(i, status);
    }, enough::get);
    List<Candidate> candidates = new ArrayList<>(nonViolating.get());
    candidates.addAll(violating.get());
    return new Result(candidates, List.copyOf(errors), potentialNodes, offset, statuses);
  }

  /**
   * A fixed-capacity list filled concurrently: {@code add} claims the next slot with an atomic
   * increment and drops the candidate when the list is full. Read {@link #get} only after every
   * add has returned.
   */
  private static final class CandidateList {
    // lock-free: slots claimed through `next`, each written once by the thread that claimed it
    private final AtomicReferenceArray<Candidate> items;
    private final AtomicInteger next = new AtomicInteger();

    CandidateList(int capacity) {
      this.items = new AtomicReferenceArray<>(Math.max(0, capacity));
    }

    void add(Candidate c) {
      int slot = next.getAndIncrement();
      if (slot < items.length()) {
        items.set(slot, c);
      }
    }

    int size() {
      return Math.min(next.get(), items.length());
    }

    List<Candidate> get() {
      List<Candidate> out = new ArrayList<>(size());
      for (int i = 0; i < size(); i++) {
        out.add(items.get(i));
      }
      return out;
    }
  }
}
