package io.berth.scheduler.cache;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.util.HashMap;
import java.util.Map;

/** Nodes and pods for the cache tests. Stateless. */
final class CacheTestObjects {
  private CacheTestObjects() {}

  /** A node with 4 cpus, 8Gi, 110 pods, in {@code zone} (no zone labels when null). */
  static Node node(String name, String zone) {
    Map<String, String> labels = new HashMap<>();
    labels.put("kubernetes.io/hostname", name);
    if (zone != null) {
      labels.put(NodeTree.LABEL_TOPOLOGY_REGION, "region-1");
      labels.put(NodeTree.LABEL_TOPOLOGY_ZONE, zone);
    }
    return new NodeBuilder()
        .withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .withNewStatus()
        .addToAllocatable("cpu", new Quantity("4"))
        .addToAllocatable("memory", new Quantity("8Gi"))
        .addToAllocatable("pods", new Quantity("110"))
        .endStatus()
        .build();
  }

  static Node node(String name) {
    return node(name, null);
  }

  /** {@code node} reporting images, each given as "name:sizeBytes". */
  static Node withImages(Node node, String... images) {
    NodeBuilder b = new NodeBuilder(node);
    for (String image : images) {
      String[] parts = image.split(":");
      b.editStatus()
          .addToImages(new ContainerImageBuilder().withNames(parts[0])
              .withSizeBytes(Long.parseLong(parts[1])).build())
          .endStatus();
    }
    return b.build();
  }

  /** A pod bound (or to be bound) to {@code nodeName} requesting milli-cpu and MiB of memory. */
  static Pod pod(String name, String nodeName, long milliCpu, long memoryMib) {
    return new PodBuilder()
        .withNewMetadata().withNamespace("default").withName(name).withUid("uid-" + name)
        .addToLabels("app", "web").endMetadata()
        .withNewSpec().withNodeName(nodeName)
        .addToContainers(new ContainerBuilder().withName("c").withImage("nginx")
            .withNewResources()
            .addToRequests("cpu", new Quantity(milliCpu + "m"))
            .addToRequests("memory", new Quantity(memoryMib + "Mi"))
            .endResources().build())
        .endSpec()
        .build();
  }

  /** The same pod (same UID) on another node. */
  static Pod onNode(Pod pod, String nodeName) {
    return new PodBuilder(pod).editSpec().withNodeName(nodeName).endSpec().build();
  }

  /** {@code pod} with a preferred pod-affinity term (any affinity term counts). */
  static Pod withAffinity(Pod pod) {
    return new PodBuilder(pod).editSpec().withNewAffinity().withNewPodAffinity()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(10)
        .withPodAffinityTerm(term()).endPreferredDuringSchedulingIgnoredDuringExecution()
        .endPodAffinity().endAffinity().endSpec().build();
  }

  /** {@code pod} with a required pod-anti-affinity term. */
  static Pod withRequiredAntiAffinity(Pod pod) {
    return new PodBuilder(pod).editSpec().withNewAffinity().withNewPodAntiAffinity()
        .addToRequiredDuringSchedulingIgnoredDuringExecution(term())
        .endPodAntiAffinity().endAffinity().endSpec().build();
  }

  /** {@code pod} mounting the PVC {@code claimName}. */
  static Pod withPvc(Pod pod, String claimName) {
    return new PodBuilder(pod).editSpec()
        .addToVolumes(new VolumeBuilder().withName("data").withNewPersistentVolumeClaim()
            .withClaimName(claimName).endPersistentVolumeClaim().build())
        .endSpec().build();
  }

  private static io.fabric8.kubernetes.api.model.PodAffinityTerm term() {
    return new PodAffinityTermBuilder().withTopologyKey("kubernetes.io/hostname")
        .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("app", "db").build())
        .build();
  }
}
