package io.berth.scheduler;

import io.berth.framework.ClusterEvent;
import io.berth.framework.Framework;
import io.berth.informer.ResourceEventHandler;
import io.berth.scheduler.apidispatcher.ApiDispatcher;
import io.berth.scheduler.cache.SchedulerCache;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds informer events to the scheduling queue and the cache, as upstream's
 * {@code addAllEventHandlers}: unassigned pods of our profiles go to the queue; assigned pods (by
 * any scheduler) and nodes go to the cache and move unschedulable pods whose hints care. Terminal
 * pods (Succeeded/Failed) count as gone, as upstream's informer field selector makes them. Called
 * from informer handler threads; the queue and cache are thread-safe. A handler never throws: a
 * bad object is logged and skipped. An unassigned member entering activeQ lets its group's gated siblings go
 * ({@link GroupSiblings}). With {@code SchedulerAsyncAPICalls}, every pod update first syncs the
 * API dispatcher's pending call for the pod (upstream's {@code syncPodWithDispatcher}), which
 * drops a patch the pod now already shows.
 */
final class SchedulerEventHandlers {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerEventHandlers.class);

  private final SchedulingQueue queue;
  private final SchedulerCache cache;
  private final Map<String, Framework> profiles;
  // null when no profile has a group plugin
  private final GroupSiblings groups;
  // null without SchedulerAsyncAPICalls
  private final ApiDispatcher dispatcher;

  SchedulerEventHandlers(SchedulingQueue queue, SchedulerCache cache, Map<String, Framework> profiles) {
    this(queue, cache, profiles, null);
  }

  SchedulerEventHandlers(SchedulingQueue queue, SchedulerCache cache, Map<String, Framework> profiles,
      ApiDispatcher dispatcher) {
    this.dispatcher = dispatcher;
    this.queue = queue;
    this.cache = cache;
    this.profiles = profiles;
    GroupSiblings siblings = new GroupSiblings(queue, profiles);
    this.groups = siblings.anyGroupPlugin() ? siblings : null;
  }

  ResourceEventHandler<Pod> podHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod, boolean isInInitialList) {
        guard("add pod", pod, () -> addPod(pod));
      }

      @Override
      public void onUpdate(Pod oldPod, Pod newPod) {
        guard("update pod", newPod, () -> updatePod(oldPod, newPod));
      }

      @Override
      public void onDelete(Pod pod, boolean finalStateUnknown) {
        guard("delete pod", pod, () -> deletePod(pod));
      }
    };
  }

  ResourceEventHandler<Node> nodeHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node node, boolean isInInitialList) {
        guard("add node", node, () -> {
          cache.addNode(node);
          queue.moveAllToActiveOrBackoffQueue(ClusterEvents.NODE_ADD, null, node, null);
        });
      }

      @Override
      public void onUpdate(Node oldNode, Node newNode) {
        guard("update node", newNode, () -> {
          cache.updateNode(newNode);
          for (ClusterEvent event : ClusterEvents.nodeUpdate(oldNode, newNode)) {
            queue.moveAllToActiveOrBackoffQueue(event, oldNode, newNode, null);
          }
        });
      }

      @Override
      public void onDelete(Node node, boolean finalStateUnknown) {
        guard("delete node", node, () -> cache.removeNode(node));
      }
    };
  }

  /** A handler for another kind plugins registered events for (PVCs, PVs, StorageClasses...). */
  <T extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceEventHandler<T> otherHandler(
      io.berth.framework.EventResource resource) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj, boolean isInInitialList) {
        move(new ClusterEvent(resource, io.berth.framework.ActionType.ADD), null, obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (!Objects.equals(oldObj.getMetadata().getResourceVersion(),
            newObj.getMetadata().getResourceVersion())) {
          move(new ClusterEvent(resource, io.berth.framework.ActionType.UPDATE), oldObj, newObj);
        }
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        move(new ClusterEvent(resource, io.berth.framework.ActionType.DELETE), obj, null);
      }

      private void move(ClusterEvent event, Object oldObj, Object newObj) {
        guard(event.label(), newObj == null ? oldObj : newObj,
            () -> queue.moveAllToActiveOrBackoffQueue(event, oldObj, newObj, null));
      }
    };
  }

  private void addPod(Pod pod) {
    if (terminal(pod)) {
      return;
    }
    if (assigned(pod)) {
      cache.addPod(pod);
      queue.assignedPodAdded(pod);
    } else if (responsible(pod)) {
      queue.add(pod);
      if (groups != null) {
        groups.afterQueued(pod, false);
      }
    }
  }

  private void updatePod(Pod oldPod, Pod newPod) {
    if (terminal(newPod)) {
      if (!terminal(oldPod)) {
        deletePod(oldPod);
      }
      return;
    }
    if (dispatcher != null && !Objects.equals(oldPod.getMetadata().getResourceVersion(),
        newPod.getMetadata().getResourceVersion())) {
      // upstream discards the synced pod too: the sync only refreshes (or drops) the pending call
      dispatcher.syncObject(newPod);
    }
    boolean wasAssigned = assigned(oldPod);
    if (assigned(newPod)) {
      if (!wasAssigned) {
        // bound: leaves the queue (unassigned side) and enters the cache (assigned side)
        if (responsible(oldPod)) {
          queue.delete(oldPod);
        }
        cache.addPod(newPod);
        queue.assignedPodAdded(newPod);
      } else {
        cache.updatePod(newPod);
        queue.assignedPodUpdated(oldPod, newPod, ClusterEvents.assignedPodUpdate(oldPod, newPod));
      }
      return;
    }
    if (!responsible(newPod)) {
      if (responsible(oldPod)) {
        queue.delete(oldPod);
      }
      return;
    }
    if (Objects.equals(oldPod.getMetadata().getResourceVersion(),
        newPod.getMetadata().getResourceVersion())) {
      return; // a resync, nothing changed
    }
    if (cache.isAssumedPod(newPod)) {
      return; // its binding is in flight
    }
    // a member leaving unschedulablePods (its gates lifted, say) may complete its group
    boolean wasActive = groups == null || groups.isActive(newPod);
    queue.update(oldPod, newPod);
    if (groups != null) {
      groups.afterQueued(newPod, wasActive);
    }
  }

  private void deletePod(Pod pod) {
    if (assigned(pod)) {
      cache.removePod(pod);
      queue.moveAllToActiveOrBackoffQueue(ClusterEvent.ASSIGNED_POD_DELETE, pod, null, null);
    } else if (responsible(pod)) {
      queue.delete(pod);
      Framework fw = profiles.get(Scheduler.schedulerName(pod));
      if (fw != null) {
        fw.rejectWaitingPod(pod.getMetadata().getUid());
      }
    }
  }

  private boolean responsible(Pod pod) {
    return profiles.containsKey(Scheduler.schedulerName(pod));
  }

  static boolean assigned(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty();
  }

  static boolean terminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  private static void guard(String what, Object obj, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      String name = obj instanceof io.fabric8.kubernetes.api.model.HasMetadata h
          ? h.getMetadata().getNamespace() + "/" + h.getMetadata().getName() : String.valueOf(obj);
      LOG.error("scheduler event handler failed to {} {}", what, name, e);
    }
  }

  static Predicate<Pod> all() {
    return p -> true;
  }
}
