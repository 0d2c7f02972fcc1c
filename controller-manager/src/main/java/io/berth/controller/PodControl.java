package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/**
 * How a workload controller creates, deletes and patches pods (upstream's {@code PodControlInterface}), recording the
 * matching Events on the owner. An interface so that tests can count, gate or fail the calls. Implementations are
 * thread-safe: a sync calls them from many threads at once (slow-start batches, parallel deletions).
 */
public interface PodControl {

  String SUCCESSFUL_CREATE = "SuccessfulCreate";
  String FAILED_CREATE = "FailedCreate";
  String SUCCESSFUL_DELETE = "SuccessfulDelete";
  String FAILED_DELETE = "FailedDelete";

  /**
   * Creates one pod from {@code template} in {@code namespace}, named {@code <owner>-<random>}, controlled by
   * {@code controllerRef}; records {@code SuccessfulCreate} or {@code FailedCreate} on {@code owner}.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException with the API error when the create fails
   * @throws IllegalArgumentException if {@code controllerRef} is incomplete or the template has no labels
   */
  void createPods(String namespace, PodTemplateSpec template, HasMetadata owner, OwnerReference controllerRef);

  /**
   * Deletes the pod {@code namespace/podName}; records {@code SuccessfulDelete} or {@code FailedDelete} on
   * {@code owner}.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException a 404 when the pod is already gone (no event),
   *     otherwise the API error with the message {@code unable to delete pods: ...}
   */
  void deletePod(String namespace, String podName, HasMetadata owner);

  /** Applies a strategic merge patch to the pod (adoption and release). */
  void patchPod(String namespace, String name, String strategicMergePatch);
}
