package io.berth.scheduler;

import io.berth.framework.AssumedPod;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.SnapshotAmendment;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction of one group scheduling cycle (Sky-Scheduler's Statement): {@link #place} puts a
 * member on the snapshot only and runs its Reserve plugins; {@link #commit} assumes every placed
 * member in the cache and runs Permit on each, all or none; {@link #discard} unreserves every
 * member newest first and reverts the snapshot. After a discard, or a commit that fails, nothing
 * is left behind: no pod assumed in the cache, none parked in Permit, none on the snapshot.
 * Not thread-safe: confined to the scheduling thread for one cycle.
 */
final class GroupPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(GroupPlacement.class);

  /** A member placed on {@code host} in this cycle, with its own cycle state. */
  record Placed(QueuedPodInfo pInfo, CycleState state, PodInfo assumedInfo, String host) {
    Pod assumed() {
      return assumedInfo.pod();
    }
  }

  private final Framework fw;
  private final SchedulerCache cache;
  private final SchedulingQueue queue;
  private final SnapshotAmendment amendment;
  // confined to the scheduling thread: the members placed so far, in placement order
  private final List<Placed> placed = new ArrayList<>();

  GroupPlacement(Framework fw, SchedulerCache cache, SchedulingQueue queue,
      SnapshotAmendment amendment) {
    this.fw = fw;
    this.cache = cache;
    this.queue = queue;
    this.amendment = amendment;
  }

  /**
   * Places the member on {@code host} in the snapshot and runs Reserve; on a Reserve failure the
   * member is unreserved and taken off the snapshot again, and the failure is returned (a
   * rejection as a FitError on {@code host}).
   */
  Status place(QueuedPodInfo pInfo, CycleState state, String host) {
    Pod assumed = AssumedPod.on(pInfo.pod(), host);
    // the member's derived data (requests, terms, ports, claims) holds for its assumed copy
    PodInfo assumedInfo = pInfo.podInfo().forAssumed(assumed);
    amendment.assume(assumedInfo);
    Status reserve = fw.runReservePluginsReserve(state, assumed, host);
    if (!reserve.isSuccess()) {
      fw.runReservePluginsUnreserve(state, assumed, host);
      amendment.revertLast();
      return Scheduler.rejectionOnHost(pInfo.pod(), host, reserve);
    }
    placed.add(new Placed(pInfo, state, assumedInfo, host));
    return Status.SUCCESS;
  }

  /** The members placed so far, in placement order. */
  List<Placed> placed() {
    return List.copyOf(placed);
  }

  int size() {
    return placed.size();
  }

  /**
   * Assumes every placed member in the cache, then runs Permit on each (with the whole group on
   * the snapshot, so a gang plugin sees it complete and allows it). Returns Success with every
   * member assumed and permitted (the snapshot reverted: the cache now holds them), or the first
   * failure with everything undone as by {@link #discard}.
   */
  Status commit() {
    List<PodInfo> infos = new ArrayList<>(placed.size());
    for (Placed p : placed) {
      infos.add(p.assumedInfo());
    }
    try {
      // all or none, in one hold of the cache's lock
      cache.assumePods(infos);
    } catch (RuntimeException e) {
      LOG.error("assuming the {} members of a group failed; discarding the group", placed.size(),
          e);
      undo(0);
      return Status.asError(e);
    }
    int inCache = placed.size();
    List<Pod> assumed = new ArrayList<>(placed.size());
    for (Placed p : placed) {
      assumed.add(p.assumed());
    }
    queue.deleteNominatedPodsIfExist(assumed);
    for (Placed p : placed) {
      Status permit = fw.runPermitPlugins(p.state(), p.assumed(), p.host());
      if (!permit.isSuccess() && !permit.isWait()) {
        undo(inCache);
        return Scheduler.rejectionOnHost(p.pInfo().pod(), p.host(), permit);
      }
    }
    amendment.revert();
    return Status.SUCCESS;
  }

  /** Unreserves every placed member, newest first, and reverts the snapshot. */
  void discard() {
    undo(0);
  }

  /** Undoes every placement; the first {@code inCache} members were assumed in the cache. */
  private void undo(int inCache) {
    for (int i = placed.size() - 1; i >= 0; i--) {
      Placed p = placed.get(i);
      String uid = p.assumed().getMetadata().getUid();
      if (fw.getWaitingPod(uid).isPresent()) {
        // parked by Permit but never handed to a binding cycle: reject it and take it out
        fw.rejectWaitingPod(uid);
        try {
          fw.waitOnPermit(p.assumed());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      fw.runReservePluginsUnreserve(p.state(), p.assumed(), p.host());
      if (i < inCache) {
        try {
          cache.forgetPod(p.assumed());
        } catch (RuntimeException e) {
          LOG.error("forgetting pod {} of a discarded group failed", p.pInfo().key(), e);
        }
      }
    }
    amendment.revert();
    placed.clear();
  }
}
