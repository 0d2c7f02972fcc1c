package io.berth.scheduler.debug;

import io.berth.framework.ObjectEventHandler;
import io.berth.framework.ObjectIndex;
import io.berth.framework.ObjectLister;
import io.berth.framework.runtime.ListerProvider;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The daemon's listers as a {@link Simulation} call's plugins see them: reads go to the daemon's informers, but a
 * plugin's {@link ObjectEventHandler} is not added to them (it would outlive the call and be told of every later
 * change): it is handed the objects listed now, once, as an informer hands a new handler its initial list, and the
 * registration counts as synced. Thread-safe as the delegate is; holds no state of its own.
 */
final class ReadOnlyListers implements ListerProvider {
  private final ListerProvider delegate;

  ReadOnlyListers(ListerProvider delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    return delegate.lister(type);
  }

  @Override
  public <T extends HasMetadata> ObjectIndex<T> index(Class<T> type, String indexName,
      Function<? super T, List<String>> keys) {
    return delegate.index(type, indexName, keys);
  }

  @Override
  public <T extends HasMetadata> BooleanSupplier addEventHandler(Class<T> type, ObjectEventHandler<T> handler) {
    List<T> now;
    try {
      now = delegate.lister(type).list();
    } catch (UnsupportedOperationException noInformers) {
      now = List.of(); // as ListerProvider's default: no informers, nothing to hand
    }
    for (T obj : now) {
      handler.onAdd(obj);
    }
    return () -> true;
  }
}
