package io.berth.component;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What one instance says on its leader-election Lease, and what it last read there. A component
 * {@link #publish}es annotations (such as the scheduler's debug address); {@link LeaseResourceLock}
 * writes them onto the Lease with every write that names this instance as holder (acquire and each
 * renewal, so no API call beyond leader election's own get and update) and removes them when it
 * releases the Lease. Every read of the Lease, which a standby makes each retry period, is kept as
 * {@link #observed()}: the holder and the Lease's annotations then, so a standby knows what the
 * leader published at most one retry period ago.
 *
 * <p>Thread-safe: the published map is concurrent; the observed Lease is a volatile immutable
 * value, written by the election thread and read by any thread.
 */
public final class LeaseAnnotations {

  /**
   * The Lease as last read or written.
   *
   * @param holderIdentity the Lease's {@code spec.holderIdentity}, empty when free
   * @param annotations its annotations (unmodifiable)
   */
  public record Observed(String holderIdentity, Map<String, String> annotations) {
    public Observed {
      Objects.requireNonNull(holderIdentity, "holderIdentity");
      annotations = Map.copyOf(annotations);
    }
  }

  // concurrent: components publish from any thread, the lock reads at each write
  private final ConcurrentMap<String, String> published = new ConcurrentHashMap<>();
  // null until the Lease was first read
  private volatile Observed observed;

  /** Writes {@code key: value} onto the Lease whenever this instance writes it as holder. */
  public void publish(String key, String value) {
    published.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
  }

  /** The Lease as this instance last read or wrote it; empty before the first read. */
  public Optional<Observed> observed() {
    return Optional.ofNullable(observed);
  }

  /** What the Lease's annotations become in a write by this instance: ours while holding, none of ours else. */
  Map<String, String> annotationsForWrite(Map<String, String> current, boolean holding) {
    Map<String, String> out = new HashMap<>(current == null ? Map.of() : current);
    if (holding) {
      out.putAll(published);
    } else {
      published.keySet().forEach(out::remove);
    }
    return out;
  }

  /** Remembers {@code lease} as read or written (null: there is none). */
  void observe(Lease lease) {
    if (lease == null) {
      observed = new Observed("", Map.of());
      return;
    }
    String holder = Optional.ofNullable(lease.getSpec()).map(LeaseSpec::getHolderIdentity).orElse("");
    Map<String, String> annotations = Optional.ofNullable(lease.getMetadata()).map(ObjectMeta::getAnnotations)
        .orElse(Map.of());
    observed = new Observed(holder, annotations);
  }
}
