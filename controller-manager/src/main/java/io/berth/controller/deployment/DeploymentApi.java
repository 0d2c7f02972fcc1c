package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * The API writes (and the one fresh read) of the Deployment controller: create, update and delete ReplicaSets,
 * write a Deployment's status (with its revision annotation, as upstream does through {@code UpdateStatus}), and a
 * live GET of a Deployment for the adoption recheck. Failures are the fabric8 client's exceptions. An interface so
 * that unit tests can answer from fixtures; the fabric8 implementation is stateless and thread-safe.
 */
interface DeploymentApi {

  Optional<Deployment> get(String namespace, String name);

  ReplicaSet createReplicaSet(ReplicaSet rs);

  /** PUT with the object's resourceVersion as precondition (409 when stale). */
  ReplicaSet updateReplicaSet(ReplicaSet rs);

  void deleteReplicaSet(ReplicaSet rs);

  /** PUT of {@code /status} with the object's resourceVersion as precondition. */
  Deployment updateStatus(Deployment d);

  static DeploymentApi of(KubernetesClient client) {
    return new DeploymentApi() {
      @Override
      public Optional<Deployment> get(String namespace, String name) {
        return Optional.ofNullable(client.apps().deployments().inNamespace(namespace).withName(name).get());
      }

      @Override
      public ReplicaSet createReplicaSet(ReplicaSet rs) {
        return client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace()).resource(rs).create();
      }

      @Override
      public ReplicaSet updateReplicaSet(ReplicaSet rs) {
        return client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace()).resource(rs).update();
      }

      @Override
      public void deleteReplicaSet(ReplicaSet rs) {
        client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace()).withName(rs.getMetadata().getName())
            .delete();
      }

      @Override
      public Deployment updateStatus(Deployment d) {
        return client.apps().deployments().inNamespace(d.getMetadata().getNamespace()).resource(d).updateStatus();
      }
    };
  }
}
