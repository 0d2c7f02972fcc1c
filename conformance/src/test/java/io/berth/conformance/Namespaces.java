package io.berth.conformance;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/**
 * Test namespaces on the real server. Unlike the embedded cluster, a real API server's ServiceAccount admission
 * refuses pods in a namespace until kube-controller-manager's serviceaccount controller has created its
 * {@code default} ServiceAccount, so {@link #create} waits for it. Stateless.
 */
final class Namespaces {

  private Namespaces() {}

  /** Creates {@code name} and waits for its {@code default} ServiceAccount. */
  static void create(KubernetesClient admin, String name) {
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    await().atMost(Duration.ofSeconds(60))
        .until(() -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
  }

  /** Deletes {@code name} (the namespace controller empties it). */
  static void delete(KubernetesClient admin, String name) {
    admin.namespaces().withName(name).delete();
  }
}
