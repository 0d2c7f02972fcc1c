package io.berth.plugins.topologyplacement;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.ObjectLister;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PodRequests;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.Resource;
import io.berth.framework.ReservePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.berth.plugins.coscheduling.GroupRef;
import io.berth.plugins.coscheduling.GroupResolver;
import io.berth.plugins.coscheduling.PodGroup;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Topology-aware group placement (KEP-5732's {@code TopologyPlacementGenerator} and placement scoring, as per-pod
 * extension points): the members of a group that names a topology key — a kube-scheduler 1.36 PodGroup's
 * {@code spec.schedulingConstraints.topology[0].key}, or a scheduler-plugins PodGroup's annotation
 * {@value PodGroup#TOPOLOGY_KEY_ANNOTATION} — are placed within one domain (one value) of that node label.
 *
 * <ul>
 *   <li>PreFilter picks the domain: the one already holding members (assumed or bound), else the group's earlier
 *       choice while it still holds minMember of the members left to place, else the best fit by
 *       {@link DomainPacking}'s rule; it narrows the cycle to that domain's nodes. When no domain holds minMember
 *       (1 for a basic group) the pod is Unschedulable with a message naming the largest domain and its free
 *       capacity (Unschedulable, not unresolvable: preemption or finishing pods may make room).
 *   <li>Filter rejects nodes outside the chosen domain (UnschedulableAndUnresolvable), also in preemption's dry
 *       runs.
 *   <li>Score packs the group: nodes that already run members get half the score, and the other half grows with
 *       the node's CPU and memory utilization after the pod is added.
 *   <li>Unreserve (a member rejected, for example by Coscheduling's timeout) drops the choice and marks the domain
 *       as tried, so the next attempt tries the other feasible domains first.
 * </ul>
 *
 * <p>Pods of no group, or of a group without a topology key, are skipped. The choice is made on the first member's
 * PreFilter and every later member sees it (or its placed siblings), so a group cycle that runs the members'
 * PreFilter and Filter one after another gets one domain too. Thread-safe: the groups come from the shared
 * {@link GroupResolver}, the choices from {@link PlacementChoices}; Filter and Score only read cycle state.
 */
public final class TopologyPlacement implements PreFilterPlugin, FilterPlugin, ScorePlugin, ReservePlugin,
    EnqueueExtensions, SignPlugin {
  public static final String NAME = "TopologyPlacement";

  private static final String STATE_KEY = "PreFilter" + NAME;

  private final PodGroupLister groups;
  private final ObjectLister<Pod> pods;
  private final PlacementChoices choices = new PlacementChoices();

  /** The chosen domain of a cycle's pod. */
  private record Chosen(GroupRef group, String key, String domain) implements StateData {
    @Override
    public StateData copy() {
      return this;
    }
  }

  TopologyPlacement(PodGroupLister groups, ObjectLister<Pod> pods) {
    this.groups = groups;
    this.pods = pods;
  }

  /** The factory registered for {@link #NAME}: takes no arguments; shares the groups' informers. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    if (args != null && !args.isEmpty()) {
      throw new IllegalArgumentException(NAME + " takes no arguments; got " + String.join(", ", args.keySet()));
    }
    PodGroupLister lister;
    try {
      lister = GroupResolver.shared(handle.client(), null);
    } catch (IllegalStateException noClient) {
      lister = PodGroupLister.EMPTY;
    }
    return new TopologyPlacement(lister, handle.lister(Pod.class));
  }

  /** As {@link #create(Map, Handle)} reading the groups from {@code groups} (an embedding without informers). */
  public static Plugin create(Map<String, Object> args, Handle handle, PodGroupLister groups) {
    if (args != null && !args.isEmpty()) {
      throw new IllegalArgumentException(NAME + " takes no arguments; got " + String.join(", ", args.keySet()));
    }
    return new TopologyPlacement(groups, handle.lister(Pod.class));
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The group of {@code pod} if it names a topology key; empty for every other pod (or a malformed group). */
  private Optional<PodGroup> topologyGroup(Pod pod) {
    Optional<GroupRef> ref = GroupRef.of(pod);
    if (ref.isEmpty()) {
      return Optional.empty();
    }
    try {
      return groups.get(ref.get()).filter(g -> g.topologyKey().isPresent());
    } catch (IllegalArgumentException malformed) {
      return Optional.empty(); // Coscheduling holds the pod and names the field
    }
  }

  @Override
  public SignResult signPod(Pod pod) {
    return topologyGroup(pod).isPresent()
        ? SignResult.unsignable("pod belongs to a group placed in one topology domain") : SignResult.none();
  }

  // ---------------------------------------------------------------- PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    Optional<PodGroup> g = topologyGroup(pod);
    if (g.isEmpty()) {
      return PreFilterResult.of(Status.skip());
    }
    PodGroup group = g.get();
    GroupRef ref = group.ref();
    String key = group.topologyKey().orElseThrow();
    Map<String, List<NodeInfo>> domains = DomainPacking.domains(key, nodes);
    if (domains.isEmpty()) {
      return PreFilterResult.of(Status.unresolvable("PodGroup \"" + group.key() + "\" is placed in one " + key
          + " domain, but no schedulable node has the label " + key));
    }
    Map<String, Integer> placed = DomainPacking.placed(key, nodes, p -> GroupRef.of(p).map(ref::equals)
        .orElse(false));
    String domain;
    if (!placed.isEmpty()) {
      domain = placed.entrySet().stream().max(Map.Entry.<String, Integer>comparingByValue()
          .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).orElseThrow().getKey();
      choices.settled(ref);
    } else {
      List<Pod> unplaced = unplacedMembers(group, pod, nodes);
      int required = group.gang() ? Math.min(group.minMember(), Math.max(1, unplaced.size())) : 1;
      Optional<String> earlier = choices.chosen(ref).filter(domains::containsKey);
      if (earlier.isPresent() && DomainPacking.rank(Map.of(earlier.get(), domains.get(earlier.get())), unplaced,
          nodes, Set.of()).get(0).held() >= required) {
        domain = earlier.get();
      } else {
        Set<String> failed = choices.failed(ref);
        List<DomainPacking.Fit> ranked = DomainPacking.rank(domains, unplaced, nodes, failed);
        Optional<DomainPacking.Fit> best = ranked.stream().filter(f -> f.held() >= required).findFirst();
        if (best.isEmpty()) {
          DomainPacking.Fit largest = DomainPacking.largest(ranked).orElseThrow();
          return PreFilterResult.of(Status.unschedulable("PodGroup \"" + group.key() + "\" needs one " + key
              + " domain for " + required + " of its " + unplaced.size() + " pods to place, and none can hold them:"
              + " the largest, \"" + largest.domain() + "\" (" + largest.nodes().size() + " nodes, "
              + DomainPacking.describe(largest.freeMilliCpu(), largest.freeMemory()) + " free), holds "
              + largest.held()));
        }
        domain = best.get().domain();
        if (failed.contains(domain)) {
          choices.forgetFailures(ref);
        }
        choices.choose(ref, domain);
      }
    }
    state.write(STATE_KEY, new Chosen(ref, key, domain));
    Set<String> names = new HashSet<>();
    for (NodeInfo n : domains.get(domain) == null ? List.<NodeInfo>of() : domains.get(domain)) {
      names.add(n.nodeName());
    }
    return names.isEmpty() ? PreFilterResult.of(Status.unschedulable("PodGroup \"" + group.key() + "\": its "
        + key + " domain \"" + domain + "\" has no schedulable node")) : PreFilterResult.nodes(names);
  }

  /**
   * The group's members not yet on a node of the snapshot: {@code pod} and its siblings in the lister that are not
   * being deleted, not gated, not bound and not assumed.
   */
  private List<Pod> unplacedMembers(PodGroup group, Pod pod, List<NodeInfo> nodes) {
    Set<String> onNodes = new HashSet<>();
    for (NodeInfo n : nodes) {
      for (PodInfo p : n.pods()) {
        onNodes.add(p.pod().getMetadata().getUid());
      }
    }
    Map<String, Pod> out = new java.util.LinkedHashMap<>();
    out.put(pod.getMetadata().getUid(), pod);
    for (Pod p : pods.list(group.namespace())) {
      boolean member = GroupRef.of(p).map(group.ref()::equals).orElse(false);
      boolean bound = p.getSpec() != null && p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty();
      boolean gated = p.getSpec() != null && p.getSpec().getSchedulingGates() != null
          && !p.getSpec().getSchedulingGates().isEmpty();
      if (member && !bound && !gated && p.getMetadata().getDeletionTimestamp() == null
          && !onNodes.contains(p.getMetadata().getUid())) {
        out.putIfAbsent(p.getMetadata().getUid(), p);
      }
    }
    return new ArrayList<>(out.values());
  }

  // ---------------------------------------------------------------- Filter

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Optional<Chosen> chosen = state.read(STATE_KEY, Chosen.class);
    if (chosen.isEmpty()) {
      return Status.SUCCESS;
    }
    Optional<String> here = DomainPacking.domainOf(chosen.get().key(), nodeInfo);
    if (here.isPresent() && here.get().equals(chosen.get().domain())) {
      return Status.SUCCESS;
    }
    return Status.unresolvable("node(s) are outside the " + chosen.get().key() + " domain \""
        + chosen.get().domain() + "\" of PodGroup \"" + chosen.get().group().key() + "\"");
  }

  // ---------------------------------------------------------------- Score

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Optional<Chosen> chosen = state.read(STATE_KEY, Chosen.class);
    if (chosen.isEmpty()) {
      return MIN_NODE_SCORE;
    }
    GroupRef ref = chosen.get().group();
    boolean siblings = false;
    for (PodInfo p : nodeInfo.pods()) {
      if (GroupRef.of(p.pod()).map(ref::equals).orElse(false)) {
        siblings = true;
        break;
      }
    }
    Resource alloc = nodeInfo.allocatable();
    Resource after = nodeInfo.requested().copy().add(PodRequests.of(pod));
    double cpu = alloc.milliCpu() <= 0 ? 0 : Math.min(1.0, (double) after.milliCpu() / alloc.milliCpu());
    double mem = alloc.memory() <= 0 ? 0 : Math.min(1.0, (double) after.memory() / alloc.memory());
    long packed = Math.round(MAX_NODE_SCORE / 2.0 * (cpu + mem) / 2);
    return (siblings ? MAX_NODE_SCORE / 2 : 0) + packed;
  }

  // ---------------------------------------------------------------- Reserve

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    return Status.SUCCESS;
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    state.read(STATE_KEY, Chosen.class).ifPresent(c -> choices.attemptFailed(c.group()));
  }

  // ---------------------------------------------------------------- EnqueueExtensions

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // a labelled or resized node may open a domain; a pod leaving a node frees room in one
    return List.of(
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE, ActionType.ADD
            | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE)),
        ClusterEventWithHint.always(new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)));
  }

  /** For tests: the remembered choices. */
  PlacementChoices choices() {
    return choices;
  }
}
