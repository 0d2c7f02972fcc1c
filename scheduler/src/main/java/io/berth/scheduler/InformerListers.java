package io.berth.scheduler;

import io.berth.framework.ObjectLister;
import io.berth.framework.runtime.ListerProvider;
import io.berth.informer.Lister;
import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Optional;

/**
 * Gives plugins listers over the daemon's shared informer factory (the informer is created on
 * first request, so plugin factories must ask before the factory starts). Thread-safe.
 */
public final class InformerListers implements ListerProvider {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(InformerListers.class);

  private final SharedInformerFactory informers;
  // "type/indexName" of every index added to an informer; guarded by itself
  private final java.util.Set<String> indexes = new java.util.HashSet<>();

  public InformerListers(SharedInformerFactory informers) {
    this.informers = informers;
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    Lister<T> lister = informers.lister(type);
    return new ObjectLister<>() {
      @Override
      public List<T> list() {
        return lister.list();
      }

      @Override
      public List<T> list(String namespace) {
        return lister.list(namespace);
      }

      @Override
      public Optional<T> get(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? lister.get(name)
            : lister.get(namespace, name);
      }
    };
  }

  /**
   * Adds {@code indexName} to the informer's indexer (the first registration of a name wins, so
   * that every profile's instance of a plugin shares one index). When the informer has already
   * started, indexes can no longer be added: the answer then scans the lister, with a warning.
   */
  @Override
  public <T extends HasMetadata> io.berth.framework.ObjectIndex<T> index(Class<T> type,
      String indexName, java.util.function.Function<? super T, List<String>> keys) {
    Lister<T> lister = informers.lister(type);
    synchronized (indexes) {
      if (indexes.add(type.getName() + "/" + indexName)) {
        try {
          informers.informerFor(type).addIndexers(java.util.Map.of(indexName, keys::apply));
        } catch (IllegalStateException started) {
          indexes.remove(type.getName() + "/" + indexName);
          LOG.warn("index {} on {} added after the informer started; lookups scan the lister",
              indexName, type.getSimpleName());
          return io.berth.framework.ObjectIndex.scanning(lister(type), keys);
        }
      }
    }
    return key -> lister.byIndex(indexName, key);
  }

  /** Adapts a plugin's handler to the factory's informer; the supplier is the registration's hasSynced. */
  @Override
  public <T extends HasMetadata> java.util.function.BooleanSupplier addEventHandler(Class<T> type,
      io.berth.framework.ObjectEventHandler<T> handler) {
    io.berth.informer.ResourceEventHandlerRegistration registration = informers.informerFor(type)
        .addEventHandler(new io.berth.informer.ResourceEventHandler<T>() {
          @Override
          public void onAdd(T obj, boolean isInInitialList) {
            handler.onAdd(obj);
          }

          @Override
          public void onUpdate(T oldObj, T newObj) {
            handler.onUpdate(oldObj, newObj);
          }

          @Override
          public void onDelete(T obj, boolean finalStateUnknown) {
            handler.onDelete(obj);
          }
        });
    return registration::hasSynced;
  }

  /** Listers that hold nothing: for validating a configuration without a cluster. */
  static ListerProvider empty() {
    return new ListerProvider() {
      @Override
      public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
        return new ObjectLister<>() {
          @Override
          public List<T> list() {
            return List.of();
          }

          @Override
          public List<T> list(String namespace) {
            return List.of();
          }

          @Override
          public Optional<T> get(String namespace, String name) {
            return Optional.empty();
          }
        };
      }
    };
  }
}
