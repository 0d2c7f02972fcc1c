package io.berth.scheduler.queue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Quantity;

/** Pending pods for queue tests. Stateless. */
final class TestPods {
  static final String PROFILE = "default-scheduler";

  private TestPods() { }

  /** A pending pod {@code default/name} with UID {@code uid-name} in the default profile. */
  static PodBuilder pod(String name) {
    return new PodBuilder()
        .withNewMetadata().withNamespace("default").withName(name).withUid("uid-" + name)
        .withResourceVersion("1").endMetadata()
        .withNewSpec().withSchedulerName(PROFILE).addNewContainer().withName("c")
        .withImage("pause").endContainer().endSpec()
        .withNewStatus().withPhase("Pending").endStatus();
  }

  static Pod named(String name) {
    return pod(name).build();
  }

  static Pod withPriority(String name, int priority) {
    return pod(name).editSpec().withPriority(priority).endSpec().build();
  }

  static Pod gated(String name, String gate) {
    return pod(name).editSpec().withSchedulingGates(new PodSchedulingGate(gate)).endSpec().build();
  }

  static Pod nominated(String name, String node) {
    return pod(name).editStatus().withNominatedNodeName(node).endStatus().build();
  }

  static Pod requesting(String name, String cpu) {
    return pod(name).editSpec().editFirstContainer().withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec().build();
  }

  /** The same pod with a label added and a new resourceVersion. */
  static Pod relabeled(Pod pod, String key, String value) {
    return new PodBuilder(pod).editMetadata().addToLabels(key, value)
        .withResourceVersion(nextVersion(pod)).endMetadata().build();
  }

  /** The same pod with a status condition changed and a new resourceVersion: no spec change. */
  static Pod statusChanged(Pod pod, String message) {
    return new PodBuilder(pod).editMetadata().withResourceVersion(nextVersion(pod)).endMetadata()
        .editStatus().withMessage(message).endStatus().build();
  }

  static Pod ungated(Pod pod) {
    return new PodBuilder(pod).editMetadata().withResourceVersion(nextVersion(pod)).endMetadata()
        .editSpec().withSchedulingGates().endSpec().build();
  }

  static Pod withNominatedNode(Pod pod, String node) {
    return new PodBuilder(pod).editMetadata().withResourceVersion(nextVersion(pod)).endMetadata()
        .editStatus().withNominatedNodeName(node).endStatus().build();
  }

  private static String nextVersion(Pod pod) {
    return String.valueOf(Long.parseLong(pod.getMetadata().getResourceVersion()) + 1);
  }
}
