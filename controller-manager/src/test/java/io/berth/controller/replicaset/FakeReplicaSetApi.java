package io.berth.controller.replicaset;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link ReplicaSetApi} answering from a map, recording status writes and GETs, failing status writes from a
 * queue of errors. Thread-safe: concurrent map and copy-on-write lists; the failure queue is guarded by itself.
 */
final class FakeReplicaSetApi implements ReplicaSetApi {

  final Map<String, ReplicaSet> server = new ConcurrentHashMap<>();
  final List<ReplicaSet> statusWrites = new CopyOnWriteArrayList<>();
  final List<String> gets = new CopyOnWriteArrayList<>();
  private final Deque<KubernetesClientException> statusFailures = new ArrayDeque<>();

  void put(ReplicaSet rs) {
    server.put(rs.getMetadata().getNamespace() + "/" + rs.getMetadata().getName(), rs);
  }

  void failNextStatusWrite(KubernetesClientException e) {
    synchronized (statusFailures) {
      statusFailures.add(e);
    }
  }

  @Override
  public Optional<ReplicaSet> get(String namespace, String name) {
    gets.add(namespace + "/" + name);
    return Optional.ofNullable(server.get(namespace + "/" + name));
  }

  @Override
  public ReplicaSet updateStatus(ReplicaSet rs) {
    statusWrites.add(rs);
    synchronized (statusFailures) {
      if (!statusFailures.isEmpty()) {
        throw statusFailures.poll();
      }
    }
    ReplicaSet written = new ReplicaSetBuilder(rs).build();
    put(written);
    return written;
  }
}
