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
 * Thread-safe: the one shared field, the last formatted timestamp, is an immutable value behind a volatile.
 */
final class PerfObjects {
  private PerfObjects() {}

  static Node node(String name, String zone) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("kubernetes.io/hostname", name).withUid(uid())
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
        .withUid(uid()).withResourceVersion("1")
        .withCreationTimestamp(creationTimestamp()).endMetadata()
        .withNewSpec().withSchedulerName("default-scheduler").addNewContainer().withName("pause")
        .withImage("registry.k8s.io/pause:3.10").withNewResources()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("500Mi"))
        .endResources().endContainer().endSpec()
        .withNewStatus().withPhase("Pending").endStatus();
    return customize.apply(b).build();
  }

  // the last second formatted, shared by the threads that build pods (a stale read formats again)
  private static volatile Stamp lastStamp = new Stamp(Long.MIN_VALUE, "");

  private record Stamp(long epochSecond, String text) {}

  /**
   * Now as the API server writes {@code creationTimestamp}: RFC 3339 to the second. One formatting per second, not
   * per pod: the harness builds thousands of pods a second, and formatting each one made {@code Instant.toString} one
   * of the cold run's longest C2 compilations, taken from the scheduler's warm-up.
   */
  /**
   * A random uid as the API server gives each object. Not {@code UUID.randomUUID()}: its SecureRandom's SHA code was
   * among the cold run's C2 compilations, and uniqueness within one run is all the harness needs.
   */
  static String uid() {
    java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }

  static String creationTimestamp() {
    long second = Instant.now().getEpochSecond();
    Stamp stamp = lastStamp;
    if (stamp.epochSecond() != second) {
      stamp = new Stamp(second, Instant.ofEpochSecond(second).toString());
      lastStamp = stamp;
    }
    return stamp.text();
  }
}
