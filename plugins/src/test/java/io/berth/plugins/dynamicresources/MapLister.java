package io.berth.plugins.dynamicresources;

import io.berth.framework.ObjectLister;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** An in-memory lister for unit tests; thread-safe. */
final class MapLister<T extends HasMetadata> implements ObjectLister<T> {
  private final Map<String, T> objects = new ConcurrentHashMap<>();

  void put(T obj) {
    objects.put(key(obj.getMetadata().getNamespace(), obj.getMetadata().getName()), obj);
  }

  void remove(T obj) {
    objects.remove(key(obj.getMetadata().getNamespace(), obj.getMetadata().getName()));
  }

  private static String key(String ns, String name) {
    return (ns == null ? "" : ns) + "/" + name;
  }

  @Override
  public List<T> list() {
    return new ArrayList<>(objects.values());
  }

  @Override
  public List<T> list(String namespace) {
    return objects.values().stream()
        .filter(o -> Objects.equals(o.getMetadata().getNamespace(), namespace)).toList();
  }

  @Override
  public Optional<T> get(String namespace, String name) {
    return Optional.ofNullable(objects.get(key(namespace == null || namespace.isEmpty() ? null
        : namespace, name)));
  }
}
