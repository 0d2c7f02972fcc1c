package io.berth.simulator.replay;

import io.berth.framework.ObjectLister;
import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.berth.framework.runtime.ListerProvider;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The replay's API server: the current objects by class and {@code namespace/name}, the listers
 * plugins read, and the scheduler's own writes ({@link PodApi}: status patches and preemption's
 * deletions; {@link #bind} for the Bind plugin) applied at once. As with a real server, the
 * scheduler learns of its own writes only through watch events: each write queues one, and the
 * replay thread delivers them ({@link #takeWatchEvents()}) at the next quiet point, in the order
 * made. Listers return objects in key order, so that every run sees the same order.
 *
 * <p>Thread-safe: every method is {@code synchronized} on the store (binding threads bind and patch
 * while the replay thread reads). Objects are immutable once stored.
 */
final class ReplayStore implements ListerProvider, PodApi {
  /** A watch event the store owes the scheduler for one of its own writes. */
  record WatchEvent(Pod oldPod, Pod newPod) {}

  // guarded by this
  private final Map<Class<?>, TreeMap<String, HasMetadata>> objects = new HashMap<>();
  private final Deque<WatchEvent> watch = new ArrayDeque<>();
  private long resourceVersion = 1_000_000_000L;
  // guarded by this: plugins' pod handlers (CapacityScheduling charges bound pods through one)
  private final List<io.berth.framework.ObjectEventHandler<Pod>> podHandlers = new ArrayList<>();

  /** Pod handlers are told of every pod event the replay delivers; other kinds have no events here. */
  @Override
  @SuppressWarnings("unchecked")
  public synchronized <T extends HasMetadata> java.util.function.BooleanSupplier addEventHandler(Class<T> type,
      io.berth.framework.ObjectEventHandler<T> handler) {
    if (type == Pod.class) {
      podHandlers.add((io.berth.framework.ObjectEventHandler<Pod>) handler);
    }
    return () -> true;
  }

  /** The plugins' pod handlers, for the replay thread to tell. */
  synchronized List<io.berth.framework.ObjectEventHandler<Pod>> podHandlers() {
    return List.copyOf(podHandlers);
  }

  static String key(HasMetadata obj) {
    String ns = obj.getMetadata().getNamespace();
    return ns == null || ns.isEmpty() ? obj.getMetadata().getName()
        : ns + "/" + obj.getMetadata().getName();
  }

  synchronized Optional<HasMetadata> get(Class<?> type, String key) {
    TreeMap<String, HasMetadata> m = objects.get(type);
    return m == null ? Optional.empty() : Optional.ofNullable(m.get(key));
  }

  /** Stores {@code obj}, returning the previous version. */
  synchronized Optional<HasMetadata> put(HasMetadata obj) {
    return Optional.ofNullable(objects.computeIfAbsent(obj.getClass(), c -> new TreeMap<>())
        .put(key(obj), obj));
  }

  /** Removes the object of {@code type} with this key, returning it. */
  synchronized Optional<HasMetadata> remove(Class<?> type, String key) {
    TreeMap<String, HasMetadata> m = objects.get(type);
    return m == null ? Optional.empty() : Optional.ofNullable(m.remove(key));
  }

  @SuppressWarnings("unchecked")
  synchronized <T extends HasMetadata> List<T> list(Class<T> type) {
    TreeMap<String, HasMetadata> m = objects.get(type);
    return m == null ? List.of() : (List<T>) List.copyOf(m.values());
  }

  /** A new resourceVersion for an object the store rewrites. */
  synchronized String nextResourceVersion() {
    return Long.toString(++resourceVersion);
  }

  /** The watch events of the scheduler's own writes since the last call, in order. */
  synchronized List<WatchEvent> takeWatchEvents() {
    List<WatchEvent> out = new ArrayList<>(watch);
    watch.clear();
    return out;
  }

  /** Binds the stored pod to {@code node}; false when it no longer exists. */
  synchronized boolean bind(Pod pod, String node) {
    Optional<HasMetadata> current = get(Pod.class, key(pod));
    if (current.isEmpty() || !uid(current.get()).equals(uid(pod))) {
      return false;
    }
    Pod old = (Pod) current.get();
    Pod bound = new PodBuilder(old).editMetadata().withResourceVersion(nextResourceVersion())
        .endMetadata().editSpec().withNodeName(node).endSpec().build();
    put(bound);
    watch.add(new WatchEvent(old, bound));
    return true;
  }

  @Override
  public synchronized boolean patchStatus(Pod pod, PodStatusPatch patch) {
    Optional<HasMetadata> current = get(Pod.class, key(pod));
    if (current.isEmpty() || !uid(current.get()).equals(uid(pod))) {
      return false;
    }
    Pod old = (Pod) current.get();
    PodBuilder b = new PodBuilder(old).editMetadata().withResourceVersion(nextResourceVersion())
        .endMetadata();
    if (patch.condition().isPresent()) {
      PodCondition c = patch.condition().get();
      List<PodCondition> conditions = new ArrayList<>();
      if (old.getStatus() != null && old.getStatus().getConditions() != null) {
        for (PodCondition existing : old.getStatus().getConditions()) {
          if (!existing.getType().equals(c.getType())) {
            conditions.add(existing);
          }
        }
      }
      conditions.add(c);
      b.editOrNewStatus().withConditions(conditions).endStatus();
    }
    patch.nominatedNodeName().ifPresent(n -> b.editOrNewStatus()
        .withNominatedNodeName(n.isEmpty() ? null : n).endStatus());
    Pod updated = b.build();
    put(updated);
    watch.add(new WatchEvent(old, updated));
    return true;
  }

  @Override
  public synchronized boolean delete(Pod pod) {
    Optional<HasMetadata> current = get(Pod.class, key(pod));
    if (current.isEmpty() || !uid(current.get()).equals(uid(pod))) {
      return false;
    }
    remove(Pod.class, key(pod));
    watch.add(new WatchEvent((Pod) current.get(), null));
    return true;
  }

  private static String uid(HasMetadata obj) {
    return String.valueOf(obj.getMetadata().getUid());
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
    return new ObjectLister<>() {
      @Override
      public List<T> list() {
        return ReplayStore.this.list(type);
      }

      @Override
      public List<T> list(String namespace) {
        return ReplayStore.this.list(type).stream()
            .filter(o -> namespace.equals(o.getMetadata().getNamespace())).toList();
      }

      @Override
      public Optional<T> get(String namespace, String name) {
        String k = namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
        return ReplayStore.this.get(type, k).map(type::cast);
      }
    };
  }
}
