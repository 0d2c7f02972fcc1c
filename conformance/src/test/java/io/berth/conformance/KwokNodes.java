package io.berth.conformance;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Nodes for kwok to play the kubelet of (annotation {@code kwok.x-k8s.io/node=fake}, as conformance/up's kwok
 * selects): created with capacity in their status, as {@code conformance/nodes} prints them; kwok then makes them
 * Ready and runs their pods. Stateless.
 */
final class KwokNodes {

  static final String ANNOTATION = "kwok.x-k8s.io/node";

  private KwokNodes() {}

  /** A node with {@code cpu} cores, {@code memory} and 110 pods, labelled {@code labels}. */
  static Node node(String name, String cpu, String memory, Map<String, String> labels) {
    Map<String, Quantity> capacity = Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory), "pods",
        new Quantity("110"));
    return new NodeBuilder().withNewMetadata().withName(name).addToAnnotations(ANNOTATION, "fake")
        .addToLabels("kubernetes.io/hostname", name).addToLabels("kubernetes.io/os", "linux")
        .addToLabels("kubernetes.io/arch", "amd64").addToLabels("type", "kwok").addToLabels(labels).endMetadata()
        .withNewStatus().withCapacity(capacity).withAllocatable(capacity).withNewNodeInfo().withArchitecture("amd64")
        .withOperatingSystem("linux").withKubeletVersion("fake").endNodeInfo().endStatus().build();
  }

  /**
   * The taints kube-controller-manager's node lifecycle controller puts on a node it has not yet seen Ready; they
   * outlive the Ready condition until its next monitor pass, and a scheduler started in between filters the node out.
   */
  private static final Set<String> LIFECYCLE_TAINTS = Set.of("node.kubernetes.io/not-ready",
      "node.kubernetes.io/unreachable");

  /**
   * Creates the nodes and waits until kwok has made each Ready and the node lifecycle controller has lifted its
   * not-ready and unreachable taints (the schedulers compared must see the same feasible nodes).
   */
  static void createReady(KubernetesClient admin, Node... nodes) {
    for (Node node : nodes) {
      admin.nodes().resource(node).create();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      for (Node node : nodes) {
        Node now = admin.nodes().withName(node.getMetadata().getName()).get();
        if (now == null || now.getStatus().getConditions() == null || now.getStatus().getConditions().stream()
            .noneMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"))) {
          return false;
        }
        if (now.getSpec() != null && now.getSpec().getTaints() != null && now.getSpec().getTaints().stream()
            .anyMatch(t -> LIFECYCLE_TAINTS.contains(t.getKey()))) {
          return false;
        }
      }
      return true;
    });
  }

  /** Deletes the nodes (their pods are then the pod garbage collector's). */
  static void delete(KubernetesClient admin, Node... nodes) {
    for (Node node : nodes) {
      admin.nodes().withName(node.getMetadata().getName()).delete();
    }
  }
}
