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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * candidate lists are lock-free (an atomic index claims a slot), statuses and errors live in
 * concurrent collections.
 */
final class DryRunPreemption {
  /** Candidates (non-violating first), statuses of nodes that cannot help, and the errors. */
  record Result(List<Candidate> candidates, Map<String, Status> nodeStatuses,
      List<Status> errors) {}

  private DryRunPreemption() {}

  static Result run(Parallelizer parallelizer, VictimSelector selector, CycleState state,
      Pod pod, List<NodeInfo> potentialNodes, List<PodDisruptionBudget> pdbs, int offset,
      int candidatesNum) {
    CandidateList nonViolating = new CandidateList(candidatesNum);
    CandidateList violating = new CandidateList(candidatesNum);
    // shared by the workers of this run: atomic flag, concurrent map, synchronized list
    AtomicBoolean enough = new AtomicBoolean();
    Map<String, Status> statuses = new ConcurrentHashMap<>();
    List<Status> errors = Collections.synchronizedList(new ArrayList<>());
    int n = potentialNodes.size();
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
      statuses.put(nodeName, status);
    }, enough::get);
    List<Candidate> candidates = new ArrayList<>(nonViolating.get());
    candidates.addAll(violating.get());
    return new Result(candidates, Map.copyOf(statuses), List.copyOf(errors));
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
