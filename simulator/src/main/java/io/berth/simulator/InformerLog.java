package io.berth.simulator;

import io.berth.informer.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event handler that logs what an informer sees, one line per add, delete and meaningful update (one whose
 * summary changed), and counts them, including tombstones (deletes the informer learned of only by relisting).
 *
 * <p>Thread-safe: the counters are atomic; the informer calls a handler from one thread at a time.
 */
final class InformerLog<T extends HasMetadata> implements ResourceEventHandler<T> {

  private static final Logger LOG = LoggerFactory.getLogger("io.berth.simulator.informer");

  private final String kind;
  private final Function<T, String> summary;
  final AtomicLong adds = new AtomicLong();
  final AtomicLong updates = new AtomicLong();
  final AtomicLong deletes = new AtomicLong();
  final AtomicLong tombstones = new AtomicLong();

  InformerLog(String kind, Function<T, String> summary) {
    this.kind = kind;
    this.summary = summary;
  }

  private static String key(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return ns == null || ns.isEmpty() ? o.getMetadata().getName() : ns + "/" + o.getMetadata().getName();
  }

  @Override
  public void onAdd(T obj, boolean isInInitialList) {
    adds.incrementAndGet();
    LOG.info("{} {} added{}: {}", kind, key(obj), isInInitialList ? " (initial list)" : "", summary.apply(obj));
  }

  @Override
  public void onUpdate(T oldObj, T newObj) {
    updates.incrementAndGet();
    String before = summary.apply(oldObj);
    String after = summary.apply(newObj);
    if (!Objects.equals(before, after)) {
      LOG.info("{} {} updated: {} -> {}", kind, key(newObj), before, after);
    }
  }

  @Override
  public void onDelete(T obj, boolean finalStateUnknown) {
    deletes.incrementAndGet();
    if (finalStateUnknown) {
      tombstones.incrementAndGet();
      LOG.info("{} {} deleted while the watch was down (tombstone from a relist)", kind, key(obj));
    } else {
      LOG.info("{} {} deleted", kind, key(obj));
    }
  }
}
