package io.berth.controller.podgroup;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A PodGroup of either API as a work-queue key: {@code scheduling.x-k8s.io/ns/name} for scheduler-plugins'
 * {@code v1alpha1} PodGroup, {@code scheduling.k8s.io/ns/name} for kube-scheduler 1.36's {@code v1alpha2} PodGroup.
 * Also says which group a pod joins: the label {@value #LABEL} (scheduler-plugins) or
 * {@code spec.schedulingGroup.podGroupName} (1.36, which wins when both are set). Immutable.
 *
 * @param api the API group of the PodGroup
 * @param namespace its namespace (always its pods')
 * @param name its name
 */
record GroupKey(Api api, String namespace, String name) {

  /** The label that joins a pod to a scheduler-plugins PodGroup. */
  static final String LABEL = "scheduling.x-k8s.io/pod-group";

  /** The two PodGroup APIs. */
  enum Api {
    SCHEDULER_PLUGINS("scheduling.x-k8s.io", "v1alpha1"),
    WORKLOAD("scheduling.k8s.io", "v1alpha2");

    final String group;
    final String version;

    Api(String group, String version) {
      this.group = group;
      this.version = version;
    }

    String apiVersion() {
      return group + "/" + version;
    }
  }

  GroupKey {
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** {@code <api group>/<namespace>/<name>}. */
  String encode() {
    return api.group + "/" + namespace + "/" + name;
  }

  /** {@code namespace/name}. */
  String objectKey() {
    return namespace + "/" + name;
  }

  /** Reads {@link #encode()}'s form; empty for anything else. */
  static Optional<GroupKey> decode(String key) {
    for (Api api : Api.values()) {
      String prefix = api.group + "/";
      if (key.startsWith(prefix)) {
        String rest = key.substring(prefix.length());
        int slash = rest.indexOf('/');
        if (slash > 0 && slash < rest.length() - 1) {
          return Optional.of(new GroupKey(api, rest.substring(0, slash), rest.substring(slash + 1)));
        }
      }
    }
    return Optional.empty();
  }

  /** The group {@code pod} joins, if any. */
  static Optional<GroupKey> of(Pod pod) {
    if (pod == null || pod.getMetadata() == null || pod.getMetadata().getNamespace() == null) {
      return Optional.empty();
    }
    String ns = pod.getMetadata().getNamespace();
    if (pod.getSpec() != null && pod.getSpec().getSchedulingGroup() != null) {
      String name = pod.getSpec().getSchedulingGroup().getPodGroupName();
      if (name != null && !name.isEmpty()) {
        return Optional.of(new GroupKey(Api.WORKLOAD, ns, name));
      }
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    String label = labels == null ? null : labels.get(LABEL);
    return label == null || label.isEmpty() ? Optional.empty()
        : Optional.of(new GroupKey(Api.SCHEDULER_PLUGINS, ns, label));
  }
}
