package io.berth.controller.replicaset;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * The ReplicaSet calls a sync makes to the API server, all by name (never a LIST): a live GET (adoption recheck,
 * status retry) and the {@code /status} update. An interface so that unit tests can answer from fixtures.
 * Implementations are thread-safe.
 */
interface ReplicaSetApi {

  /** The ReplicaSet as the server has it now; empty if it does not exist. */
  Optional<ReplicaSet> get(String namespace, String name);

  /** Writes {@code rs.status} through the status subresource, with {@code rs}'s resourceVersion as precondition. */
  ReplicaSet updateStatus(ReplicaSet rs);

  /** The API server through {@code client}. */
  static ReplicaSetApi of(KubernetesClient client) {
    return new ReplicaSetApi() {
      @Override
      public Optional<ReplicaSet> get(String namespace, String name) {
        return Optional.ofNullable(client.apps().replicaSets().inNamespace(namespace).withName(name).get());
      }

      @Override
      public ReplicaSet updateStatus(ReplicaSet rs) {
        return client.apps().replicaSets().inNamespace(rs.getMetadata().getNamespace()).resource(rs).updateStatus();
      }
    };
  }
}
