package io.berth.plugins.nodeaffinity;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTermBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Builders for the NodeAffinity tests' pods, nodes and terms. */
final class NodeAffinityFixtures {
  private NodeAffinityFixtures() {}

  static NodeSelectorRequirement req(String key, String op, String... values) {
    return new NodeSelectorRequirementBuilder().withKey(key).withOperator(op)
        .withValues(Arrays.asList(values)).build();
  }

  static NodeSelectorRequirement nameIn(String... nodes) {
    return req("metadata.name", "In", nodes);
  }

  static NodeSelectorTerm exprs(NodeSelectorRequirement... requirements) {
    return new NodeSelectorTermBuilder().withMatchExpressions(requirements).build();
  }

  static NodeSelectorTerm fields(NodeSelectorRequirement... requirements) {
    return new NodeSelectorTermBuilder().withMatchFields(requirements).build();
  }

  static NodeSelectorTerm term(List<NodeSelectorRequirement> exprs,
      List<NodeSelectorRequirement> fields) {
    return new NodeSelectorTermBuilder().withMatchExpressions(exprs).withMatchFields(fields)
        .build();
  }

  static PreferredSchedulingTerm preferred(int weight, NodeSelectorTerm term) {
    return new PreferredSchedulingTermBuilder().withWeight(weight).withPreference(term).build();
  }

  static Pod pod() {
    return new PodBuilder().withNewMetadata().withName("p").withNamespace("default")
        .withUid("uid-p").endMetadata().withNewSpec().endSpec().build();
  }

  static Pod withSelector(Pod pod, Map<String, String> selector) {
    return new PodBuilder(pod).editSpec().withNodeSelector(selector).endSpec().build();
  }

  /** The pod with required node affinity made of {@code terms}. */
  static Pod required(Pod pod, NodeSelectorTerm... terms) {
    return new PodBuilder(pod).editSpec().withAffinity(new AffinityBuilder()
        .withNodeAffinity(new NodeAffinityBuilder()
            .withRequiredDuringSchedulingIgnoredDuringExecution(
                new NodeSelectorBuilder().withNodeSelectorTerms(terms).build())
            .build())
        .build()).endSpec().build();
  }

  static Pod required(NodeSelectorTerm... terms) {
    return required(pod(), terms);
  }

  /** A pod with preferred node affinity made of {@code terms}. */
  static Pod preferring(PreferredSchedulingTerm... terms) {
    return new PodBuilder(pod()).editSpec().withAffinity(new AffinityBuilder()
        .withNodeAffinity(new NodeAffinityBuilder()
            .withPreferredDuringSchedulingIgnoredDuringExecution(terms).build()).build())
        .endSpec().build();
  }

  static Node node(String name, Map<String, String> labels) {
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .build();
  }

  /** Plugin args enforcing one required term through {@code addedAffinity}. */
  static Map<String, Object> addedRequired(Map<String, Object> term) {
    return Map.of("addedAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution",
        Map.of("nodeSelectorTerms", List.of(term))));
  }

  /** pluginConfig args with one {@code addedAffinity} preferred term. */
  static Map<String, Object> addedPreferred(int weight, Map<String, Object> preference) {
    return Map.of("addedAffinity", Map.of("preferredDuringSchedulingIgnoredDuringExecution",
        List.of(Map.of("weight", weight, "preference", preference))));
  }

  /** A YAML-like requirement map. */
  static Map<String, Object> reqMap(String key, String op, String... values) {
    return Map.of("key", key, "operator", op, "values", List.of(values));
  }
}
