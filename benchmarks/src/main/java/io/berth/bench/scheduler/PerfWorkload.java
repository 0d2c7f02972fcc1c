package io.berth.bench.scheduler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * A scheduler_perf workload: how many nodes (and their zones), how many pods are scheduled first
 * and how many are measured, and how each kind of pod is shaped, following scheduler_perf's
 * templates (pod-default, pod-with-topology-spreading, pod-with-node-affinity,
 * pod-with-pod-anti-affinity, pod-with-pod-affinity, pod-low-priority, pod-high-priority), and
 * optionally a churn pod created every {@code churnInterval} while the measured pods are
 * scheduled (null when there is none), whether the profile keeps PodTopologySpread's system
 * default constraints (true but for the batching workloads), whether the init pods are created
 * already bound (round-robin over the nodes, as a cluster already running them; they are then not
 * scheduled) and the objects the plugins' listers hold (ReplicaSets, Services; none but for
 * DefaultSpreading). Immutable.
 */
record PerfWorkload(String name, int nodes, IntFunction<String> zoneOf, int initPods,
    UnaryOperator<PodBuilder> initPod, int measuredPods, UnaryOperator<PodBuilder> measuredPod,
    UnaryOperator<PodBuilder> churnPod, Duration churnInterval, boolean defaultSpreading,
    boolean initBound, List<HasMetadata> objects) {

  PerfWorkload(String name, int nodes, IntFunction<String> zoneOf, int initPods,
      UnaryOperator<PodBuilder> initPod, int measuredPods, UnaryOperator<PodBuilder> measuredPod) {
    this(name, nodes, zoneOf, initPods, initPod, measuredPods, measuredPod, null, null, true,
        false, List.of());
  }

  PerfWorkload(String name, int nodes, IntFunction<String> zoneOf, int initPods,
      UnaryOperator<PodBuilder> initPod, int measuredPods, UnaryOperator<PodBuilder> measuredPod,
      UnaryOperator<PodBuilder> churnPod, Duration churnInterval) {
    this(name, nodes, zoneOf, initPods, initPod, measuredPods, measuredPod, churnPod,
        churnInterval, true, false, List.of());
  }

  /**
   * A batching workload (KEP-5598): no init pods and the profile's PodTopologySpread without
   * default constraints ({@code defaultingType: List}), upstream's documented prerequisite
   * for OpportunisticBatching (default spreading makes every pod unsignable).
   */
  private static PerfWorkload batching(String name, int nodes, int measuredPods,
      UnaryOperator<PodBuilder> pod) {
    return new PerfWorkload(name, nodes, i -> null, 0, b -> b, measuredPods, pod, null, null,
        false, false, List.of());
  }

  /** Each pod asks for the node's whole 4 cpu: one pod per node (the 5,000 x 5,000). */
  static PerfWorkload batchingWholeNode(int nodes, int measuredPods) {
    return batching("BatchingWholeNode", nodes, measuredPods, b -> cpu(b, "4"));
  }

  /** Each pod asks for host port 8080: one pod per node through NodePorts. */
  static PerfWorkload batchingHostPortConflict(int nodes, int measuredPods) {
    return batching("BatchingHostPortConflict", nodes, measuredPods, b -> hostPort(b, 8080));
  }

  /**
   * Each pod asks for 2 of the node's 4 cpu: two per node, so a node the previous pod went to
   * still fits the next one every other cycle (node_not_full), the limit of the batching rule.
   */
  static PerfWorkload batchingResourceSaturation(int nodes, int measuredPods) {
    return batching("BatchingResourceSaturation", nodes, measuredPods, b -> cpu(b, "2"));
  }

  /**
   * Whole-node pods whose host port alternates between 8080 and 8081 pod by pod: no two
   * consecutive pods share a signature (pod_incompatible), so batching never hits and what is
   * left is its cost.
   */
  static PerfWorkload batchingAlternatingSignatures(int nodes, int measuredPods) {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    return batching("BatchingAlternatingSignatures", nodes, measuredPods,
        b -> hostPort(cpu(b, "4"), n.getAndIncrement() % 2 == 0 ? 8080 : 8081));
  }

  private static PodBuilder hostPort(PodBuilder b, int port) {
    return b.editSpec().editFirstContainer().addNewPort().withContainerPort(port)
        .withHostPort(port).endPort().endContainer().endSpec();
  }

  static final String ZONE = "topology.kubernetes.io/zone";
  static final String HOSTNAME = "kubernetes.io/hostname";

  static PerfWorkload schedulingBasic(int nodes, int initPods, int measuredPods) {
    return new PerfWorkload("SchedulingBasic", nodes, i -> null, initPods, b -> b, measuredPods,
        b -> b);
  }

  /** Measured pods spread over three zones with maxSkew 5 (DoNotSchedule). */
  static PerfWorkload topologySpreading(int nodes, int initPods, int measuredPods) {
    String[] zones = {"moon-1", "moon-2", "moon-3"};
    return new PerfWorkload("TopologySpreading", nodes, i -> zones[i % 3], initPods, b -> b,
        measuredPods, b -> b.editMetadata().addToLabels("color", "blue").endMetadata().editSpec()
            .addToTopologySpreadConstraints(new TopologySpreadConstraintBuilder().withMaxSkew(5)
                .withTopologyKey(ZONE).withWhenUnsatisfiable("DoNotSchedule")
                .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("color", "blue")
                    .build()).build())
            .endSpec());
  }

  /**
   * The shape of the simulator's {@code large.yaml}: nodes in three zones already running the init
   * pods (bound round-robin, ~20 a node at 5,000 nodes and 100,000 pods) of one ReplicaSet, then
   * the measured pods of a second ReplicaSet (a Deployment's, with its pod-template-hash label)
   * scheduled through the default profile, whose PodTopologySpread system default constraints
   * (hostname and zone, ScheduleAnyway) count the pods of the measured pods' ReplicaSet.
   */
  static PerfWorkload defaultSpreading(int nodes, int initPods, int measuredPods) {
    String[] zones = {"zone-a", "zone-b", "zone-c"};
    return new PerfWorkload("DefaultSpreading", nodes, i -> zones[i % 3], initPods,
        b -> owned(b, "batch", "5d8f7c9b4"), measuredPods, b -> owned(b, "web", "6c7d9f8b5"),
        null, null, true, true, List.of(replicaSet("batch", "5d8f7c9b4"),
            replicaSet("web", "6c7d9f8b5")));
  }

  /** A pod of ReplicaSet {@code app-hash}, labelled as the Deployment controller labels it. */
  private static PodBuilder owned(PodBuilder b, String app, String hash) {
    return b.editMetadata().addToLabels("app", app).addToLabels("pod-template-hash", hash)
        .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet")
        .withName(app + "-" + hash).withUid(app + "-" + hash + "-uid").withController(true)
        .endOwnerReference().endMetadata();
  }

  private static ReplicaSet replicaSet(String app, String hash) {
    return new ReplicaSetBuilder().withNewMetadata().withNamespace("perf")
        .withName(app + "-" + hash).withUid(app + "-" + hash + "-uid").endMetadata()
        .withNewSpec().withNewSelector().addToMatchLabels("app", app)
        .addToMatchLabels("pod-template-hash", hash).endSelector().endSpec().build();
  }

  /** Measured pods require a zone every node has (In zone1, zone2). */
  static PerfWorkload nodeAffinity(int nodes, int initPods, int measuredPods) {
    return new PerfWorkload("SchedulingNodeAffinity", nodes, i -> "zone1", initPods, b -> b,
        measuredPods, b -> b.editSpec().withNewAffinity().withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
            .addNewMatchExpression().withKey(ZONE).withOperator("In").withValues("zone1", "zone2")
            .endMatchExpression().endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
            .endSpec());
  }

  /** Every pod (init and measured) repels the others by hostname. */
  static PerfWorkload podAntiAffinity(int nodes, int initPods, int measuredPods) {
    UnaryOperator<PodBuilder> shape = b -> b.editMetadata().addToLabels("color", "green")
        .endMetadata().editSpec().withNewAffinity().withNewPodAntiAffinity()
        .addNewRequiredDuringSchedulingIgnoredDuringExecution().withTopologyKey(HOSTNAME)
        .withNamespaces("perf").withNewLabelSelector().addToMatchLabels("color", "green")
        .endLabelSelector().endRequiredDuringSchedulingIgnoredDuringExecution()
        .endPodAntiAffinity().endAffinity().endSpec();
    return new PerfWorkload("SchedulingPodAntiAffinity", nodes, i -> "zone1", initPods, shape,
        measuredPods, shape);
  }

  /** Every pod (init and measured) is attracted to the others by zone. */
  static PerfWorkload podAffinity(int nodes, int initPods, int measuredPods) {
    UnaryOperator<PodBuilder> shape = b -> b.editMetadata().addToLabels("color", "blue")
        .endMetadata().editSpec().withNewAffinity().withNewPodAffinity()
        .addNewRequiredDuringSchedulingIgnoredDuringExecution().withTopologyKey(ZONE)
        .withNamespaces("perf").withNewLabelSelector().addToMatchLabels("color", "blue")
        .endLabelSelector().endRequiredDuringSchedulingIgnoredDuringExecution()
        .endPodAffinity().endAffinity().endSpec();
    return new PerfWorkload("SchedulingPodAffinity", nodes, i -> "zone1", initPods, shape,
        measuredPods, shape);
  }

  /** pod-low-priority: 900m cpu, no priority (0), deleted at once (grace period 0). */
  static PodBuilder lowPriority(PodBuilder b) {
    return cpu(b, "900m").editSpec().withTerminationGracePeriodSeconds(0L).endSpec();
  }

  /** pod-high-priority: 3000m cpu, priority 10; on a 4-cpu node of four low pods it preempts 3. */
  static PodBuilder highPriority(PodBuilder b) {
    return cpu(b, "3000m").editSpec().withPriority(10).endSpec();
  }

  private static PodBuilder cpu(PodBuilder b, String cpu) {
    return b.editSpec().editFirstContainer().editResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec();
  }

  /**
   * Nodes full of low-priority pods (four of 900m each on 4 cpu), then measured high-priority pods
   * that each must preempt three of them.
   */
  static PerfWorkload preemptionBasic(int nodes, int initPods, int measuredPods) {
    return new PerfWorkload("PreemptionBasic", nodes, i -> null, initPods,
        PerfWorkload::lowPriority, measuredPods, PerfWorkload::highPriority);
  }

  /**
   * As PreemptionBasic's nodes, but the measured pods are pod-default (always schedulable) while a
   * high-priority preemptor arrives every 200 ms.
   */
  static PerfWorkload preemptionAsync(int nodes, int initPods, int measuredPods) {
    return new PerfWorkload("PreemptionAsync", nodes, i -> null, initPods,
        PerfWorkload::lowPriority, measuredPods, b -> b, PerfWorkload::highPriority,
        Duration.ofMillis(200));
  }

  /** The workload named {@code name} with the given sizes. */
  static PerfWorkload named(String name, int nodes, int initPods, int measuredPods) {
    return switch (name) {
      case "SchedulingBasic" -> schedulingBasic(nodes, initPods, measuredPods);
      case "TopologySpreading" -> topologySpreading(nodes, initPods, measuredPods);
      case "DefaultSpreading" -> defaultSpreading(nodes, initPods, measuredPods);
      case "SchedulingNodeAffinity" -> nodeAffinity(nodes, initPods, measuredPods);
      case "SchedulingPodAntiAffinity" -> podAntiAffinity(nodes, initPods, measuredPods);
      case "SchedulingPodAffinity" -> podAffinity(nodes, initPods, measuredPods);
      case "PreemptionBasic" -> preemptionBasic(nodes, initPods, measuredPods);
      case "PreemptionAsync" -> preemptionAsync(nodes, initPods, measuredPods);
      case "BatchingWholeNode" -> batchingWholeNode(nodes, measuredPods);
      case "BatchingHostPortConflict" -> batchingHostPortConflict(nodes, measuredPods);
      case "BatchingResourceSaturation" -> batchingResourceSaturation(nodes, measuredPods);
      case "BatchingAlternatingSignatures" -> batchingAlternatingSignatures(nodes, measuredPods);
      default -> throw new IllegalArgumentException("unknown workload " + name + "; known:"
          + " SchedulingBasic, TopologySpreading, DefaultSpreading, SchedulingNodeAffinity,"
          + " SchedulingPodAntiAffinity, SchedulingPodAffinity, PreemptionBasic,"
          + " PreemptionAsync, BatchingWholeNode, BatchingHostPortConflict,"
          + " BatchingResourceSaturation, BatchingAlternatingSignatures");
    };
  }
}
