package io.berth.bench.scheduler;

import io.berth.framework.ObjectLister;
import io.berth.framework.runtime.ListerProvider;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The plugins' listers in the throughput harness, which has no API server: fixed objects given up
 * front (a workload's ReplicaSets), and nothing of any other kind. Immutable; thread-safe.
 */
final class HarnessListers implements ListerProvider {
  private final List<HasMetadata> objects;

  HarnessListers(List<HasMetadata> objects) {
    this.objects = List.copyOf(objects);
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    List<T> ofType = objects.stream().filter(type::isInstance).map(type::cast).toList();
    return new ObjectLister<>() {
      @Override
      public List<T> list() {
        return ofType;
      }

      @Override
      public List<T> list(String namespace) {
        return ofType.stream()
            .filter(o -> Objects.equals(o.getMetadata().getNamespace(), namespace)).toList();
      }

      @Override
      public Optional<T> get(String namespace, String name) {
        return ofType.stream()
            .filter(o -> (namespace == null || namespace.isEmpty()
                || namespace.equals(o.getMetadata().getNamespace()))
                && name.equals(o.getMetadata().getName()))
            .findFirst();
      }
    };
  }
}
