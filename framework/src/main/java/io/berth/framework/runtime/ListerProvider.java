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
}
