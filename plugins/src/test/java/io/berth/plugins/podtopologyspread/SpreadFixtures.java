package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import io.berth.framework.Handle;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pod and node builders in the shape of upstream's scheduler testing wrappers. */
final class SpreadFixtures {
  static final String DEFAULT_NAMESPACE = "default";
  static final String HOSTNAME = SpreadConstraint.LABEL_HOSTNAME;
  static final String ZONE = SpreadConstraint.LABEL_TOPOLOGY_ZONE;
  static final String DNS = ConstraintCompiler.DO_NOT_SCHEDULE;
  static final String ANYWAY = ConstraintCompiler.SCHEDULE_ANYWAY;
  static final String HONOR = ConstraintCompiler.HONOR;
  static final String IGNORE = ConstraintCompiler.IGNORE;
  static final Taint UNSCHEDULABLE_TAINT = new TaintBuilder()
      .withKey("node.kubernetes.io/unschedulable").withEffect("NoSchedule").build();

  private SpreadFixtures() {}

  static LabelSelector exists(String key) {
    return new LabelSelectorBuilder().addNewMatchExpression().withKey(key).withOperator("Exists")
        .endMatchExpression().build();
  }

  static LabelSelector fooSelector() {
    return exists("foo");
  }

  static LabelSelector barSelector() {
    return exists("bar");
  }

  static LabelSelector matchLabels(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return new LabelSelectorBuilder().withMatchLabels(m).build();
  }

  static PodWrapper pod(String name) {
    return new PodWrapper(name);
  }

  static NodeWrapper node(String name) {
    return new NodeWrapper(name);
  }

  /** NodeInfos for {@code nodes}, each holding the pods whose spec.nodeName names it. */
  static List<NodeInfo> nodeInfos(List<Node> nodes, List<Pod> pods) {
    List<NodeInfo> out = new ArrayList<>();
    for (Node n : nodes) {
      Pod[] onNode = pods.stream()
          .filter(p -> n.getMetadata().getName().equals(p.getSpec().getNodeName()))
          .toArray(Pod[]::new);
      out.add(NodeInfo.of(n, onNode));
    }
    return out;
  }

  static NodeInfo find(List<NodeInfo> infos, String name) {
    return infos.stream().filter(i -> i.nodeName().equals(name)).findFirst().orElseThrow();
  }

  static PodTopologySpread listPlugin(Handle handle) {
    return (PodTopologySpread) PodTopologySpread.create(Map.of("defaultingType", "List"), handle);
  }

  static PodTopologySpread systemPlugin(Handle handle) {
    return (PodTopologySpread) PodTopologySpread.create(Map.of(), handle);
  }

  /** A fluent pod builder; every pod gets a UID equal to its name unless set. */
  static final class PodWrapper {
    private final PodBuilder b;
    private final Map<String, String> labels = new LinkedHashMap<>();

    PodWrapper(String name) {
      b = new PodBuilder().withNewMetadata().withName(name).withUid(name)
          .withNamespace(DEFAULT_NAMESPACE).endMetadata().withNewSpec().endSpec();
    }

    PodWrapper label(String k, String v) {
      labels.put(k, v);
      return this;
    }

    PodWrapper namespace(String ns) {
      b.editMetadata().withNamespace(ns).endMetadata();
      return this;
    }

    PodWrapper uid(String uid) {
      b.editMetadata().withUid(uid).endMetadata();
      return this;
    }

    PodWrapper node(String nodeName) {
      b.editSpec().withNodeName(nodeName).endSpec();
      return this;
    }

    PodWrapper terminating() {
      b.editMetadata().withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata();
      return this;
    }

    PodWrapper toleration(String key) {
      b.editSpec().addToTolerations(new TolerationBuilder().withKey(key).withOperator("Exists")
          .build()).endSpec();
      return this;
    }

    PodWrapper nodeSelector(String k, String v) {
      b.editSpec().addToNodeSelector(k, v).endSpec();
      return this;
    }

    PodWrapper nodeAffinity(String key, String operator, String... values) {
      NodeSelectorRequirement r = new NodeSelectorRequirement(key, operator, List.of(values));
      b.editSpec().withNewAffinity().withNewNodeAffinity()
          .withNewRequiredDuringSchedulingIgnoredDuringExecution()
          .withNodeSelectorTerms(new NodeSelectorTermBuilder().withMatchExpressions(r).build())
          .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
          .endSpec();
      return this;
    }

    PodWrapper owner(String name, String apiVersion, String kind) {
      b.editMetadata().withOwnerReferences(new OwnerReferenceBuilder().withName(name)
          .withApiVersion(apiVersion).withKind(kind).withController(true).withUid(name + "-uid")
          .build()).endMetadata();
      return this;
    }

    PodWrapper spread(int maxSkew, String key, String action, LabelSelector selector) {
      return spread(maxSkew, key, action, selector, null, null, null);
    }

    PodWrapper spread(int maxSkew, String key, String action, LabelSelector selector,
        Integer minDomains, String affinityPolicy, String taintsPolicy, String... labelKeys) {
      b.editSpec().addToTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
          .withMaxSkew(maxSkew).withTopologyKey(key).withWhenUnsatisfiable(action)
          .withLabelSelector(selector).withMinDomains(minDomains)
          .withNodeAffinityPolicy(affinityPolicy).withNodeTaintsPolicy(taintsPolicy)
          .withMatchLabelKeys(labelKeys.length == 0 ? null : List.of(labelKeys)).build())
          .endSpec();
      return this;
    }

    Pod obj() {
      Pod p = b.build();
      p.getMetadata().setLabels(labels.isEmpty() ? null : new LinkedHashMap<>(labels));
      return p;
    }
  }

  /** A fluent node builder. */
  static final class NodeWrapper {
    private final String name;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final List<Taint> taints = new ArrayList<>();

    NodeWrapper(String name) {
      this.name = name;
    }

    NodeWrapper label(String k, String v) {
      labels.put(k, v);
      return this;
    }

    NodeWrapper taint(Taint t) {
      taints.add(t);
      return this;
    }

    Node obj() {
      return new NodeBuilder().withNewMetadata().withName(name).withLabels(Map.copyOf(labels))
          .endMetadata().withNewSpec().withTaints(List.copyOf(taints)).endSpec().build();
    }
  }
}
