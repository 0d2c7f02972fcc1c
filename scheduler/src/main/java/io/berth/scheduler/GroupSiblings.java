package io.berth.scheduler;

import io.berth.framework.Framework;
import io.berth.framework.PodGroupPlugin;
import io.berth.framework.PodGroupRef;
import io.berth.scheduler.queue.QueueName;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Lets a group's members held by PreEnqueue go once the group is complete: when an unassigned pod of a group enters
 * activeQ (it passed PreEnqueue, so its gang plugin now counts {@code minMember} members), its siblings that the
 * plugin gated while the group was short are activated, so they wait in activeQ beside it instead of in
 * unschedulablePods. Upstream (1.36, GangScheduling) does the same through an {@code UnscheduledPodAdd} event and the
 * gang plugin's queueing hint, which walks every unschedulable pod for every pod added; here only the group's own
 * members are looked at, and only when one of them enters activeQ. Without it the siblings would leave
 * unschedulablePods only when the group cycle opens ({@link GroupSchedulingCycle} activates them too), and until then
 * every event's queueing hints would run over them. Called from the informer's handler thread; the queue is
 * thread-safe and the plugin must be.
 */
final class GroupSiblings {
  private final SchedulingQueue queue;
  private final Map<String, Framework> profiles;

  GroupSiblings(SchedulingQueue queue, Map<String, Framework> profiles) {
    this.queue = queue;
    this.profiles = profiles;
  }

  /**
   * After {@code pod} (unassigned, of one of our profiles) was added or updated: if {@code wasActive} is false and the
   * pod now sits in activeQ, activates its group's gated members. Returns how many were activated.
   */
  int afterQueued(Pod pod, boolean wasActive) {
    if (wasActive) {
      return 0;
    }
    Framework fw = profiles.get(Scheduler.schedulerName(pod));
    Optional<PodGroupPlugin> plugin = fw == null ? Optional.empty() : fw.podGroupPlugin();
    if (plugin.isEmpty()) {
      return 0;
    }
    Optional<PodGroupRef> group = plugin.get().podGroupOf(pod);
    if (group.isEmpty() || group.get().minMember() <= 1 || !isActive(pod)) {
      return 0;
    }
    String uid = pod.getMetadata().getUid();
    List<Pod> unassigned = new ArrayList<>();
    for (Pod p : plugin.get().members(group.get())) {
      if (!Objects.equals(uid, p.getMetadata().getUid()) && !SchedulerEventHandlers.assigned(p)) {
        unassigned.add(p);
      }
    }
    // one hold of the queue's lock for the whole group, not one per member
    Map<String, QueueName> where = queue.queuesOf(unassigned);
    List<Pod> gated = new ArrayList<>();
    for (Pod p : unassigned) {
      if (where.get(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
          == QueueName.GATED) {
        gated.add(p);
      }
    }
    if (!gated.isEmpty()) {
      queue.activate(gated);
    }
    return gated.size();
  }

  /** Whether {@code pod} sits in activeQ now (a group's member the plugin would watch). */
  boolean isActive(Pod pod) {
    return queue.queueOf(pod.getMetadata().getNamespace(), pod.getMetadata().getName())
        .filter(q -> q == QueueName.ACTIVE).isPresent();
  }

  /** Whether any profile has a group plugin (else nothing here is needed). */
  boolean anyGroupPlugin() {
    return profiles.values().stream().anyMatch(fw -> fw.podGroupPlugin().isPresent());
  }
}
