package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which group a pod names and in which API: scheduler-plugins' {@code scheduling.x-k8s.io/v1alpha1} PodGroup
 * through the label {@value PodGroup#LABEL}, or kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2} PodGroup
 * through {@code spec.schedulingGroup.podGroupName} (fabric8 8.0's {@code PodSpec.getSchedulingGroup()}, the
 * pod's JSON field). When a pod carries both, the spec field wins (it is immutable, the label is not). An empty
 * {@code podGroupName} names no group. Immutable.
 *
 * @param api the API the group lives in
 * @param namespace the group's namespace (always the pod's)
 * @param name the group's name
 */
public record GroupRef(Api api, String namespace, String name) {

  /** The two group APIs the scheduler accepts. */
  public enum Api {
    /** {@code podgroups.scheduling.x-k8s.io/v1alpha1}, scheduler-plugins' Coscheduling. */
    SCHEDULER_PLUGINS("scheduling.x-k8s.io", "v1alpha1"),
    /** {@code podgroups.scheduling.k8s.io/v1alpha2}, kube-scheduler 1.36's Workload API. */
    WORKLOAD("scheduling.k8s.io", "v1alpha2");

    private final String group;
    private final String version;

    Api(String group, String version) {
      this.group = group;
      this.version = version;
    }

    public String group() {
      return group;
    }

    public String version() {
      return version;
    }

    public String apiVersion() {
      return group + "/" + version;
    }
  }

  public GroupRef {
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** {@code namespace/name}, as messages name the group. */
  public String key() {
    return namespace + "/" + name;
  }

  /** The group {@code pod} belongs to, if it names one. */
  public static Optional<GroupRef> of(Pod pod) {
    if (pod == null || pod.getMetadata() == null) {
      return Optional.empty();
    }
    String ns = pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
    Optional<String> workload = schedulingGroupName(pod);
    if (workload.isPresent()) {
      return Optional.of(new GroupRef(Api.WORKLOAD, ns, workload.get()));
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    String label = labels == null ? null : labels.get(PodGroup.LABEL);
    return label == null || label.isEmpty() ? Optional.empty()
        : Optional.of(new GroupRef(Api.SCHEDULER_PLUGINS, ns, label));
  }

  /** The ref naming a cached group object of either API; empty for any other kind of object. */
  public static Optional<GroupRef> of(GenericKubernetesResource r) {
    for (Api api : Api.values()) {
      if (api.apiVersion().equals(r.getApiVersion()) && PodGroup.KIND.equals(r.getKind())) {
        return Optional.of(new GroupRef(api, r.getMetadata().getNamespace(), r.getMetadata().getName()));
      }
    }
    return Optional.empty();
  }

  /** {@code spec.schedulingGroup.podGroupName}, if set to a non-empty string. */
  static Optional<String> schedulingGroupName(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getSchedulingGroup() == null) {
      return Optional.empty();
    }
    String name = pod.getSpec().getSchedulingGroup().getPodGroupName();
    return name == null || name.isEmpty() ? Optional.empty() : Optional.of(name);
  }
}
