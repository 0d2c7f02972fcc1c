package io.berth.embedded;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.Map;

/** Objects the embedded cluster tests create. */
final class Fixtures {

  private Fixtures() {
  }

  static Pod pod(String name) {
    return pod(name, Map.of("app", "test"));
  }

  static Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("nginx:1.27").endContainer().endSpec().build();
  }

  static Pod podRequesting(String name, String cpu) {
    return new PodBuilder(pod(name)).editSpec().editFirstContainer().withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec().build();
  }

  static Pod boundPod(String name, String node) {
    return new PodBuilder(pod(name)).editSpec().withNodeName(node).endSpec().build();
  }

  static Deployment deployment(String name, int replicas) {
    return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("nginx:1.27").endContainer().endSpec()
        .endTemplate().endSpec().build();
  }
}
