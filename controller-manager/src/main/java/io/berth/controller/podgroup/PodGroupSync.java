package io.berth.controller.podgroup;

import io.berth.controller.EventRecorder;
import io.berth.controller.WallClock;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sync of the {@code podgroup} controller for one {@link GroupKey}: reads the cached PodGroup and its members,
 * computes the status ({@link SchedulerPluginsStatus} or the {@link PodGroupScheduledCondition}), writes it when it
 * differs (a JSON merge patch of {@code status}, so other writers' fields survive) and records an Event on the
 * group for each phase or condition change: the new phase as reason for scheduler-plugins' groups ({@code Warning}
 * for {@code Failed}), the condition's reason for 1.36's ({@code Warning} unless {@code Scheduled}). A malformed
 * group (its {@code spec.minMember} or {@code spec.schedulingPolicy}) gets a {@code Warning} Event
 * {@value #INVALID} naming the field and is not retried until it changes; a failed write is retried with backoff
 * by the caller. Thread-safe: holds no state between syncs; the queue never syncs one key on two threads.
 */
final class PodGroupSync {

  private static final Logger LOG = LoggerFactory.getLogger(PodGroupSync.class);
  static final String INVALID = "InvalidPodGroup";

  /** Writes {@code status} of the group as a JSON merge patch of its status subresource. */
  @FunctionalInterface
  interface StatusWriter {
    void patchStatus(GroupKey key, Map<String, Object> status) throws Exception;
  }

  private final Function<GroupKey, Optional<GenericKubernetesResource>> groups;
  private final Function<String, List<Pod>> podsInNamespace;
  private final StatusWriter writer;
  private final EventRecorder recorder;
  private final WallClock clock;

  PodGroupSync(Function<GroupKey, Optional<GenericKubernetesResource>> groups,
      Function<String, List<Pod>> podsInNamespace, StatusWriter writer, EventRecorder recorder, WallClock clock) {
    this.groups = groups;
    this.podsInNamespace = podsInNamespace;
    this.writer = writer;
    this.recorder = recorder;
    this.clock = clock;
  }

  void sync(String encoded) throws Exception {
    Optional<GroupKey> parsed = GroupKey.decode(encoded);
    if (parsed.isEmpty()) {
      LOG.warn("podgroup: ignoring malformed key {}", encoded);
      return;
    }
    GroupKey key = parsed.get();
    Optional<GenericKubernetesResource> group = groups.apply(key);
    if (group.isEmpty()) {
      LOG.debug("PodGroup {} ({}) has been deleted", key.objectKey(), key.api().group);
      return;
    }
    List<Pod> members = new ArrayList<>();
    for (Pod p : podsInNamespace.apply(key.namespace())) {
      if (GroupKey.of(p).map(key::equals).orElse(false)) {
        members.add(p);
      }
    }
    GenericKubernetesResource pg = group.get();
    try {
      switch (key.api()) {
        case SCHEDULER_PLUGINS -> syncSchedulerPlugins(key, pg, members);
        case WORKLOAD -> syncWorkload(key, pg, members);
      }
    } catch (InvalidGroup e) {
      LOG.warn("{}", e.getMessage());
      recorder.event(pg, EventRecorder.WARNING, INVALID, "%s", e.getMessage());
    }
  }

  private void syncSchedulerPlugins(GroupKey key, GenericKubernetesResource pg, List<Pod> members)
      throws Exception {
    int minMember = minMember(key, pg);
    Map<String, Object> current = section(key, pg, "status");
    Map<String, Object> next = SchedulerPluginsStatus.next(current, minMember, members, clock.now());
    if (next.equals(current)) {
      return;
    }
    writer.patchStatus(key, next);
    Object from = current.getOrDefault("phase", "");
    Object to = next.get("phase");
    if (!Objects.equals(from, to)) {
      recorder.event(pg, SchedulerPluginsStatus.FAILED.equals(to) ? EventRecorder.WARNING : EventRecorder.NORMAL,
          String.valueOf(to), "PodGroup phase %s -> %s: %d pods (minMember %d), %d scheduled, %d running, "
              + "%d succeeded, %d failed", from.toString().isEmpty() ? "\"\"" : from, to, members.size(), minMember,
          next.get("scheduled"), next.get("running"), next.get("succeeded"), next.get("failed"));
    }
  }

  @SuppressWarnings("unchecked")
  private void syncWorkload(GroupKey key, GenericKubernetesResource pg, List<Pod> members) throws Exception {
    int minCount = minCount(key, pg);
    Optional<PodGroupScheduledCondition.Verdict> verdict = PodGroupScheduledCondition.verdict(minCount, members);
    if (verdict.isEmpty()) {
      return;
    }
    Map<String, Object> status = section(key, pg, "status");
    List<Object> conditions = status.get("conditions") instanceof List<?> l ? (List<Object>) l : List.of();
    long generation = pg.getMetadata().getGeneration() == null ? 0 : pg.getMetadata().getGeneration();
    List<Object> next = PodGroupScheduledCondition.apply(conditions, verdict.get(), generation, clock.now());
    if (next == conditions) {
      return;
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("conditions", next);
    writer.patchStatus(key, patch);
    String before = conditions.stream().filter(o -> o instanceof Map<?, ?> m
        && PodGroupScheduledCondition.TYPE.equals(m.get("type"))).map(o -> ((Map<?, ?>) o).get("status") + "/"
        + ((Map<?, ?>) o).get("reason")).findFirst().orElse("");
    PodGroupScheduledCondition.Verdict v = verdict.get();
    if (!before.equals(v.status() + "/" + v.reason())) {
      recorder.event(pg, v.status().equals("True") ? EventRecorder.NORMAL : EventRecorder.WARNING, v.reason(),
          "%s", v.message());
    }
  }

  /** A bad field of the group: named, not retried. */
  private static final class InvalidGroup extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidGroup(String message) {
      super(message, null, false, false);
    }
  }

  private static String who(GroupKey key) {
    return "PodGroup \"" + key.objectKey() + "\" (" + key.api().apiVersion() + ")";
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(GroupKey key, GenericKubernetesResource pg, String field)
      throws InvalidGroup {
    Object raw = pg.getAdditionalProperties().get(field);
    if (raw == null) {
      return Map.of();
    }
    if (!(raw instanceof Map)) {
      throw new InvalidGroup(who(key) + ": " + field + ": Invalid value: must be an object");
    }
    return (Map<String, Object>) raw;
  }

  private static int minMember(GroupKey key, GenericKubernetesResource pg) throws InvalidGroup {
    return positiveInt(key, section(key, pg, "spec").get("minMember"), "spec.minMember");
  }

  @SuppressWarnings("unchecked")
  private static int minCount(GroupKey key, GenericKubernetesResource pg) throws InvalidGroup {
    Object policy = section(key, pg, "spec").get("schedulingPolicy");
    if (!(policy instanceof Map<?, ?> p) || (p.get("basic") == null) == (p.get("gang") == null)) {
      throw new InvalidGroup(who(key) + ": spec.schedulingPolicy: Invalid value: exactly one of basic and gang "
          + "must be set");
    }
    if (p.get("basic") != null) {
      return 1;
    }
    if (!(p.get("gang") instanceof Map<?, ?> gang)) {
      throw new InvalidGroup(who(key) + ": spec.schedulingPolicy.gang: Invalid value: must be an object");
    }
    return positiveInt(key, ((Map<String, Object>) gang).get("minCount"), "spec.schedulingPolicy.gang.minCount");
  }

  private static int positiveInt(GroupKey key, Object raw, String field) throws InvalidGroup {
    if (!(raw instanceof Number n) || n.doubleValue() != n.longValue() || n.longValue() != n.intValue()
        || n.intValue() < 1) {
      throw new InvalidGroup(who(key) + ": " + field + ": Invalid value: " + raw + ": must be an integer of at "
          + "least 1");
    }
    return n.intValue();
  }
}
