package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out one {@link SharedIndexInformer} per (type, namespace) over a fabric8
 * {@link KubernetesClient} (client-go's {@code SharedInformerFactory}): everyone asking for pods
 * shares one list/watch and one cache. Informers are created lazily by {@link #informerFor};
 * {@link #start()} starts every informer created so far that is not yet started (call it again
 * after creating more); {@link #waitForCacheSync} waits for all started ones. The factory does not
 * own the client: {@link #shutdown()} stops the informers, the caller closes the client.
 *
 * <p>A factory from {@link #droppingManagedFields} hands out objects without
 * {@code metadata.managedFields}, as kube-controller-manager's informer factory does with its
 * transform (and kube-scheduler's pod informer): the field is skipped while watch events are
 * parsed, so it costs neither decoding nor cache memory.
 *
 * <p>Thread-safe: the informer map is guarded by {@code this}.
 */
public final class SharedInformerFactory {

  private static final Logger log = LoggerFactory.getLogger(SharedInformerFactory.class);

  private record InformerKey(Class<?> type, String namespace) {}

  private final KubernetesClient client;
  private final Duration defaultResyncPeriod;
  private final Clock clock;
  private final boolean dropManagedFields;
  // guarded by this
  private final Map<InformerKey, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
  // guarded by this
  private boolean shutdown;

  /** A factory whose informers do not resync unless a handler asks. */
  public SharedInformerFactory(KubernetesClient client) {
    this(client, Duration.ZERO);
  }

  /** A factory whose informers' handlers resync every {@code defaultResyncPeriod} by default. */
  public SharedInformerFactory(KubernetesClient client, Duration defaultResyncPeriod) {
    this(client, defaultResyncPeriod, Clock.SYSTEM);
  }

  SharedInformerFactory(KubernetesClient client, Duration defaultResyncPeriod, Clock clock) {
    this(client, defaultResyncPeriod, clock, false);
  }

  private SharedInformerFactory(KubernetesClient client, Duration defaultResyncPeriod, Clock clock,
      boolean dropManagedFields) {
    this.client = Objects.requireNonNull(client, "client");
    this.defaultResyncPeriod = Objects.requireNonNull(defaultResyncPeriod, "defaultResyncPeriod");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.dropManagedFields = dropManagedFields;
  }

  /**
   * A factory whose informers hold their objects without {@code metadata.managedFields} (an empty
   * list), the daemons' setting: nothing in them reads the server-side apply bookkeeping.
   */
  public static SharedInformerFactory droppingManagedFields(KubernetesClient client,
      Duration defaultResyncPeriod) {
    return new SharedInformerFactory(client, defaultResyncPeriod, Clock.SYSTEM, true);
  }

  /** The informer for every {@code type} object in all namespaces (or cluster-scoped). */
  public <T extends HasMetadata> SharedIndexInformer<T> informerFor(Class<T> type) {
    return informerFor(type, null);
  }

  /**
   * The informer for {@code type} objects in {@code namespace} (null or empty: all namespaces);
   * the same instance on every call with the same arguments.
   *
   * @throws IllegalStateException after {@link #shutdown()}
   */
  public synchronized <T extends HasMetadata> SharedIndexInformer<T> informerFor(Class<T> type, String namespace) {
    Objects.requireNonNull(type, "type");
    if (shutdown) {
      throw new IllegalStateException("informer factory is shut down");
    }
    String ns = namespace == null ? "" : namespace;
    @SuppressWarnings("unchecked")
    SharedIndexInformer<T> informer = (SharedIndexInformer<T>) informers.computeIfAbsent(
        new InformerKey(type, ns), key -> newInformer(type, ns));
    return informer;
  }

  /** A lister over the all-namespaces informer for {@code type}. */
  public <T extends HasMetadata> Lister<T> lister(Class<T> type) {
    return new Lister<>(informerFor(type).getIndexer());
  }

  /** A lister over the informer for {@code type} in {@code namespace}. */
  public <T extends HasMetadata> Lister<T> lister(Class<T> type, String namespace) {
    return new Lister<>(informerFor(type, namespace).getIndexer());
  }

  /** Starts every informer not yet started. */
  public synchronized void start() {
    if (shutdown) {
      throw new IllegalStateException("informer factory is shut down");
    }
    for (SharedIndexInformer<?> informer : informers.values()) {
      if (!informer.isStarted()) {
        informer.start();
      }
    }
  }

  /**
   * Waits until every started informer has synced, at most {@code timeout} in total; returns
   * whether they all did.
   */
  public boolean waitForCacheSync(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<SharedIndexInformer<?>> started = new ArrayList<>();
    synchronized (this) {
      for (SharedIndexInformer<?> informer : informers.values()) {
        if (informer.isStarted()) {
          started.add(informer);
        }
      }
    }
    for (SharedIndexInformer<?> informer : started) {
      long remaining = deadline - System.nanoTime();
      if (!informer.awaitSynced(Duration.ofNanos(Math.max(0, remaining)))) {
        log.info("cache of {} not synced within {}", informer, timeout);
        return false;
      }
    }
    return true;
  }

  /** Stops every informer; the factory hands out no more. Idempotent. */
  public void shutdown() {
    List<SharedIndexInformer<?>> toStop;
    synchronized (this) {
      shutdown = true;
      toStop = new ArrayList<>(informers.values());
    }
    for (SharedIndexInformer<?> informer : toStop) {
      informer.stop();
    }
  }

  private <T extends HasMetadata> SharedIndexInformer<T> newInformer(Class<T> type, String namespace) {
    Fabric8ListerWatcher<T> base = Fabric8ListerWatcher.of(client, type).inNamespace(namespace);
    ListerWatcher<T> listerWatcher = dropManagedFields ? base.withoutManagedFields() : base;
    return new DefaultSharedIndexInformer<>(listerWatcher, defaultResyncPeriod, clock,
        () -> ThreadLocalRandom.current().nextDouble());
  }
}
