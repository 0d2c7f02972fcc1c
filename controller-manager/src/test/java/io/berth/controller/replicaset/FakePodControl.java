package io.berth.controller.replicaset;

import io.berth.controller.PodControl;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A {@link PodControl} that records calls and fails the ones a predicate picks (by 1-based call number).
 * Thread-safe: copy-on-write lists and atomic counters.
 */
final class FakePodControl implements PodControl {

  record Create(String namespace, String owner, OwnerReference ref, PodTemplateSpec template) {
  }

  record Patch(String namespace, String name, String body) {
  }

  final List<Create> creates = new CopyOnWriteArrayList<>();
  final List<String> deletes = new CopyOnWriteArrayList<>();
  final List<Patch> patches = new CopyOnWriteArrayList<>();
  private final AtomicInteger createCalls = new AtomicInteger();
  private final AtomicInteger deleteCalls = new AtomicInteger();
  volatile IntPredicate failCreate = n -> false;
  volatile IntPredicate failDelete = n -> false;
  volatile int deleteFailureCode = 500;

  static KubernetesClientException apiError(int code, String message) {
    return new KubernetesClientException(new StatusBuilder().withStatus("Failure").withCode(code)
        .withMessage(message).build());
  }

  @Override
  public void createPods(String namespace, PodTemplateSpec template, HasMetadata owner, OwnerReference ref) {
    if (failCreate.test(createCalls.incrementAndGet())) {
      throw apiError(500, "etcdserver: request timed out");
    }
    creates.add(new Create(namespace, owner.getMetadata().getName(), ref, template));
  }

  @Override
  public void deletePod(String namespace, String podName, HasMetadata owner) {
    if (failDelete.test(deleteCalls.incrementAndGet())) {
      throw apiError(deleteFailureCode, "unable to delete pods: pods \"" + podName + "\" is forbidden");
    }
    deletes.add(namespace + "/" + podName);
  }

  @Override
  public void patchPod(String namespace, String name, String strategicMergePatch) {
    patches.add(new Patch(namespace, name, strategicMergePatch));
  }
}
