package io.berth.controller.podgroup;

import io.berth.controller.ApiTimes;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code PodGroupScheduled} condition of a kube-scheduler 1.36 {@code scheduling.k8s.io/v1alpha2} PodGroup, from
 * its members: {@code True}/{@code Scheduled} once at least minCount members (1 for the {@code basic} policy) are
 * bound to nodes; {@code False}/{@code Unschedulable} (or {@code SchedulerError}) while fewer are and a member's
 * {@code PodScheduled} condition is {@code False} with that reason, the message naming how many are placed and
 * quoting that member's (the first by name) scheduler message; otherwise unchanged (the group was not tried yet, or
 * it was placed and its members have since finished). {@code lastTransitionTime} moves only when the status does;
 * {@code observedGeneration} is the group's generation. Other condition types are kept as they are. Stateless and
 * thread-safe.
 */
final class PodGroupScheduledCondition {

  static final String TYPE = "PodGroupScheduled";
  static final String SCHEDULED = "Scheduled";
  static final String UNSCHEDULABLE = "Unschedulable";
  static final String SCHEDULER_ERROR = "SchedulerError";

  private PodGroupScheduledCondition() {
  }

  /** The condition this sync would write: {@code (status, reason, message)}, or empty to leave it as it is. */
  record Verdict(String status, String reason, String message) {
  }

  static Optional<Verdict> verdict(int minCount, List<Pod> members) {
    int placed = 0;
    List<Pod> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    Pod refused = null;
    PodCondition refusal = null;
    for (Pod p : sorted) {
      if (p.getSpec() != null && p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()) {
        placed++;
        continue;
      }
      Optional<PodCondition> c = podScheduledFalse(p);
      if (refusal == null && c.isPresent()) {
        refused = p;
        refusal = c.get();
      }
    }
    String count = placed + " of minCount " + minCount + " pods are on nodes";
    if (placed >= minCount) {
      return Optional.of(new Verdict("True", SCHEDULED, count));
    }
    if (refusal == null) {
      return Optional.empty();
    }
    String reason = SCHEDULER_ERROR.equals(refusal.getReason()) ? SCHEDULER_ERROR : UNSCHEDULABLE;
    return Optional.of(new Verdict("False", reason, count + "; pod \"" + refused.getMetadata().getName() + "\": "
        + Objects.toString(refusal.getMessage(), "")));
  }

  private static Optional<PodCondition> podScheduledFalse(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .filter(c -> UNSCHEDULABLE.equals(c.getReason()) || SCHEDULER_ERROR.equals(c.getReason()))
        .findFirst();
  }

  /**
   * {@code conditions} with {@link #TYPE} set from {@code verdict}: a new list (the others kept in order), or
   * {@code conditions} itself when nothing changes.
   */
  @SuppressWarnings("unchecked")
  static List<Object> apply(List<Object> conditions, Verdict verdict, long generation, Instant now) {
    List<Object> out = new ArrayList<>();
    boolean found = false;
    boolean changed = false;
    for (Object o : conditions) {
      if (o instanceof Map<?, ?> m && TYPE.equals(m.get("type"))) {
        found = true;
        Map<String, Object> c = (Map<String, Object>) m;
        boolean statusChanged = !verdict.status().equals(c.get("status"));
        Map<String, Object> updated = new LinkedHashMap<>(c);
        updated.put("status", verdict.status());
        updated.put("reason", verdict.reason());
        updated.put("message", verdict.message());
        updated.put("observedGeneration", generation);
        if (statusChanged || !(c.get("lastTransitionTime") instanceof String)) {
          updated.put("lastTransitionTime", ApiTimes.format(now));
        }
        changed = !sameCondition(c, updated);
        out.add(updated);
      } else {
        out.add(o);
      }
    }
    if (!found) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("type", TYPE);
      c.put("status", verdict.status());
      c.put("observedGeneration", generation);
      c.put("lastTransitionTime", ApiTimes.format(now));
      c.put("reason", verdict.reason());
      c.put("message", verdict.message());
      out.add(c);
      changed = true;
    }
    return changed ? out : conditions;
  }

  private static boolean sameCondition(Map<String, Object> a, Map<String, Object> b) {
    for (String k : List.of("status", "reason", "message", "lastTransitionTime")) {
      if (!Objects.equals(a.get(k), b.get(k))) {
        return false;
      }
    }
    return a.get("observedGeneration") instanceof Number n && n.longValue() == ((Number) b.get("observedGeneration"))
        .longValue();
  }
}
