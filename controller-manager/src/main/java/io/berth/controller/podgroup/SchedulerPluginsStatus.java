package io.berth.controller.podgroup;

import io.berth.controller.ApiTimes;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The status of a scheduler-plugins PodGroup as its podgroup controller computes it, from the group's current
 * status, {@code spec.minMember} and its member pods. Phases: {@code ""} becomes {@code Pending}; {@code Pending}
 * becomes {@code Scheduling} once at least minMember members exist (recording {@code scheduleStartTime} and
 * {@code occupiedBy}, the sorted {@code namespace/owner} names of the first member's owners); from then on fewer
 * than minMember members sends it back to {@code Pending}, running + succeeded reaching minMember makes it
 * {@code Running}, a failure with failed + running + succeeded reaching minMember makes it {@code Failed}, and
 * succeeded reaching minMember makes it {@code Finished}. {@code Finished} and {@code Failed} are final. The counts
 * {@code running}, {@code succeeded}, {@code failed} (by pod phase) and {@code scheduled} (members bound to a node)
 * are kept current in every phase. scheduler-plugins' later {@code PreScheduling} and {@code Scheduled} phases are
 * not used (the CRD's enum is the older set). Stateless and thread-safe.
 */
final class SchedulerPluginsStatus {

  static final String PENDING = "Pending";
  static final String SCHEDULING = "Scheduling";
  static final String RUNNING = "Running";
  static final String FINISHED = "Finished";
  static final String FAILED = "Failed";

  private SchedulerPluginsStatus() {
  }

  /**
   * The next status: a copy of {@code current} with phase, counts, {@code scheduleStartTime} and {@code occupiedBy}
   * brought up to date; {@code current} itself when the phase is final.
   */
  static Map<String, Object> next(Map<String, Object> current, int minMember, List<Pod> members, Instant now) {
    String phase = current.get("phase") instanceof String p ? p : "";
    if (phase.equals(FINISHED) || phase.equals(FAILED)) {
      return current;
    }
    Map<String, Object> next = new LinkedHashMap<>(current);
    int running = 0;
    int succeeded = 0;
    int failed = 0;
    int scheduled = 0;
    for (Pod p : members) {
      String podPhase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if ("Running".equals(podPhase)) {
        running++;
      } else if ("Succeeded".equals(podPhase)) {
        succeeded++;
      } else if ("Failed".equals(podPhase)) {
        failed++;
      }
      if (p.getSpec() != null && p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()) {
        scheduled++;
      }
    }
    next.put("scheduled", scheduled);
    next.put("running", running);
    next.put("succeeded", succeeded);
    next.put("failed", failed);
    switch (phase) {
      case "" -> next.put("phase", PENDING);
      case PENDING -> {
        if (members.size() >= minMember) {
          next.put("phase", SCHEDULING);
          next.putIfAbsent("scheduleStartTime", ApiTimes.format(now));
          occupiedBy(members).ifPresent(o -> next.put("occupiedBy", o));
        }
      }
      default -> {
        String to = phase;
        if (members.size() < minMember) {
          to = PENDING;
        } else {
          if (running + succeeded >= minMember) {
            to = RUNNING;
          }
          if (failed != 0 && failed + running + succeeded >= minMember) {
            to = FAILED;
          }
          if (succeeded >= minMember) {
            to = FINISHED;
          }
        }
        next.put("phase", to);
      }
    }
    return next;
  }

  private static java.util.Optional<String> occupiedBy(List<Pod> members) {
    List<Pod> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    Pod first = sorted.get(0);
    List<OwnerReference> owners = first.getMetadata().getOwnerReferences();
    if (owners == null || owners.isEmpty()) {
      return java.util.Optional.empty();
    }
    TreeSet<String> refs = new TreeSet<>();
    for (OwnerReference o : owners) {
      refs.add(first.getMetadata().getNamespace() + "/" + Objects.toString(o.getName(), ""));
    }
    return java.util.Optional.of(String.join(",", refs));
  }
}
