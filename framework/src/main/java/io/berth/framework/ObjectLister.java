package io.berth.framework;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Optional;

/**
 * Read access to an informer cache of one kind (PVCs, PVs, PDBs, namespaces, services...).
 * Thread-safe; returned objects are shared with the cache and must not be mutated.
 */
public interface ObjectLister<T extends HasMetadata> {
  List<T> list();

  List<T> list(String namespace);

  /** A namespaced object; for cluster-scoped kinds pass "" as namespace. */
  Optional<T> get(String namespace, String name);
}
