package io.berth.plugins.defaultpreemption;

import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pods, nodes and budgets as upstream's preemption tests build them ({@code st.MakePod()...}),
 * with the same resource sizes and priorities. Stateless.
 */
final class PreemptionFixtures {
  static final int NEG = -100;
  static final int LOW = 0;
  static final int MID = 100;
  static final int HIGH = 1000;
  static final int VERY_HIGH = 10000;

  static final Map<String, String> SMALL = Map.of("cpu", "100m", "memory", "100");
  static final Map<String, String> MEDIUM = Map.of("cpu", "200m", "memory", "200");
  static final Map<String, String> LARGE = Map.of("cpu", "300m", "memory", "300");
  static final Map<String, String> VERY_LARGE = Map.of("cpu", "500m", "memory", "500");
  static final Map<String, String> ONE_POD = Map.of("pods", "1");

  private PreemptionFixtures() {}

  /** A pod fixture; {@link TestPod#obj()} builds it. */
  static TestPod pod(String name) {
    return new TestPod(name);
  }

  /** Upstream's {@code Capacity}: allocatable as given, 32 pods unless given. */
  static Node node(String name, Map<String, String> capacity, Map<String, String> labels) {
    Map<String, Quantity> alloc = new LinkedHashMap<>();
    alloc.put("pods", new Quantity("32"));
    capacity.forEach((k, v) -> alloc.put(k, new Quantity(v)));
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .withNewStatus().withAllocatable(alloc).withCapacity(alloc).endStatus().build();
  }

  static Node node(String name, Map<String, String> capacity) {
    return node(name, capacity, Map.of());
  }

  /** NodeInfos of {@code nodes} holding the pods bound to each of them. */
  static List<NodeInfo> nodeInfos(List<Node> nodes, List<Pod> pods) {
    List<NodeInfo> out = new ArrayList<>();
    for (Node n : nodes) {
      Pod[] on = pods.stream()
          .filter(p -> n.getMetadata().getName().equals(p.getSpec().getNodeName()))
          .toArray(Pod[]::new);
      out.add(NodeInfo.of(n, on));
    }
    return out;
  }

  /**
   * Nodes named "name" or "name/zone" as upstream's dry-run tests: the parts become the labels
   * {@code hostname} and {@code zone}; capacity is {@link #VERY_LARGE}.
   */
  static List<Node> topologyNodes(String... specs) {
    List<Node> out = new ArrayList<>();
    String[] keys = {"hostname", "zone", "region"};
    for (String spec : specs) {
      String[] parts = spec.split("/");
      Map<String, String> labels = new LinkedHashMap<>();
      for (int i = 0; i < parts.length; i++) {
        labels.put(keys[i], parts[i]);
      }
      out.add(node(parts[0], VERY_LARGE, labels));
    }
    return out;
  }

  /** A budget selecting {@code app=<app>} with {@code disruptionsAllowed} and disrupted pods. */
  static PodDisruptionBudget pdb(String namespace, String key, String value, int allowed,
      String... disruptedPods) {
    Map<String, String> disrupted = new LinkedHashMap<>();
    for (String p : disruptedPods) {
      disrupted.put(p, Instant.EPOCH.toString());
    }
    return new PodDisruptionBudgetBuilder().withNewMetadata().withName("pdb-" + key + "-" + value)
        .withNamespace(namespace).endMetadata()
        .withNewSpec().withSelector(new LabelSelectorBuilder().addToMatchLabels(key, value).build())
        .endSpec()
        .withNewStatus().withDisruptionsAllowed(allowed).withDisruptedPods(disrupted).endStatus()
        .build();
  }

  /** A fluent pod description, as upstream's pod wrapper. */
  static final class TestPod {
    private final PodBuilder b;
    private final Map<String, Quantity> requests = new LinkedHashMap<>();

    TestPod(String name) {
      b = new PodBuilder().withNewMetadata().withName(name).withUid(name).endMetadata()
          .withNewSpec().withSchedulerName("default-scheduler").endSpec();
    }

    TestPod uid(String uid) {
      b.editMetadata().withUid(uid).endMetadata();
      return this;
    }

    TestPod namespace(String ns) {
      b.editMetadata().withNamespace(ns).endMetadata();
      return this;
    }

    TestPod label(String key, String value) {
      b.editMetadata().addToLabels(key, value).endMetadata();
      return this;
    }

    TestPod node(String nodeName) {
      b.editSpec().withNodeName(nodeName).endSpec();
      return this;
    }

    TestPod priority(int priority) {
      b.editSpec().withPriority(priority).endSpec();
      return this;
    }

    TestPod req(Map<String, String> resources) {
      resources.forEach((k, v) -> requests.put(k, new Quantity(v)));
      return this;
    }

    /** Started {@code seconds} after the epoch (upstream uses nanoseconds; order is the same). */
    TestPod startTime(int seconds) {
      b.editOrNewStatus().withStartTime(Instant.ofEpochSecond(seconds).toString()).endStatus();
      return this;
    }

    TestPod preemptionPolicy(String policy) {
      b.editSpec().withPreemptionPolicy(policy).endSpec();
      return this;
    }

    TestPod nominatedNodeName(String nodeName) {
      b.editOrNewStatus().withNominatedNodeName(nodeName).endStatus();
      return this;
    }

    TestPod terminating() {
      b.editMetadata().withDeletionTimestamp(Instant.EPOCH.toString()).endMetadata();
      return this;
    }

    TestPod condition(String type, String status, String reason) {
      b.editOrNewStatus().addNewCondition().withType(type).withStatus(status).withReason(reason)
          .endCondition().endStatus();
      return this;
    }

    TestPod antiAffinityExists(String labelKey, String topologyKey) {
      b.editSpec().withNewAffinity().withNewPodAntiAffinity()
          .addNewRequiredDuringSchedulingIgnoredDuringExecution()
          .withNewLabelSelector().addNewMatchExpression().withKey(labelKey).withOperator("Exists")
          .endMatchExpression().endLabelSelector().withTopologyKey(topologyKey)
          .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
          .endSpec();
      return this;
    }

    /** A DoNotSchedule spread constraint over pods having label {@code labelKey}. */
    TestPod spreadConstraint(int maxSkew, String topologyKey, String labelKey) {
      b.editSpec().addNewTopologySpreadConstraint().withMaxSkew(maxSkew)
          .withTopologyKey(topologyKey).withWhenUnsatisfiable("DoNotSchedule")
          .withNewLabelSelector().addNewMatchExpression().withKey(labelKey).withOperator("Exists")
          .endMatchExpression().endLabelSelector().endTopologySpreadConstraint().endSpec();
      return this;
    }

    Pod obj() {
      return b.editSpec().addNewContainer().withName("c").withImage("registry.k8s.io/pause:3.9")
          .withNewResources().withRequests(requests).endResources().endContainer().endSpec()
          .build();
    }
  }
}
