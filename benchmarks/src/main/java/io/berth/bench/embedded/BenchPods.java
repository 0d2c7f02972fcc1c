package io.berth.bench.embedded;

import io.berth.embedded.server.Json;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import tools.jackson.databind.node.ObjectNode;

/**
 * The objects every embedded API server benchmark creates: an unbound pod as a controller would create it (one
 * container with cpu and memory requests, two labels), as a fabric8 model for HTTP and as an object tree for the
 * in-process operations, and the Binding a scheduler posts. Stateless; thread-safe.
 */
final class BenchPods {

  private static final ObjectNode TREE = Json.toTree(pod("template"));

  private BenchPods() {
  }

  /** The name of the {@code i}-th pod a run creates. */
  static String name(String prefix, int i) {
    return String.format("%s-%06d", prefix, i);
  }

  static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "bench")
        .addToLabels("tier", "web").endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("nginx:1.27").withNewResources()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("64Mi")).endResources()
        .endContainer().endSpec().build();
  }

  /** A fresh tree of the pod named {@code name}; the caller owns it (the store takes ownership on create). */
  static ObjectNode tree(String name) {
    ObjectNode copy = TREE.deepCopy();
    Json.metadata(copy).put("name", name);
    return copy;
  }

  static Binding binding(String pod, String node) {
    return new BindingBuilder().withNewMetadata().withName(pod).endMetadata()
        .withNewTarget().withKind("Node").withApiVersion("v1").withName(node).endTarget().build();
  }
}
