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
 * queue of errors and, when {@code versioned}, refusing a write of a stale resourceVersion as the API server does.
 * Thread-safe: concurrent map and copy-on-write lists; the failure queue is guarded by itself, versioned writes by
 * the map.
 */
final class FakeReplicaSetApi implements ReplicaSetApi {

  final Map<String, ReplicaSet> server = new ConcurrentHashMap<>();
  final List<ReplicaSet> statusWrites = new CopyOnWriteArrayList<>();
  final List<String> gets = new CopyOnWriteArrayList<>();
  private final Deque<KubernetesClientException> statusFailures = new ArrayDeque<>();
  /** When set, a status write must carry the stored resourceVersion (409 otherwise) and increments it. */
  volatile boolean versioned;

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
    if (!versioned) {
      ReplicaSet written = new ReplicaSetBuilder(rs).build();
      put(written);
      return written;
    }
    String key = rs.getMetadata().getNamespace() + "/" + rs.getMetadata().getName();
    synchronized (server) {
      ReplicaSet stored = server.get(key);
      String storedVersion = stored == null ? null : stored.getMetadata().getResourceVersion();
      if (!rs.getMetadata().getResourceVersion().equals(storedVersion)) {
        throw new KubernetesClientException("Operation cannot be fulfilled on replicasets.apps \""
            + rs.getMetadata().getName() + "\": the object has been modified", 409, null);
      }
      ReplicaSet written = new ReplicaSetBuilder(rs).editMetadata()
          .withResourceVersion(String.valueOf(Long.parseLong(storedVersion) + 1)).endMetadata().build();
      put(written);
      return written;
    }
  }
}
