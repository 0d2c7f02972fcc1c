package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.node;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.PodInfo;
import io.berth.framework.PodStatusPatch;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreemptionReport;
import io.berth.framework.Status;
import io.berth.framework.runtime.DefaultParallelizer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * PreemptionBasic's shape through the whole PostFilter (potential nodes from the statuses, the sampled dry run from an
 * offset, the pick, the victims deleted): 200 nodes of 4 cpu, each full with 4 low-priority pods of 900m started at
 * distinct times; every 7th node already has a nominated preemptor (so the dry run fails there), every 11th was
 * rejected for good by Filter (so it is no potential node); the preemptor asks for 3000m. The expected candidates,
 * chosen node and victims come from a model of upstream's rules written here, independently of the code under test:
 * on a free node the oldest pod is reprieved and the 3 others are the victims; the candidates are the first 100
 * potential nodes from the offset that can be freed; all tie on PDB violations, priorities and victim counts, so the
 * node whose victims' earliest start is latest wins.
 */
class PreemptionBasicOutcomeTest {
  private static final int NODES = 200;
  private static final int LOW = 10;
  private static final int HIGH = 10_000;
  private static final DefaultParallelizer PARALLEL = new DefaultParallelizer(16);

  @AfterAll
  static void stop() {
    PARALLEL.close();
  }

  /** The cluster: node names, the low pods per node (oldest first) and the nominated preemptors by node. */
  private record Cluster(List<Node> nodes, Map<String, List<Pod>> podsByNode, Map<String, List<PodInfo>> nominated,
      NodeToStatus statuses) {}

  private static Cluster cluster(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < NODES * 4; i++) {
      starts.add(1_000 + i);
    }
    Collections.shuffle(starts, new java.util.Random(seed));
    List<Node> nodes = new ArrayList<>();
    Map<String, List<Pod>> podsByNode = new HashMap<>();
    Map<String, List<PodInfo>> nominated = new HashMap<>();
    NodeToStatus statuses = new NodeToStatus();
    for (int n = 0; n < NODES; n++) {
      String name = "node-" + n;
      nodes.add(node(name, Map.of("cpu", "4", "memory", "32Gi")));
      List<Pod> pods = new ArrayList<>();
      for (int j = 0; j < 4; j++) {
        pods.add(pod("low-" + n + "-" + j).namespace("default").node(name).priority(LOW)
            .req(Map.of("cpu", "900m", "memory", "100")).startTime(starts.get(n * 4 + j)).obj());
      }
      pods.sort(Comparator.comparing(p -> p.getStatus().getStartTime()));
      podsByNode.put(name, pods);
      if (n % 7 == 3) {
        nominated.put(name, List.of(PodInfo.of(pod("waiting-" + n).namespace("default").priority(HIGH)
            .req(Map.of("cpu", "3000m", "memory", "100")).nominatedNodeName(name).obj())));
      }
      statuses.set(name, n % 11 == 5 ? Status.unresolvable("node(s) had untolerated taint")
          : Status.unschedulable("Insufficient cpu"));
    }
    // an equal status set again, as the scheduling cycle does for a node it tried first
    statuses.set("node-" + random.nextInt(NODES), Status.unschedulable("Insufficient cpu"));
    statuses.set("node-5", Status.unresolvable("node(s) had untolerated taint"));
    return new Cluster(nodes, podsByNode, nominated, statuses);
  }

  /** What the model expects: the candidate nodes in dry-run order, the chosen node and its victims. */
  private record Expected(List<String> candidates, String chosen, List<String> victims) {}

  private static Expected model(Cluster c, int offset, int numCandidates) {
    List<String> potential = new ArrayList<>();
    for (Node n : c.nodes()) {
      String name = n.getMetadata().getName();
      if (c.statuses().get(name).code() == io.berth.framework.Code.UNSCHEDULABLE) {
        potential.add(name);
      }
    }
    List<String> candidates = new ArrayList<>();
    for (int i = 0; i < potential.size() && candidates.size() < numCandidates; i++) {
      String name = potential.get((offset + i) % potential.size());
      if (!c.nominated().containsKey(name)) {
        candidates.add(name);
      }
    }
    String chosen = null;
    String latest = null;
    for (String name : candidates) {
      // victims: all but the oldest; their earliest start is the second oldest pod's
      String earliestVictim = c.podsByNode().get(name).get(1).getStatus().getStartTime();
      if (latest == null || earliestVictim.compareTo(latest) > 0) {
        latest = earliestVictim;
        chosen = name;
      }
    }
    List<String> victims = c.podsByNode().get(chosen).subList(1, 4).stream()
        .map(p -> p.getMetadata().getName()).toList();
    return new Expected(candidates, chosen, victims);
  }

  /** Deletions and patches recorded; thread-safe (synchronized list). */
  private static final class RecordingPodApi implements PodApi {
    final List<String> deleted = Collections.synchronizedList(new ArrayList<>());

    @Override
    public boolean patchStatus(Pod pod, PodStatusPatch patch) {
      return true;
    }

    @Override
    public boolean delete(Pod pod) {
      deleted.add(pod.getMetadata().getName());
      return true;
    }
  }

  private static PreemptionRuntime runtime(Cluster c, int offset, Map<String, Object> args, RecordingPodApi api,
      boolean parallel) {
    List<Pod> all = c.podsByNode().values().stream().flatMap(List::stream).toList();
    PreemptionRuntime.Builder b = PreemptionRuntime.builder().fit().nodes(nodeInfos(c.nodes(), all))
        .nominator(node -> c.nominated().getOrDefault(node, List.of())).offsets(n -> offset).args(args)
        .podApi(api);
    if (parallel) {
      b.parallelizer(PARALLEL);
    }
    return b.build();
  }

  private static Pod preemptor() {
    return pod("high-0").namespace("default").priority(HIGH).req(Map.of("cpu", "3000m", "memory", "100")).obj();
  }

  @Test
  void sampledDryRunFindsTheModelsCandidatesNodeAndVictims() {
    for (long seed = 1; seed <= 3; seed++) {
      Cluster c = cluster(seed);
      int offset = (int) (seed * 37 % 150);
      RecordingPodApi api = new RecordingPodApi();
      PreemptionRuntime rt = runtime(c, offset, Map.of(), api, false);
      Pod preemptor = preemptor();
      CycleState state = rt.preFiltered(preemptor);

      PostFilterResult r = rt.plugin.postFilter(state, preemptor, c.statuses());

      Expected expected = model(c, offset, 100);
      assertThat(r.status()).as("seed %d", seed).isEqualTo(Status.SUCCESS);
      assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.override(expected.chosen()));
      PreemptionReport report = state.read(PreemptionReport.KEY, PreemptionReport.class).orElseThrow();
      assertThat(report.candidates()).extracting(PreemptionReport.Candidate::node)
          .as("seed %d", seed).containsExactlyElementsOf(expected.candidates());
      assertThat(report.candidates()).allMatch(k -> k.victims() == 3 && k.pdbViolations() == 0);
      assertThat(report.victims()).containsExactlyElementsOf(
          expected.victims().stream().map(v -> "default/" + v).toList());
      assertThat(api.deleted).containsExactlyInAnyOrderElementsOf(expected.victims());
    }
  }

  /** Every potential node evaluated on the parallelizer's threads: the same node and victims as the model. */
  @Test
  void everyNodeOnTheParallelizerGivesTheModelsNodeAndVictims() {
    for (long seed = 7; seed <= 8; seed++) {
      Cluster c = cluster(seed);
      RecordingPodApi api = new RecordingPodApi();
      PreemptionRuntime rt = runtime(c, 11, Map.of("minCandidateNodesPercentage", 100), api, true);
      Pod preemptor = preemptor();
      CycleState state = rt.preFiltered(preemptor);

      PostFilterResult r = rt.plugin.postFilter(state, preemptor, c.statuses());

      Expected expected = model(c, 11, NODES);
      assertThat(r.nominatingInfo()).as("seed %d", seed).isEqualTo(NominatingInfo.override(expected.chosen()));
      PreemptionReport report = state.read(PreemptionReport.KEY, PreemptionReport.class).orElseThrow();
      assertThat(report.candidates()).extracting(PreemptionReport.Candidate::node)
          .containsExactlyInAnyOrderElementsOf(expected.candidates());
      assertThat(api.deleted).containsExactlyInAnyOrderElementsOf(expected.victims());
    }
  }
}
