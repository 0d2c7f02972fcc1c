package io.berth.plugins.coscheduling;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.NodeToStatus;
import io.berth.framework.PermitPlugin;
import io.berth.framework.PermitResult;
import io.berth.framework.Plugin;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PostBindPlugin;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.QueueingHint;
import io.berth.framework.ReservePlugin;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.berth.framework.WaitingPod;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gang scheduling, as scheduler-plugins' {@code Coscheduling}: the pods labelled {@value PodGroup#LABEL} with a
 * PodGroup's name are placed all or nothing; so are the pods whose {@code spec.schedulingGroup.podGroupName} names a
 * kube-scheduler 1.36 {@code scheduling.k8s.io/v1alpha2} PodGroup with a {@code gang} policy ({@link GroupRef},
 * {@link GroupResolver}; {@code basic} groups are scheduled pod by pod).
 *
 * <ul>
 *   <li>QueueSort: priority, then the group's creation time (a pod without a group: its first queueing), then
 *       {@code namespace/group} (or the pod's key), then pod name, so a group's pods leave the queue together.
 *   <li>PreEnqueue: holds a member until its PodGroup exists and has at least {@code minMember} pods that are
 *       neither gated nor being deleted; the message says how many are missing.
 *   <li>PreFilter: rejects the group at once (UnschedulableAndUnresolvable) while it backs off, or when
 *       {@code minResources} (or, unset, the requests of {@code minMember} members) exceed the cluster's free
 *       capacity, naming each short resource and the shortfall.
 *   <li>PostFilter: when a member fits nowhere and too few members are placed, rejects every waiting member of
 *       its group and backs the group off.
 *   <li>Permit: a member waits (its resources stay assumed) until {@code minMember} members are assumed or bound,
 *       then all waiting members are allowed together; after {@code scheduleTimeoutSeconds} (default
 *       {@code permitWaitingTimeSeconds}) every waiting member is rejected in one step.
 *   <li>Reserve, Unreserve, PostBind: the plugin remembers which members are assumed (reserved, not yet bound), so
 *       Permit and PostFilter count a group's placed members from its own pods, not from every pod of the snapshot;
 *       a rejected or failed member takes every waiting member of its group with it. Enable the plugin at these
 *       points too ({@code multiPoint} does).
 *   <li>What it keeps per group (member requests, per-node members, the capacity verdict of the snapshot version
 *       a group cycle runs on) is bounded ({@link GroupStates}) and dropped when the group completes or goes.
 *       Besides, the last member summary and the last assigned-member count ({@link AssignedCount}) taken are
 *       reused while what they were taken from is unchanged (a complete group's siblings at PreEnqueue, a group
 *       cycle's members at PreFilter and at the commit's Permit), and QueueSort's per-pod keys are derived once per
 *       pod object ({@link SortKeys}).
 *   <li>{@link PodGroupPlugin}: tells the scheduler each pod's group, so that a complete group is placed in one group
 *       scheduling cycle (the Permit wait above then serves late members).
 *   <li>{@link SignPlugin}: signs every pod with no fragment, so batching stays on (see {@link #signPod}).
 * </ul>
 *
 * <p>Every rejection names the group ({@code PodGroup "ns/name"}), so the members' FailedScheduling events do.
 * A malformed PodGroup holds only its own pods, with a message naming the field. Thread-safe: the scheduling
 * thread, binding threads, the queue (under its lock) and the timer call it; the group timers and backoffs are
 * concurrent maps, each entry changed atomically.
 */
public final class Coscheduling implements QueueSortPlugin, PreEnqueuePlugin, PreFilterPlugin, PostFilterPlugin,
    PermitPlugin, ReservePlugin, PostBindPlugin, EnqueueExtensions, PodGroupPlugin, SignPlugin {
  public static final String NAME = "Coscheduling";

  private static final Logger LOG = LoggerFactory.getLogger(Coscheduling.class);
  /** The framework's own Permit timeout is this much longer than the group's, so the group timer fires first. */
  private static final Duration BACKSTOP = Duration.ofSeconds(5);
  /** As upstream: a group within 10% of minMember is not rejected when one member fails Filter. */
  private static final double NOT_ASSIGNED_TOLERANCE = 0.1;

  /** Marks a cycle whose PreFilter this plugin rejected: PostFilter then has nothing to add. */
  private static final String PRE_FILTER_REJECTED = "PreFilter" + NAME + "Rejected";
  private static final StateData REJECTED = new StateData() {
    @Override
    public StateData copy() {
      return this;
    }
  };

  private final CoschedulingArgs args;
  private final Handle handle;
  private final PodGroupLister podGroups;
  private final GroupMembers members;
  private final Clock clock;
  private final ScheduledExecutorService timers;
  // per group key: the timer that rejects its waiting members; entries replaced atomically (compute)
  private final Map<String, ScheduledFuture<?>> groupTimers = new ConcurrentHashMap<>();
  // per group key: until when the group backs off; entries replaced atomically
  private final Map<String, Instant> backoffs = new ConcurrentHashMap<>();
  // per group: where its members sit and their summed requests; bounded, guarded by itself
  private final GroupStates states = new GroupStates(GroupStates.DEFAULT_CAPACITY);
  // uid -> node of every member reserved and neither unreserved nor bound yet (assumed: the scheduler's cache holds
  // it); bounded by the pods in flight; entries added and removed atomically
  private final Map<String, String> reserved = new ConcurrentHashMap<>();
  // bumped after every change to reserved: a member count taken at an older value is not reused
  private final AtomicLong reservedVersion = new AtomicLong();
  // the last group whose assigned members were counted, with what the count was taken from; replaced whole
  private volatile AssignedCount lastCount;
  // the last member summary computed (by PreEnqueue or PreFilter), of whichever group; replaced whole
  private volatile MemberSummary lastSummary;
  // how many member summaries were computed afresh (for tests)
  private final AtomicLong summaries = new AtomicLong();
  // how many times a group's assigned members were counted afresh (for tests)
  private final AtomicLong memberCounts = new AtomicLong();
  // QueueSort's per-pod fields (group ref, keys), derived once per pod object; lock-free, racy by design
  private final SortKeys sortKeys = new SortKeys();

  Coscheduling(CoschedulingArgs args, Handle handle, PodGroupLister podGroups, GroupMembers members, Clock clock,
      ScheduledExecutorService timers) {
    this.args = args;
    this.handle = handle;
    this.podGroups = podGroups;
    this.members = members;
    this.clock = clock;
    this.timers = timers;
  }

  /**
   * The factory registered for {@link #NAME}: validates {@code args}, asks for the pod lister and starts a PodGroup
   * informer over the handle's client (none when the handle has no client, as when a configuration is only
   * validated).
   */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    CoschedulingArgs parsed = CoschedulingArgs.parse(args);
    GroupMembers members = GroupMembers.of(handle);
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "coscheduling-timer");
      t.setDaemon(true);
      return t;
    });
    GroupActivator activator = new GroupActivator();
    PodGroupLister lister;
    try {
      lister = GroupResolver.shared(handle.client(), activator, activator::deleted);
    } catch (IllegalStateException noClient) {
      lister = PodGroupLister.EMPTY;
    }
    Coscheduling plugin = new Coscheduling(parsed, handle, lister, members, Clock.systemUTC(), timers);
    activator.plugin = plugin;
    return plugin;
  }

  /**
   * As {@link #create(Map, Handle)} with PodGroups read from {@code podGroups} instead of an informer, for embedding
   * without an API server (the throughput harness); PodGroup changes then activate no pods.
   */
  public static Plugin create(Map<String, Object> args, Handle handle, PodGroupLister podGroups) {
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "coscheduling-timer");
      t.setDaemon(true);
      return t;
    });
    return new Coscheduling(CoschedulingArgs.parse(args), handle, podGroups, GroupMembers.of(handle),
        Clock.systemUTC(), timers);
  }

  /**
   * As {@link #create(Map, Handle, PodGroupLister)} with the group timers (schedule timeouts, backoffs) on
   * {@code timers}, which the caller owns and shuts down: for a short-lived embedding (the scheduler's
   * {@code /debug/simulate}) whose plugins must not leave a timer thread behind.
   */
  public static Plugin create(Map<String, Object> args, Handle handle, PodGroupLister podGroups,
      ScheduledExecutorService timers) {
    return new Coscheduling(CoschedulingArgs.parse(args), handle, podGroups, GroupMembers.of(handle),
        Clock.systemUTC(), Objects.requireNonNull(timers, "timers"));
  }

  /**
   * As {@link #create(Map, Handle)} with the groups of {@code groups} instead of informers over the handle's client,
   * for an embedding that keeps the PodGroups itself (the replay): the groups it reports through
   * {@link GroupResolver#changed} activate their pending members, as informer events do.
   */
  public static Plugin withGroups(Map<String, Object> args, Handle handle, GroupResolver groups) {
    CoschedulingArgs parsed = CoschedulingArgs.parse(args);
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "coscheduling-timer");
      t.setDaemon(true);
      return t;
    });
    GroupActivator activator = new GroupActivator();
    Coscheduling plugin = new Coscheduling(parsed, handle, groups, GroupMembers.of(handle), Clock.systemUTC(),
        timers);
    activator.plugin = plugin;
    groups.listen(activator, activator::deleted);
    return plugin;
  }

  /** Hands PodGroup adds and updates to the plugin once it exists. */
  private static final class GroupActivator implements java.util.function.Consumer<GenericKubernetesResource> {
    // written once by the factory before the informer delivers events that matter; volatile for visibility
    private volatile Coscheduling plugin;

    @Override
    public void accept(GenericKubernetesResource r) {
      Coscheduling p = plugin;
      if (p != null) {
        GroupRef.of(r).ifPresent(p::activatePending);
      }
    }

    /** A deleted PodGroup: its remembered state goes. */
    void deleted(GenericKubernetesResource r) {
      Coscheduling p = plugin;
      if (p != null) {
        GroupRef.of(r).ifPresent(p::forget);
      }
    }
  }

  /** Drops what the plugin remembers of {@code group} (its PodGroup is gone). */
  void forget(GroupRef group) {
    states.remove(group);
  }

  /** The member summary kept for {@code group}, or null (for tests). */
  MemberSummary rememberedMembers(GroupRef group) {
    GroupStates.State state = states.peek(group);
    return state == null ? null : state.members;
  }

  /** How many groups' state the plugin keeps (for tests). */
  int rememberedGroups() {
    return states.size();
  }

  @Override
  public String name() {
    return NAME;
  }

  // ---------------------------------------------------------------- membership

  /** The name of the group {@code pod} belongs to, in either API ({@link GroupRef#of(Pod)}). */
  static Optional<String> groupName(Pod pod) {
    return GroupRef.of(pod).map(GroupRef::name);
  }

  static boolean inGroup(Pod pod, PodGroup group) {
    return GroupRef.of(pod).map(group.ref()::equals).orElse(false);
  }

  private static String podKey(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  static boolean gated(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getSchedulingGates() != null
        && !pod.getSpec().getSchedulingGates().isEmpty();
  }

  /**
   * The gang of {@code pod}: empty without a group reference or when its group is not a gang (the Workload API's
   * basic policy); throws {@link GroupProblem} when missing or malformed.
   */
  private Optional<PodGroup> groupOf(Pod pod) {
    Optional<GroupRef> ref = GroupRef.of(pod);
    return ref.isEmpty() ? Optional.empty() : groupOf(pod, ref.get());
  }

  /** As {@link #groupOf(Pod)} for the group {@code ref} that {@code pod} names. */
  private Optional<PodGroup> groupOf(Pod pod, GroupRef ref) {
    try {
      Optional<PodGroup> group = podGroups.get(ref);
      if (group.isEmpty()) {
        states.remove(ref);
        throw new GroupProblem("PodGroup \"" + ref.key() + "\" of pod \"" + podKey(pod) + "\" does not exist");
      }
      return group.filter(PodGroup::gang);
    } catch (IllegalArgumentException malformed) {
      throw new GroupProblem(malformed.getMessage());
    }
  }

  /** A member's PodGroup is missing or malformed: only its pods are held. */
  private static final class GroupProblem extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GroupProblem(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The group's {@link MemberSummary}: the one remembered for the group when its member list is unchanged (a group
   * cycle's members after the first), else a fresh one, remembered when {@code remember} (PreFilter; PreEnqueue
   * runs for every queued group and would only push the groups being scheduled out of the bounded state).
   */
  private MemberSummary summary(PodGroup group, boolean remember) {
    List<Pod> listed = members.named(group.namespace(), group.name());
    GroupStates.State state = remember ? states.of(group.ref()) : states.peek(group.ref());
    MemberSummary cached = state == null ? null : state.members;
    if (cached != null && cached.matches(listed, group.minMember())) {
      return cached;
    }
    // the last summary taken, of whichever group: a complete group's siblings, released together, each pass
    // PreEnqueue on one unchanged list (and the group's first PreFilter follows on it)
    MemberSummary last = lastSummary;
    MemberSummary fresh = last;
    if (last == null || !last.matches(group.ref(), listed, group.minMember())) {
      fresh = MemberSummary.of(group, listed);
      summaries.incrementAndGet();
    }
    lastSummary = fresh;
    if (state != null) {
      state.members = fresh;
    }
    return fresh;
  }

  /**
   * Members assumed or bound, other than {@code except}: bound to a node of the cycle's snapshot, or reserved by this
   * plugin and not unreserved (every pod the scheduler assumes, in a group cycle or alone, passes Reserve before
   * Permit). Costs O(members), not a walk over the snapshot's pods; and a group cycle's commit, which runs Permit for
   * each of its members in a row on an unchanged member list, snapshot and set of reserved pods, counts the group
   * once ({@link AssignedCount}) instead of once per member.
   */
  int assignedMembers(PodGroup group, Pod except) {
    String exceptUid = except == null ? null : except.getMetadata().getUid();
    NodeInfoLister snapshot = handle.snapshotLister();
    long version = snapshot.version();
    List<Pod> listed = members.named(group.namespace(), group.name());
    // read before the reserved map: a change after this read makes the count stale, and then it is not reused
    long reservedNow = reservedVersion.get();
    AssignedCount count = lastCount;
    if (version < 0 || count == null || !count.matches(group.ref(), listed, snapshot, version, reservedNow)) {
      count = AssignedCount.of(group.ref(), listed, snapshot, version, reservedNow, reserved);
      memberCounts.incrementAndGet();
      if (version >= 0) {
        lastCount = count;
      }
    }
    return count.excluding(exceptUid);
  }

  private static Optional<Status> tooFewMembers(PodGroup group, MemberSummary summary) {
    int counted = summary.counted();
    if (counted >= group.minMember()) {
      return Optional.empty();
    }
    int gatedCount = summary.gated();
    return Optional.of(Status.unresolvable("PodGroup \"" + group.key() + "\" has " + counted + " of its minMember "
        + group.minMember() + " pods: " + (group.minMember() - counted) + " missing"
        + (gatedCount > 0 ? " (" + gatedCount + " gated pods do not count)" : "")));
  }

  // ---------------------------------------------------------------- PodGroupPlugin

  @Override
  public Optional<PodGroupRef> podGroupOf(Pod pod) {
    return quietGroup(pod).map(g -> new PodGroupRef(g.namespace(), g.name(), g.minMember()));
  }

  @Override
  public List<Pod> members(PodGroupRef group) {
    return members.named(group.namespace(), group.name());
  }

  /** The {@code maxGroupCycleMembers} arg: larger groups are placed in chunks (see {@link CoschedulingArgs}). */
  @Override
  public int maxGroupCycleMembers() {
    return args.maxGroupCycleMembers();
  }

  // ---------------------------------------------------------------- Sign

  /**
   * Every pod, member or not, signs with no fragment of its own: this plugin's only Filter-time verdict is PreFilter's,
   * which depends on the pod's group and never on the node, and PreFilter runs before the batch is consulted. So, as
   * with upstream 1.36's GangScheduling (which has no Filter or Score and so takes no part in signing), gang pods batch
   * like any others and a profile with Coscheduling keeps batching for pods outside groups.
   */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.none();
  }

  // ---------------------------------------------------------------- QueueSort

  @Override
  public boolean less(QueuedPodInfo a, QueuedPodInfo b) {
    int p1 = PrioritySort.podPriority(a.pod());
    int p2 = PrioritySort.podPriority(b.pod());
    if (p1 != p2) {
      return p1 > p2;
    }
    SortKeys.Key ka = sortKeys.of(a.pod());
    SortKeys.Key kb = sortKeys.of(b.pod());
    PodGroup g1 = sortGroup(ka);
    PodGroup g2 = sortGroup(kb);
    Instant t1 = g1 != null ? g1.creationTimestamp() : queuedSince(a);
    Instant t2 = g2 != null ? g2.creationTimestamp() : queuedSince(b);
    if (!t1.equals(t2)) {
      return t1.isBefore(t2);
    }
    String k1 = g1 != null ? sortKeys.groupKey(ka, g1) : ka.podKey();
    String k2 = g2 != null ? sortKeys.groupKey(kb, g2) : kb.podKey();
    int byKey = k1.compareTo(k2);
    if (byKey != 0) {
      return byKey < 0;
    }
    return ka.podKey().compareTo(kb.podKey()) < 0;
  }

  /** The gang ordering {@code k}'s pod, looked up afresh; null when none (a missing or malformed one too). */
  private PodGroup sortGroup(SortKeys.Key k) {
    if (k.ref() == null) {
      return null;
    }
    try {
      return groupOf(k.pod(), k.ref()).orElse(null);
    } catch (GroupProblem e) {
      return null;
    }
  }

  private static Instant queuedSince(QueuedPodInfo p) {
    return p.initialAttemptTimestamp().orElse(p.timestamp());
  }

  /** The group for ordering: a missing or malformed one orders the pod as if it had none. */
  private Optional<PodGroup> quietGroup(Pod pod) {
    try {
      return groupOf(pod);
    } catch (GroupProblem e) {
      return Optional.empty();
    }
  }

  // ---------------------------------------------------------------- PreEnqueue

  @Override
  public Status preEnqueue(Pod pod) {
    try {
      Optional<PodGroup> group = groupOf(pod);
      if (group.isEmpty()) {
        return Status.SUCCESS;
      }
      return tooFewMembers(group.get(), summary(group.get(), false)).orElse(Status.SUCCESS);
    } catch (GroupProblem e) {
      return Status.unresolvable(e.getMessage());
    }
  }

  // ---------------------------------------------------------------- PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    PreFilterResult result = preFilterGroup(pod, nodes);
    if (!result.status().isSuccess()) {
      state.write(PRE_FILTER_REJECTED, REJECTED);
    }
    return result;
  }

  private PreFilterResult preFilterGroup(Pod pod, List<NodeInfo> nodes) {
    PodGroup group;
    try {
      Optional<PodGroup> g = groupOf(pod);
      if (g.isEmpty()) {
        return PreFilterResult.SUCCESS;
      }
      group = g.get();
    } catch (GroupProblem e) {
      return PreFilterResult.of(Status.unresolvable(e.getMessage()));
    }
    Instant until = backoffs.get(group.key());
    if (until != null) {
      if (clock.instant().isBefore(until)) {
        return PreFilterResult.of(Status.unresolvable("PodGroup \"" + group.key() + "\" failed recently and backs "
            + "off until " + until));
      }
      backoffs.remove(group.key(), until);
    }
    MemberSummary summary = summary(group, true);
    Optional<Status> tooFew = tooFewMembers(group, summary);
    if (tooFew.isPresent()) {
      return PreFilterResult.of(tooFew.get());
    }
    Map<String, Long> required = group.minResources().isEmpty() ? summary.requests() : group.minResources();
    List<String> short_ = capacityShortfalls(group, required, nodes);
    if (!short_.isEmpty()) {
      return PreFilterResult.of(Status.unresolvable("PodGroup \"" + group.key() + "\" does not fit the cluster's "
          + "free capacity (" + (group.minResources().isEmpty() ? "requests of " + group.minMember() + " members"
          : "minResources") + "): " + String.join("; ", short_)));
    }
    return PreFilterResult.SUCCESS;
  }

  /**
   * {@link GroupCapacity#shortfalls}, computed once per snapshot version (and requirement): a group cycle's members
   * all see the same answer, because the members it placed before them count as free.
   */
  private List<String> capacityShortfalls(PodGroup group, Map<String, Long> required, List<NodeInfo> nodes) {
    GroupStates.State state = states.of(group.ref());
    long version = handle.snapshotLister().version();
    GroupStates.CapacityVerdict cached = state.capacity;
    if (version >= 0 && cached != null && cached.version() == version && cached.required().equals(required)) {
      return cached.shortfalls();
    }
    List<String> shortfalls = GroupCapacity.shortfalls(required, nodes, state.nodes);
    if (version >= 0) {
      state.capacity = new GroupStates.CapacityVerdict(version, Map.copyOf(required), List.copyOf(shortfalls));
    }
    return shortfalls;
  }

  // ---------------------------------------------------------------- PostFilter

  @Override
  public PostFilterResult postFilter(CycleState state, Pod pod, NodeToStatus filteredNodeStatus) {
    if (state.read(PRE_FILTER_REJECTED, StateData.class).isPresent()) {
      // The group was rejected as a whole before Filter (backoff, members, capacity): nothing waits for it.
      return PostFilterResult.of(Status.unschedulable("PodGroup of pod \"" + podKey(pod) + "\" was rejected at "
          + "PreFilter"));
    }
    PodGroup group;
    try {
      Optional<PodGroup> g = groupOf(pod);
      if (g.isEmpty()) {
        return PostFilterResult.of(Status.unschedulable("pod \"" + podKey(pod) + "\" belongs to no PodGroup"));
      }
      group = g.get();
    } catch (GroupProblem e) {
      return PostFilterResult.of(Status.unschedulable(e.getMessage()));
    }
    int assigned = assignedMembers(group, pod);
    if (assigned >= group.minMember()) {
      return PostFilterResult.of(Status.unschedulable("PodGroup \"" + group.key() + "\" already has " + assigned
          + " members placed"));
    }
    double notAssigned = (double) (group.minMember() - assigned) / group.minMember();
    if (notAssigned <= NOT_ASSIGNED_TOLERANCE) {
      return PostFilterResult.of(Status.unschedulable("PodGroup \"" + group.key() + "\" is within "
          + (int) (NOT_ASSIGNED_TOLERANCE * 100) + "% of minMember; its waiting members keep waiting"));
    }
    String why = "PodGroup \"" + group.key() + "\" rejected: member \"" + podKey(pod)
        + "\" is unschedulable even after PostFilter";
    rejectGroup(group, why);
    return PostFilterResult.of(Status.unschedulable(why));
  }

  // ---------------------------------------------------------------- Permit

  @Override
  public PermitResult permit(CycleState state, Pod pod, String nodeName) {
    PodGroup group;
    try {
      Optional<PodGroup> g = groupOf(pod);
      if (g.isEmpty()) {
        return PermitResult.ALLOW;
      }
      group = g.get();
    } catch (GroupProblem e) {
      return PermitResult.of(Status.unschedulable(e.getMessage()));
    }
    int assigned = assignedMembers(group, pod);
    if (assigned + 1 >= group.minMember()) {
      cancelTimer(group.key());
      handle.iterateOverWaitingPods(w -> {
        if (inGroup(w.pod(), group)) {
          w.allow(NAME);
        }
      });
      LOG.debug("PodGroup {}: {} members assumed, allowing its waiting members", group.key(), assigned + 1);
      // complete: its members need no more capacity checks (a late member's recomputes what it needs)
      states.remove(group.ref());
      return PermitResult.ALLOW;
    }
    Duration timeout = Duration.ofSeconds(group.scheduleTimeoutSeconds().orElse(args.permitWaitingTimeSeconds()));
    groupTimers.computeIfAbsent(group.key(), k -> timers.schedule(() -> timedOut(group, timeout),
        timeout.toNanos(), TimeUnit.NANOSECONDS));
    activatePending(group.ref());
    return PermitResult.waitFor(timeout.plus(BACKSTOP));
  }

  private void timedOut(PodGroup group, Duration timeout) {
    groupTimers.remove(group.key());
    int waiting = waitingMembers(group).size();
    rejectGroup(group, "PodGroup \"" + group.key() + "\" timed out after " + timeout.toSeconds() + "s waiting for "
        + "minMember " + group.minMember() + " (" + waiting + " members waiting)");
  }

  private void cancelTimer(String key) {
    ScheduledFuture<?> timer = groupTimers.remove(key);
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private List<WaitingPod> waitingMembers(PodGroup group) {
    List<WaitingPod> out = new ArrayList<>();
    handle.iterateOverWaitingPods(w -> {
      if (inGroup(w.pod(), group)) {
        out.add(w);
      }
    });
    return out;
  }

  /** Rejects every waiting member of {@code group} in one step and backs the group off. */
  private void rejectGroup(PodGroup group, String why) {
    cancelTimer(group.key());
    backOff(group);
    for (WaitingPod w : waitingMembers(group)) {
      w.reject(NAME, why);
    }
  }

  private void backOff(PodGroup group) {
    if (args.podGroupBackoffSeconds() <= 0) {
      return;
    }
    Duration backoff = Duration.ofSeconds(args.podGroupBackoffSeconds());
    Instant now = clock.instant();
    Instant until = backoffs.merge(group.key(), now.plus(backoff), (current, next) -> current.isAfter(now) ? current
        : next);
    if (!until.equals(now.plus(backoff))) {
      return; // already backing off: a rejection during the backoff does not extend it
    }
    timers.schedule(() -> activatePending(group.ref()), backoff.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /** Activates the members of scheduler-plugins' PodGroup {@code namespace/name} not yet on a node. */
  void activatePending(String namespace, String name) {
    activatePending(new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, namespace, name));
  }

  /** Activates the group's members that are not yet on a node (they may now pass PreEnqueue or PreFilter). */
  void activatePending(GroupRef group) {
    List<Pod> pending = new ArrayList<>();
    for (Pod p : members.of(group)) {
      if ((p.getSpec() == null || p.getSpec().getNodeName() == null || p.getSpec().getNodeName().isEmpty())) {
        pending.add(p);
      }
    }
    if (!pending.isEmpty()) {
      handle.activate(pending);
    }
  }

  // ---------------------------------------------------------------- Reserve

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    if (GroupRef.of(pod).isPresent()) {
      reserved.put(pod.getMetadata().getUid(), nodeName);
      reservedVersion.incrementAndGet();
    }
    return Status.SUCCESS;
  }

  /** A bound member counts through its {@code spec.nodeName} from now on. */
  @Override
  public void postBind(CycleState state, Pod pod, String nodeName) {
    unreserved(pod);
  }

  private void unreserved(Pod pod) {
    if (reserved.remove(pod.getMetadata().getUid()) != null) {
      reservedVersion.incrementAndGet();
    }
  }

  /** How many times a group's assigned members were counted afresh rather than reused (for tests). */
  long memberCounts() {
    return memberCounts.get();
  }

  /** How many member summaries were computed afresh rather than reused (for tests). */
  long summaries() {
    return summaries.get();
  }

  /** How many members are reserved and not yet bound (for tests). */
  int reservedMembers() {
    return reserved.size();
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    unreserved(pod);
    Optional<PodGroup> group = quietGroup(pod);
    if (group.isEmpty()) {
      return;
    }
    List<WaitingPod> others = new ArrayList<>();
    for (WaitingPod w : waitingMembers(group.get())) {
      if (!Objects.equals(w.pod().getMetadata().getUid(), pod.getMetadata().getUid())) {
        others.add(w);
      }
    }
    if (others.isEmpty()) {
      cancelTimer(group.get().key());
      return;
    }
    rejectGroup(group.get(), "PodGroup \"" + group.get().key() + "\" rejected: member \"" + podKey(pod)
        + "\" was unreserved");
  }

  // ---------------------------------------------------------------- EnqueueExtensions

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // PodGroup adds and updates come from the plugin's own informer, which activates the group's pods.
    return List.of(
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD, ActionType.ADD), Coscheduling::siblingAdded),
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD, ActionType.DELETE),
            Coscheduling::assignedPodDeleted),
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE,
            ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE)));
  }

  /** A new pod helps a held member only if it joins the same group. */
  static QueueingHint siblingAdded(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Pod added)) {
      return QueueingHint.QUEUE;
    }
    Optional<GroupRef> group = GroupRef.of(pod);
    return group.isPresent() && group.equals(GroupRef.of(added)) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /** A deleted pod frees capacity only if it was on a node. */
  static QueueingHint assignedPodDeleted(Pod pod, Object oldObj, Object newObj) {
    if (!(oldObj instanceof Pod deleted)) {
      return QueueingHint.QUEUE;
    }
    return deleted.getSpec() != null && deleted.getSpec().getNodeName() != null
        && !deleted.getSpec().getNodeName().isEmpty() ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }
}
