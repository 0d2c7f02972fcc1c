package io.berth.informer;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/** Test pods. */
final class Pods {
  private Pods() {}

  static Pod pod(String namespace, String name, String resourceVersion) {
    return new PodBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).withResourceVersion(resourceVersion).endMetadata()
        .build();
  }

  static Pod pod(String namespace, String name, String resourceVersion, String nodeName) {
    return new PodBuilder(pod(namespace, name, resourceVersion)).withNewSpec().withNodeName(nodeName).endSpec().build();
  }

  static String nodeName(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
  }
}
