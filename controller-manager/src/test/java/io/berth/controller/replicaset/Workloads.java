package io.berth.controller.replicaset;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.Map;

/** Helpers for integration tests: ReplicaSets labelled {@code app=<name>}, scaling, reading their pods. */
final class Workloads {

  private Workloads() {
  }

  static ReplicaSetBuilder replicaSet(String namespace, String name, int replicas) {
    return new ReplicaSetBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build())
        .withNewTemplate()
        .withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
        .withNewSpec().addNewContainer().withName("c").withImage("nginx:1.27").endContainer()
        .withTerminationGracePeriodSeconds(1L).endSpec()
        .endTemplate()
        .endSpec();
  }

  static ReplicaSet create(KubernetesClient client, ReplicaSet rs) {
    return client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace()).resource(rs).create();
  }

  /** Sets spec.replicas with a merge patch (no resourceVersion precondition, so no conflict with status writes). */
  static void scale(KubernetesClient client, String namespace, String name, int replicas) {
    client.apps().replicaSets().inNamespace(namespace).withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"replicas\":" + replicas + "}}");
  }

  static ReplicaSet get(KubernetesClient client, String namespace, String name) {
    return client.apps().replicaSets().inNamespace(namespace).withName(name).get();
  }

  /** The pods labelled {@code app=<name>} that are not terminating (a LIST: not for the no-LIST test). */
  static List<Pod> activePods(KubernetesClient client, String namespace, String name) {
    return client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  static int orZero(Integer i) {
    return i == null ? 0 : i;
  }

  static long orZero(Long l) {
    return l == null ? 0 : l;
  }
}
