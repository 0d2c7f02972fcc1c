package io.berth.scheduler;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.GroupPreemptionPlugin;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.cache.Snapshot;
import io.berth.scheduler.cache.SnapshotAmendment;
import io.berth.scheduler.queue.QueueName;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group scheduling cycle (KEP-4671's workload scheduling cycle, upstream's
 * {@code scheduleOnePodGroup}; Sky-Scheduler's Statement): when the popped pod belongs to a group
 * of the profile's {@link PodGroupPlugin} and the group's queued members together with those
 * already assumed or bound reach {@code minMember}, the queued members are popped too and placed
 * in one cycle on one snapshot, in upstream's order (priority, then first attempt, then name).
 * Each member is filtered and scored against the snapshot as amended by the members placed before
 * it ({@link SnapshotAmendment}); if at least {@code minMember} are placed the group is assumed and
 * permitted together and every member goes to the binding pool, otherwise none is assumed
 * ({@link GroupPlacement#discard}) and every member fails with a message naming the group. A group
 * that does not qualify (too few queued members: late arrivals, a group larger than the queue
 * holds) takes the per-pod cycle, where Permit waits for the rest. A group with more queued
 * members than {@link PodGroupPlugin#maxGroupCycleMembers} is placed in chunks of that size: each
 * chunk all or nothing, a chunk short of {@code minMember} assumed and parked at Permit until the
 * later chunks complete the group. After a successful group preemption every member the what-if
 * placed is nominated to its node (as upstream's PostFilter result nominates a single pod); a
 * failed commit clears the members' nominations.
 *
 * <p>How it shares the per-pod code: each member runs the very same
 * {@link SchedulingAlgorithm#schedulePod} (PreFilter, Filter, Score, opportunistic batching)
 * against the same {@link Framework} runner ({@code FrameworkRuntime}); the members after the first
 * tell the profile's batch ({@code OpportunisticBatch}, KEP-5598) that they run on the previous
 * member's snapshot, so a member with the previous member's signature takes the best remaining
 * node of the previous full pass after the previous member's node is re-filtered and re-scored
 * (the only node whose state changed), and a member with another signature, an unsignable one
 * (a topology group's, for one) or one whose list ran out takes the full path; Reserve, Permit and
 * Unreserve go through the same {@code run*} methods; a committed member continues in
 * {@link Scheduler#bindAsync} and a failed one in {@link Scheduler#handleFailure}. The only code of
 * its own is the member collection, the snapshot amendment and the all-or-nothing decision.
 * Confined to the scheduling thread, like {@link Scheduler}'s loop.
 */
final class GroupSchedulingCycle {
  private static final Logger LOG = LoggerFactory.getLogger(GroupSchedulingCycle.class);
  private static final Comparator<QueuedPodInfo> ORDER = Comparator
      .comparingInt((QueuedPodInfo p) -> -priority(p.pod()))
      .thenComparing(p -> p.initialAttemptTimestamp().orElse(Instant.MAX))
      .thenComparing(QueuedPodInfo::key);

  private final Scheduler scheduler;
  private final SchedulingQueue queue;
  private final SchedulerCache cache;
  private final Snapshot snapshot;
  private final SchedulingAlgorithm algorithm;
  private final SchedulerMetrics metrics;

  GroupSchedulingCycle(Scheduler scheduler, SchedulingQueue queue, SchedulerCache cache,
      Snapshot snapshot, SchedulingAlgorithm algorithm, SchedulerMetrics metrics) {
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.queue = queue;
    this.cache = cache;
    this.snapshot = snapshot;
    this.algorithm = algorithm;
  }

  /**
   * Runs a group cycle for {@code first} (just popped) and returns true, or returns false when the
   * pod takes the per-pod cycle (no group, a group of one, too few members queued).
   */
  boolean tryRun(Framework fw, QueuedPodInfo first, long start) {
    Optional<PodGroupPlugin> plugin = fw.podGroupPlugin();
    if (plugin.isEmpty() || first.podInfo().parseError().isPresent()) {
      return false;
    }
    Optional<PodGroupRef> ref = plugin.get().podGroupOf(first.pod());
    if (ref.isEmpty() || ref.get().minMember() <= 1) {
      return false;
    }
    PodGroupRef group = ref.get();
    // counted on the cycle's snapshot, as the gang plugin counts them at Permit
    cache.updateSnapshot(snapshot);
    int[] assigned = {0};
    List<Pod> queued = queuedMembers(plugin.get(), group, first.pod(), assigned);
    if (1 + queued.size() + assigned[0] < group.minMember()) {
      return false;
    }
    // a group larger than one cycle may place goes in chunks: the highest-priority members first
    // (then by name: their first attempts are not known before they are popped); the rest stay
    // queued and open the next chunk's cycle
    int limit = Math.max(1, plugin.get().maxGroupCycleMembers());
    boolean chunked = 1 + queued.size() > limit;
    if (chunked) {
      queued = new ArrayList<>(queued);
      queued.sort(Comparator.comparingInt((Pod p) -> -priority(p))
          .thenComparing(p -> p.getMetadata().getName()));
      queued = queued.subList(0, limit - 1);
    }
    long firstCycle = queue.schedulingCycle();
    List<QueuedPodInfo> members = new ArrayList<>(queued.size() + 1);
    members.add(first);
    // one hold of the queue's lock and one of the cache's for the whole group, not one per member
    List<QueuedPodInfo> popped = queue.popSpecificPods(queued);
    List<Pod> poppedPods = new ArrayList<>(popped.size());
    for (QueuedPodInfo p : popped) {
      poppedPods.add(p.pod());
    }
    Set<String> assumed = cache.assumedUids(poppedPods);
    for (QueuedPodInfo p : popped) {
      Pod pod = p.pod();
      if (scheduler.skipPodSchedule(pod, assumed.contains(pod.getMetadata().getUid()))) {
        queue.done(pod.getMetadata().getUid());
      } else {
        members.add(p);
      }
    }
    members.sort(ORDER);
    run(fw, plugin.get(), group, members, assigned[0], chunked, firstCycle, start);
    return true;
  }

  /**
   * Members in activeQ or backoffQ other than {@code first}; counts assigned ones. Members held by
   * PreEnqueue (the gang plugin holds them until enough exist, and nothing requeues them when the
   * last one arrives) are activated first, so that PreEnqueue runs again and lets them join.
   */
  private List<Pod> queuedMembers(PodGroupPlugin plugin, PodGroupRef group, Pod first,
      int[] assigned) {
    List<Pod> unbound = new ArrayList<>();
    String firstUid = first.getMetadata().getUid();
    for (Pod p : plugin.members(group)) {
      if (Objects.equals(firstUid, p.getMetadata().getUid())) {
        continue;
      }
      String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
      if (node != null && !node.isEmpty()) {
        // bound: placed only if on a node the scheduler knows (the gang plugin counts it so)
        assigned[0] += snapshot.get(node).isPresent() ? 1 : 0;
      } else {
        unbound.add(p);
      }
    }
    // the cache and the queue are asked once each for the whole group (one hold of each lock)
    Set<String> assumed = cache.assumedUids(unbound);
    List<Pod> waiting = new ArrayList<>(unbound.size());
    for (Pod p : unbound) {
      if (assumed.contains(p.getMetadata().getUid())) {
        assigned[0]++;
      } else if (p.getMetadata().getDeletionTimestamp() == null) {
        waiting.add(p);
      }
    }
    List<Pod> out = new ArrayList<>(waiting.size());
    List<Pod> gated = new ArrayList<>();
    Map<String, QueueName> where = queue.queuesOf(waiting);
    for (Pod p : waiting) {
      QueueName q = where.get(key(p));
      if (q == QueueName.GATED) {
        gated.add(p);
      } else if (poppable(q)) {
        out.add(p);
      }
    }
    if (!gated.isEmpty()) {
      queue.activate(gated);
      Map<String, QueueName> now = queue.queuesOf(gated);
      for (Pod p : gated) {
        if (poppable(now.get(key(p)))) {
          out.add(p);
        }
      }
    }
    return out;
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }

  private static boolean poppable(QueueName where) {
    return where == QueueName.ACTIVE || where == QueueName.BACKOFF;
  }

  private void run(Framework fw, PodGroupPlugin plugin, PodGroupRef group,
      List<QueuedPodInfo> members, int assigned, boolean chunked, long firstCycle, long start) {
    // a chunk short of minMember commits when every member of it is placed: its members then
    // wait at Permit for the later chunks, as late members of the per-pod path do
    int needed = chunked ? Math.min(group.minMember() - assigned, members.size())
        : group.minMember() - assigned;
    GroupPlacement placement = new GroupPlacement(fw, cache, queue, new SnapshotAmendment(snapshot));
    Status[] outcome = new Status[members.size()];
    Status error = null;
    String firstFailure = null;
    int failed = 0;
    for (int i = 0; i < members.size(); i++) {
      QueuedPodInfo pInfo = members.get(i);
      // the members after the first run on the snapshot the previous member ran on, amended by
      // its placement: the batch may carry the previous member's scored nodes over
      Status s = placeOne(fw, placement, pInfo, firstCycle + i, i > 0);
      outcome[i] = s;
      if (s.isSuccess()) {
        continue;
      }
      failed++;
      if (firstFailure == null) {
        firstFailure = "member \"" + pInfo.key() + "\": " + messageOf(s);
      }
      if (!s.isRejected()) {
        error = s;
        break;
      }
      if (placement.size() + (members.size() - i - 1) < needed) {
        break; // minMember is out of reach: the rest need not be tried
      }
    }
    int placed = placement.size();
    String summary;
    // member uid -> nomination: preemption nominates the members it made room for (upstream's
    // PostFilter result); a failed commit clears them, as the per-pod path's Reserve/Permit do
    Map<String, NominatingInfo> nominations = new HashMap<>();
    NominatingInfo others = NominatingInfo.NOOP;
    if (error == null && placed >= needed) {
      Status committed = placement.commit();
      if (committed.isSuccess()) {
        LOG.debug("PodGroup {}: {} members placed in one cycle", group.key(), placed);
        metrics.podGroupAttempt(SchedulerMetrics.SCHEDULED, fw.profileName(),
            System.nanoTime() - start);
        submitCommitted(fw, placement, members, outcome, group, start);
        return;
      }
      error = committed.isRejected() ? null : committed;
      others = NominatingInfo.override("");
      summary = "PodGroup \"" + group.key() + "\": " + placed + " members fit, but assuming them "
          + "together failed, so none is placed (" + messageOf(committed) + ")";
    } else {
      placement.discard();
      summary = "PodGroup \"" + group.key() + "\": " + (error != null
          ? "scheduling a member failed, so none is placed (" + firstFailure + ")"
          : "only " + (placed + assigned) + " of the " + group.minMember()
              + " members it needs (minMember) can be placed together, so none is placed; "
              + failed + " member(s) do not fit (" + firstFailure + ")")
          + (chunked ? " [this cycle placed a chunk of " + members.size() + " members: the group"
              + " is larger than one group cycle places (maxGroupCycleMembers)]" : "");
      if (error == null) {
        summary += preempt(fw, plugin, group, members, needed, nominations);
      }
    }
    LOG.debug("{}", summary);
    metrics.podGroupAttempt(error != null ? SchedulerMetrics.ERROR : SchedulerMetrics.UNSCHEDULABLE,
        fw.profileName(), System.nanoTime() - start);
    for (int i = 0; i < members.size(); i++) {
      QueuedPodInfo pInfo = members.get(i);
      Status own = outcome[i];
      Status report = own != null && !own.isSuccess() ? withGroup(own, summary)
          : groupRejection(plugin, pInfo.pod(), summary, error != null);
      scheduler.handleFailure(fw, pInfo, report,
          nominations.getOrDefault(pInfo.pod().getMetadata().getUid(), others), start);
    }
  }

  /**
   * Workload-aware preemption after a failed group cycle: the profile's group preemption plugin
   * may evict lower-priority pods (whole gangs at a time) so that the group fits when they are
   * gone; the members go back to the queue either way. Returns what to add to the message.
   */
  private String preempt(Framework fw, PodGroupPlugin plugin, PodGroupRef group,
      List<QueuedPodInfo> members, int needed, Map<String, NominatingInfo> nominations) {
    Optional<GroupPreemptionPlugin> preemption = fw.groupPreemptionPlugin();
    if (preemption.isEmpty()) {
      return "";
    }
    Status s;
    GroupFeasibilityCheck check = new GroupFeasibilityCheck(fw, plugin, algorithm, snapshot,
        members, needed);
    try {
      s = preemption.get().preemptForGroup(group, members.stream().map(QueuedPodInfo::pod)
          .toList(), check);
    } catch (RuntimeException e) {
      LOG.error("preemption for PodGroup {} failed", group.key(), e);
      return "; preemption failed: " + e.getMessage();
    }
    if (s.isSuccess()) {
      check.lastFit().forEach((uid, node) -> nominations.put(uid, NominatingInfo.override(node)));
    }
    return s.isSuccess() ? "; preemption: lower-priority pods are being evicted to make room for"
        + " the whole group" : "; " + s.message();
  }

  /** Members the commit placed go to binding; the ones it could not place fail on their own. */
  private void submitCommitted(Framework fw, GroupPlacement placement, List<QueuedPodInfo> members,
      Status[] outcome, PodGroupRef group, long start) {
    for (GroupPlacement.Placed p : placement.placed()) {
      scheduler.bindAsync(fw, p.state(), p.pInfo(), p.assumed(), p.host(), start);
    }
    for (int i = 0; i < members.size(); i++) {
      if (outcome[i] != null && !outcome[i].isSuccess()) {
        // beyond minMember: the group is placed without it; it waits like a late member
        scheduler.handleFailure(fw, members.get(i), outcome[i], NominatingInfo.NOOP, start);
      } else if (outcome[i] == null) {
        scheduler.handleFailure(fw, members.get(i), Status.error("PodGroup \"" + group.key()
            + "\": member not tried"), NominatingInfo.NOOP, start);
      }
    }
  }

  /** Filter and Score on the amended snapshot, then the placement; Success or why not. */
  private Status placeOne(Framework fw, GroupPlacement placement, QueuedPodInfo pInfo,
      long cycle, boolean sameSnapshot) {
    CycleState state = new CycleState();
    ScheduleResult result;
    // the plugins' and the signers' PodInfo.of then find what the queue derived, not parse again
    PodInfo.remember(pInfo.podInfo());
    try {
      result = algorithm.schedulePod(fw, state, pInfo.pod(), snapshot, cycle, sameSnapshot);
    } catch (SchedulingAlgorithm.NoNodesAvailableException e) {
      return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, e.getMessage());
    } catch (FitError fitError) {
      return new FitStatus(fitError).status();
    } catch (StatusException e) {
      return e.status();
    } catch (RuntimeException e) {
      return Status.asError(e);
    }
    return placement.place(pInfo, state, result.suggestedHost());
  }

  /** The member's own failure with the group's verdict added to its message. */
  private static Status withGroup(Status own, String summary) {
    Optional<FitError> fit = FitStatus.fitErrorOf(own);
    if (fit.isPresent()) {
      Diagnosis d = fit.get().diagnosis();
      d.setPostFilterMsg(d.postFilterMsg().isEmpty() ? summary : d.postFilterMsg() + ". " + summary);
      return own;
    }
    return own.isRejected() ? Status.of(own.code(), summary + ": " + own.message())
        .withPlugin(own.plugin()) : Status.error(summary + ": " + own.message());
  }

  /** A member that fit (or was not tried) rejected because its group was not placed. */
  private Status groupRejection(PodGroupPlugin plugin, Pod pod, String summary, boolean error) {
    if (error) {
      return Status.error(summary);
    }
    Status s = Status.unschedulable(summary).withPlugin(plugin.name());
    Diagnosis d = new Diagnosis();
    d.nodeToStatus().setAbsentNodesStatus(s);
    d.setPreFilterMsg(summary);
    d.addPluginStatus(s);
    return new FitStatus(new FitError(pod, Math.max(1, snapshot.numNodes()), d)).status();
  }

  private static String messageOf(Status s) {
    return FitStatus.fitErrorOf(s).map(FitError::getMessage).orElse(s.message());
  }

  private static int priority(Pod pod) {
    Integer p = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return p == null ? 0 : p;
  }
}
