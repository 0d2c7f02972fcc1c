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
 * The part of a {@code scheduling.x-k8s.io/v1alpha1} PodGroup the scheduler reads: its key, creation time,
 * {@code spec.minMember} (at least 1), {@code spec.minResources} (in the scheduler's units: milli-CPU, bytes, counts)
 * and {@code spec.scheduleTimeoutSeconds}. Parsed from the generic object the informer caches; {@link #from} throws
 * {@link IllegalArgumentException} naming the PodGroup and the field for bad input. Immutable.
 *
 * @param namespace the PodGroup's namespace
 * @param name the PodGroup's name, the value of the pods' {@value #LABEL} label
 * @param creationTimestamp when the PodGroup was created (QueueSort orders groups by it)
 * @param minMember how many members must be placeable together
 * @param minResources the resources the whole group needs at least; empty when unset
 * @param scheduleTimeoutSeconds how long members wait at Permit; empty for the plugin's default
 */
public record PodGroup(String namespace, String name, Instant creationTimestamp, int minMember,
    Map<String, Long> minResources, Optional<Integer> scheduleTimeoutSeconds) {

  /** The label that makes a pod a member of the PodGroup it names, in the pod's namespace. */
  public static final String LABEL = "scheduling.x-k8s.io/pod-group";
  public static final String API_VERSION = "scheduling.x-k8s.io/v1alpha1";
  public static final String KIND = "PodGroup";

  public PodGroup {
    minResources = Map.copyOf(minResources);
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
    Instant created;
    try {
      String ts = r.getMetadata().getCreationTimestamp();
      created = ts == null ? Instant.EPOCH : Instant.parse(ts);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(who + ": metadata.creationTimestamp: Invalid value: \""
          + r.getMetadata().getCreationTimestamp() + "\"");
    }
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
    return new PodGroup(ns, name, created, minMember, minResources, timeout);
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
