package io.berth.framework.runtime;

import io.berth.framework.ObjectLister;
import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Supplies informer-backed listers to plugins through {@link io.berth.framework.Handle#lister}.
 * The scheduler implements it over its informer factory. Thread-safe.
 */
@FunctionalInterface
public interface ListerProvider {
  ListerProvider NONE = new ListerProvider() {
    @Override
    public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
      throw new UnsupportedOperationException("no lister for " + type.getSimpleName());
    }
  };

  <T extends HasMetadata> ObjectLister<T> lister(Class<T> type);

  /** An index over the informer of {@code type}, as {@link io.berth.framework.Handle#index}; by default a scan. */
  default <T extends HasMetadata> io.berth.framework.ObjectIndex<T> index(Class<T> type, String indexName,
      java.util.function.Function<? super T, java.util.List<String>> keys) {
    return io.berth.framework.ObjectIndex.scanning(lister(type), keys);
  }

  /**
   * Adds a plugin's handler to the informer of {@code type}, as {@link io.berth.framework.Handle#addEventHandler};
   * by default there are no informers: the handler is never called and the supplier answers true.
   */
  default <T extends HasMetadata> java.util.function.BooleanSupplier addEventHandler(Class<T> type,
      io.berth.framework.ObjectEventHandler<T> handler) {
    return () -> true;
  }
}
