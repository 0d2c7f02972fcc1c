package io.berth.plugins.coscheduling;

import io.berth.framework.Quantities;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The part of a group the scheduler reads, from either API ({@link GroupRef.Api}). For a
 * {@code scheduling.x-k8s.io/v1alpha1} PodGroup ({@link #from}): its key, creation time, {@code spec.minMember}
 * (at least 1), {@code spec.minResources} (in the scheduler's units: milli-CPU, bytes, counts),
 * {@code spec.scheduleTimeoutSeconds} and the topology key of the annotation {@value #TOPOLOGY_KEY_ANNOTATION}.
 * For a {@code scheduling.k8s.io/v1alpha2} PodGroup see {@link WorkloadPodGroups#from}. Parsed from the generic
 * object the informer caches; the parsers throw {@link IllegalArgumentException} naming the PodGroup and the field
 * for bad input. Immutable.
 *
 * @param namespace the PodGroup's namespace
 * @param name the PodGroup's name, the value of the pods' {@value #LABEL} label
 * @param creationTimestamp when the PodGroup was created (QueueSort orders groups by it)
 * @param minMember how many members must be placeable together
 * @param minResources the resources the whole group needs at least; empty when unset
 * @param scheduleTimeoutSeconds how long members wait at Permit; empty for the plugin's default
 * @param api the API the group lives in
 * @param gang whether the group is placed all or nothing (false for the Workload API's {@code basic} policy)
 * @param topologyKey the node label whose single domain must hold the whole group, if any
 */
public record PodGroup(String namespace, String name, Instant creationTimestamp, int minMember,
    Map<String, Long> minResources, Optional<Integer> scheduleTimeoutSeconds, GroupRef.Api api, boolean gang,
    Optional<String> topologyKey) {

  /** The label that makes a pod a member of the PodGroup it names, in the pod's namespace. */
  public static final String LABEL = "scheduling.x-k8s.io/pod-group";
  public static final String API_VERSION = "scheduling.x-k8s.io/v1alpha1";
  public static final String KIND = "PodGroup";
  /** The annotation on a scheduler-plugins PodGroup that names its topology key. */
  public static final String TOPOLOGY_KEY_ANNOTATION = "scheduling.x-k8s.io/topology-key";

  public PodGroup {
    minResources = Map.copyOf(minResources);
  }

  /** A scheduler-plugins gang without a topology key. */
  public PodGroup(String namespace, String name, Instant creationTimestamp, int minMember,
      Map<String, Long> minResources, Optional<Integer> scheduleTimeoutSeconds) {
    this(namespace, name, creationTimestamp, minMember, minResources, scheduleTimeoutSeconds,
        GroupRef.Api.SCHEDULER_PLUGINS, true, Optional.empty());
  }

  /** The reference pods use to join this group. */
  public GroupRef ref() {
    return new GroupRef(api, namespace, name);
  }

  /** {@code namespace/name}, how messages and caches name the group. */
  public String key() {
    return namespace + "/" + name;
  }

  /** Reads a cached PodGroup; throws {@link IllegalArgumentException} naming the object and field. */
  @SuppressWarnings("unchecked")
  public static PodGroup from(GenericKubernetesResource r) {
    String ns = r.getMetadata().getNamespace();
    String name = r.getMetadata().getName();
    String who = "PodGroup \"" + ns + "/" + name + "\"";
    Instant created = creationTimestamp(who, r);
    Object specRaw = r.getAdditionalProperties().get("spec");
    if (specRaw != null && !(specRaw instanceof Map)) {
      throw new IllegalArgumentException(who + ": spec: Invalid value: must be an object");
    }
    Map<String, Object> spec = specRaw == null ? Map.of() : (Map<String, Object>) specRaw;
    int minMember = integer(who, spec, "minMember").orElse(0);
    if (minMember < 1) {
      throw new IllegalArgumentException(who + ": spec.minMember: Invalid value: " + minMember
          + ": must be greater than or equal to 1");
    }
    Optional<Integer> timeout = integer(who, spec, "scheduleTimeoutSeconds");
    if (timeout.isPresent() && timeout.get() < 1) {
      throw new IllegalArgumentException(who + ": spec.scheduleTimeoutSeconds: Invalid value: " + timeout.get()
          + ": must be greater than or equal to 1");
    }
    Map<String, Long> minResources = new LinkedHashMap<>();
    Object resRaw = spec.get("minResources");
    if (resRaw != null) {
      if (!(resRaw instanceof Map)) {
        throw new IllegalArgumentException(who + ": spec.minResources: Invalid value: must be a map of quantities");
      }
      for (Map.Entry<String, Object> e : ((Map<String, Object>) resRaw).entrySet()) {
        String field = who + ": spec.minResources[" + e.getKey() + "]";
        long amount = Quantities.forResource(e.getKey(), new Quantity(String.valueOf(e.getValue())), field);
        if (amount < 0) {
          throw new IllegalArgumentException(field + ": Invalid value: must not be negative");
        }
        minResources.put(e.getKey(), amount);
      }
    }
    Optional<String> topologyKey = Optional.empty();
    Map<String, String> annotations = r.getMetadata().getAnnotations();
    String key = annotations == null ? null : annotations.get(TOPOLOGY_KEY_ANNOTATION);
    if (key != null) {
      topologyKey = Optional.of(WorkloadPodGroups.labelKey(who, "metadata.annotations[" + TOPOLOGY_KEY_ANNOTATION
          + "]", key));
    }
    return new PodGroup(ns, name, created, minMember, minResources, timeout, GroupRef.Api.SCHEDULER_PLUGINS, true,
        topologyKey);
  }

  /** Reads the creation timestamp; throws naming the object when it is not RFC 3339. */
  static Instant creationTimestamp(String who, GenericKubernetesResource r) {
    try {
      String ts = r.getMetadata().getCreationTimestamp();
      return ts == null ? Instant.EPOCH : Instant.parse(ts);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(who + ": metadata.creationTimestamp: Invalid value: \""
          + r.getMetadata().getCreationTimestamp() + "\"");
    }
  }

  private static Optional<Integer> integer(String who, Map<String, Object> spec, String field) {
    Object raw = spec.get(field);
    if (raw == null) {
      return Optional.empty();
    }
    if (raw instanceof Number n && n.doubleValue() == n.longValue() && n.longValue() == n.intValue()) {
      return Optional.of(n.intValue());
    }
    throw new IllegalArgumentException(who + ": spec." + field + ": Invalid value: " + raw
        + ": must be a 32-bit integer");
  }
}
