package io.berth.bench.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * scheduler_perf's object templates: node-default (4 cpu, 32Gi, 110 pods, a hostname label and
 * optionally a zone) and pod-default (one container requesting 100m cpu and 500Mi memory).
 * Stateless.
 */
final class PerfObjects {
  private PerfObjects() {}

  static Node node(String name, String zone) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("kubernetes.io/hostname", name).withUid(UUID.randomUUID().toString())
        .withResourceVersion("1").endMetadata()
        .withNewStatus()
        .addToCapacity("cpu", new Quantity("4")).addToCapacity("memory", new Quantity("32Gi"))
        .addToCapacity("pods", new Quantity("110"))
        .addToAllocatable("cpu", new Quantity("4")).addToAllocatable("memory", new Quantity("32Gi"))
        .addToAllocatable("pods", new Quantity("110"))
        .addNewCondition().withType("Ready").withStatus("True").endCondition()
        .endStatus();
    if (zone != null) {
      b.editMetadata().addToLabels("topology.kubernetes.io/zone", zone).endMetadata();
    }
    return b.build();
  }

  static Pod pod(String namespace, String name, UnaryOperator<PodBuilder> customize) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name)
        .withUid(UUID.randomUUID().toString()).withResourceVersion("1")
        .withCreationTimestamp(Instant.now().toString()).endMetadata()
        .withNewSpec().withSchedulerName("default-scheduler").addNewContainer().withName("pause")
        .withImage("registry.k8s.io/pause:3.10").withNewResources()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("500Mi"))
        .endResources().endContainer().endSpec()
        .withNewStatus().withPhase("Pending").endStatus();
    return customize.apply(b).build();
  }
}
