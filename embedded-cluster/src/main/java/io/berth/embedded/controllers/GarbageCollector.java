package io.berth.embedded.controllers;

import io.berth.embedded.server.ApiException;
import io.berth.embedded.server.DeleteOptions;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceType;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoreListener;
import io.berth.embedded.server.StoredObject;
import io.berth.embedded.server.WatchEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The embedded cluster's garbage collector, after kube-controller-manager's: deletes dependents whose owners are all
 * gone (background cascading deletion through ownerReferences: Deployment → ReplicaSets → Pods), honours the
 * {@code orphan} finalizer (strip the owner's references from its dependents, then let the owner go) and the
 * {@code foregroundDeletion} finalizer (delete the dependents first, release the owner once no dependent with
 * {@code blockOwnerDeletion} remains), and empties namespaces that are deleted.
 *
 * <p>Threading: {@link #onEvent} runs under the store lock and only updates the owner index and enqueues work;
 * one worker thread does the deletions through {@link ResourceOperations}. {@code dependents} and {@code live} are
 * guarded by {@code this}.
 */
public final class GarbageCollector implements StoreListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

  private sealed interface Task {
  }

  private record OwnerGone(String uid) implements Task {
  }

  private record OwnerDeleting(ObjectRef owner) implements Task {
  }

  private record NamespaceGone(String namespace) implements Task {
  }

  private final ResourceOperations ops;
  private final java.util.function.Supplier<List<ResourceType>> customTypes;
  private final ObjectStore store;
  // guarded by this: owner uid -> dependents
  private final Map<String, Set<ObjectRef>> dependents = new HashMap<>();
  // guarded by this: uid -> where the live object is
  private final Map<String, ObjectRef> live = new HashMap<>();
  private final BlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
  private final Thread worker;
  private volatile boolean running = true;

  public GarbageCollector(ResourceOperations ops) {
    this(ops, List::of);
  }

  /** A collector that also empties terminating namespaces of the custom types {@code customTypes} lists now. */
  public GarbageCollector(ResourceOperations ops, java.util.function.Supplier<List<ResourceType>> customTypes) {
    this.customTypes = customTypes;
    this.ops = ops;
    this.store = ops.store();
    store.addListener(this);
    worker = new Thread(this::run, "embedded-garbage-collector");
    worker.setDaemon(true);
    worker.start();
  }

  @Override
  public void onEvent(WatchEvent event) {
    StoredObject obj = event.object();
    synchronized (this) {
      if (event.previous() != null) {
        for (String owner : event.previous().ownerUids()) {
          Set<ObjectRef> deps = dependents.get(owner);
          if (deps != null) {
            deps.remove(ObjectRef.of(obj));
            if (deps.isEmpty()) {
              dependents.remove(owner);
            }
          }
        }
      }
      if (event.type() == WatchEvent.Type.DELETED) {
        live.remove(obj.uid());
      } else {
        live.put(obj.uid(), ObjectRef.of(obj));
        for (String owner : obj.ownerUids()) {
          dependents.computeIfAbsent(owner, k -> new HashSet<>()).add(ObjectRef.of(obj));
        }
      }
    }
    if (event.type() == WatchEvent.Type.DELETED) {
      tasks.add(new OwnerGone(obj.uid()));
      if (obj.type() == ResourceTypes.NAMESPACES) {
        tasks.add(new NamespaceGone(obj.name()));
      }
      // A dependent leaving may release an owner waiting in foreground deletion.
      for (String owner : obj.ownerUids()) {
        ObjectRef ref;
        synchronized (this) {
          ref = live.get(owner);
        }
        if (ref != null) {
          tasks.add(new OwnerDeleting(ref));
        }
      }
    } else if (obj.terminating()) {
      List<String> fins = ResourceOperations.finalizers(obj.tree());
      if (fins.contains(ResourceOperations.ORPHAN_FINALIZER)
          || fins.contains(ResourceOperations.FOREGROUND_FINALIZER)) {
        tasks.add(new OwnerDeleting(ObjectRef.of(obj)));
      }
      if (obj.type() == ResourceTypes.NAMESPACES) {
        tasks.add(new NamespaceGone(obj.name()));
      }
    }
  }

  private void run() {
    while (running) {
      try {
        Task task = tasks.take();
        handle(task);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.warn("garbage collection step failed; continuing", e);
      }
    }
  }

  private void handle(Task task) {
    if (task instanceof OwnerGone gone) {
      for (ObjectRef dep : dependentsOf(gone.uid())) {
        attemptToDelete(dep);
      }
    } else if (task instanceof OwnerDeleting deleting) {
      processDeletingOwner(deleting.owner());
    } else if (task instanceof NamespaceGone ns) {
      emptyNamespace(ns.namespace());
    }
  }

  private synchronized List<ObjectRef> dependentsOf(String uid) {
    Set<ObjectRef> deps = dependents.get(uid);
    return deps == null ? List.of() : List.copyOf(deps);
  }

  private synchronized boolean alive(String uid) {
    return live.containsKey(uid);
  }

  /**
   * Decides the fate of a dependent whose owners changed, as upstream's attemptToDeleteItem: with a solid owner
   * left it only drops the references to owners that are gone or deleting in the foreground; with none it is
   * deleted (in the foreground when an owner waits for it and it has dependents of its own).
   */
  private void attemptToDelete(ObjectRef ref) {
    Optional<StoredObject> current = store.get(ref.type(), ref.namespace(), ref.name());
    if (current.isEmpty() || current.get().terminating()) {
      return;
    }
    StoredObject dep = current.get();
    JsonNode refs = Json.at(dep.tree(), "metadata", "ownerReferences");
    if (refs == null || refs.isEmpty()) {
      return;
    }
    List<String> solid = new ArrayList<>();
    List<String> dangling = new ArrayList<>();
    List<String> waiting = new ArrayList<>();
    for (JsonNode r : refs.values()) {
      String uid = Json.text(r, "uid");
      if (!alive(uid)) {
        dangling.add(uid);
      } else if (waitingForDependents(uid)) {
        waiting.add(uid);
      } else {
        solid.add(uid);
      }
    }
    if (!solid.isEmpty()) {
      if (!dangling.isEmpty() || !waiting.isEmpty()) {
        Set<String> drop = new HashSet<>(dangling);
        drop.addAll(waiting);
        removeOwnerReferences(ref, drop);
      }
      return;
    }
    String policy;
    List<String> fins = ResourceOperations.finalizers(dep.tree());
    if (fins.contains(ResourceOperations.ORPHAN_FINALIZER)) {
      policy = "Orphan";
    } else if (fins.contains(ResourceOperations.FOREGROUND_FINALIZER)
        || (!waiting.isEmpty() && !dependentsOf(dep.uid()).isEmpty())) {
      policy = "Foreground";
    } else {
      policy = "Background";
    }
    delete(ref, DeleteOptions.withPropagation(policy));
  }

  private boolean waitingForDependents(String uid) {
    ObjectRef ref;
    synchronized (this) {
      ref = live.get(uid);
    }
    if (ref == null) {
      return false;
    }
    return store.get(ref.type(), ref.namespace(), ref.name())
        .map(o -> o.terminating()
            && ResourceOperations.finalizers(o.tree()).contains(ResourceOperations.FOREGROUND_FINALIZER))
        .orElse(false);
  }

  private void processDeletingOwner(ObjectRef ownerRef) {
    Optional<StoredObject> current = store.get(ownerRef.type(), ownerRef.namespace(), ownerRef.name());
    if (current.isEmpty() || !current.get().terminating()) {
      return;
    }
    StoredObject owner = current.get();
    List<String> fins = ResourceOperations.finalizers(owner.tree());
    if (fins.contains(ResourceOperations.ORPHAN_FINALIZER)) {
      for (ObjectRef dep : dependentsOf(owner.uid())) {
        removeOwnerReferences(dep, Set.of(owner.uid()));
      }
      ops.removeFinalizer(ownerRef.type(), ownerRef.namespace(), ownerRef.name(), ResourceOperations.ORPHAN_FINALIZER);
    } else if (fins.contains(ResourceOperations.FOREGROUND_FINALIZER)) {
      boolean blocked = false;
      for (ObjectRef dep : dependentsOf(owner.uid())) {
        Optional<StoredObject> d = store.get(dep.type(), dep.namespace(), dep.name());
        if (d.isEmpty()) {
          continue;
        }
        if (blocksOwnerDeletion(d.get(), owner.uid())) {
          blocked = true;
        }
        attemptToDelete(dep);
      }
      if (!blocked) {
        ops.removeFinalizer(ownerRef.type(), ownerRef.namespace(), ownerRef.name(),
            ResourceOperations.FOREGROUND_FINALIZER);
      }
    }
  }

  private static boolean blocksOwnerDeletion(StoredObject dep, String ownerUid) {
    JsonNode refs = Json.at(dep.tree(), "metadata", "ownerReferences");
    if (refs == null) {
      return false;
    }
    for (JsonNode r : refs.values()) {
      if (ownerUid.equals(Json.text(r, "uid")) && r.path("blockOwnerDeletion").asBoolean(false)) {
        return true;
      }
    }
    return false;
  }

  private void removeOwnerReferences(ObjectRef ref, Set<String> uids) {
    ops.mutate(ref.type(), ref.namespace(), ref.name(), obj -> {
      JsonNode refs = Json.at(obj, "metadata", "ownerReferences");
      if (refs instanceof ArrayNode arr) {
        ArrayNode kept = arr.arrayNode();
        for (JsonNode r : arr.values()) {
          if (!uids.contains(Json.text(r, "uid"))) {
            kept.add(r);
          }
        }
        ObjectNode meta = Json.metadata(obj);
        if (kept.isEmpty()) {
          meta.remove("ownerReferences");
        } else {
          meta.set("ownerReferences", kept);
        }
      }
      return obj;
    }, false);
  }

  private void emptyNamespace(String namespace) {
    List<ResourceType> types = new ArrayList<>(ResourceTypes.all());
    types.addAll(customTypes.get());
    for (ResourceType type : types) {
      if (!type.namespaced()) {
        continue;
      }
      for (StoredObject o : store.list(type, namespace, x -> !x.terminating()).items()) {
        delete(ObjectRef.of(o), DeleteOptions.withPropagation("Background"));
      }
    }
  }

  private void delete(ObjectRef ref, DeleteOptions options) {
    try {
      ops.delete(ref.type(), ref.namespace(), ref.name(), options);
    } catch (ApiException e) {
      if (e.code() != 404) {
        LOG.warn("garbage collector could not delete {}/{}: {}", ref.type().resource(), ref.name(), e.getMessage());
      }
    }
  }

  /** Waits until the collector has processed everything queued so far (tests and orderly shutdown). */
  public boolean idle() {
    return tasks.isEmpty();
  }

  @Override
  public void close() {
    running = false;
    store.removeListener(this);
    worker.interrupt();
  }
}
