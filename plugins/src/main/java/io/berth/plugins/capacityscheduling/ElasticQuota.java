package io.berth.plugins.capacityscheduling;

import io.berth.framework.Quantities;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The part of a {@code scheduling.x-k8s.io/v1alpha1} ElasticQuota the scheduler reads: its namespace and name,
 * {@code spec.min} and {@code spec.max} (in the scheduler's units: milli-CPU, bytes, counts), whether it carries the
 * label {@value #PREEMPTIBLE_LABEL}{@code =true}, and {@code status.used} as last written. A resource named in
 * neither {@code min} nor {@code max} is not limited by the quota; one named only in {@code min} has no upper bound;
 * one named only in {@code max} guarantees nothing. {@link #from} throws {@link IllegalArgumentException} naming the
 * ElasticQuota and the field for bad input (a negative amount, {@code min} above {@code max}). Immutable.
 *
 * @param namespace the namespace it governs
 * @param name its name
 * @param min the guaranteed share, by resource name
 * @param max the upper bound, by resource name
 * @param preemptible whether every pod of the namespace runs on borrowed capacity only
 * @param statusUsed {@code status.used} as read (for the status writer to compare)
 */
public record ElasticQuota(String namespace, String name, Map<String, Long> min, Map<String, Long> max,
    boolean preemptible, Map<String, Long> statusUsed) {

  public static final String GROUP = "scheduling.x-k8s.io";
  public static final String VERSION = "v1alpha1";
  public static final String KIND = "ElasticQuota";
  public static final String PLURAL = "elasticquotas";
  /** On an ElasticQuota or a pod: the pods run on borrowed capacity only and are reclaimed first. */
  public static final String PREEMPTIBLE_LABEL = "scheduling.berth.io/preemptible";

  public ElasticQuota {
    min = Map.copyOf(min);
    max = Map.copyOf(max);
    statusUsed = Map.copyOf(statusUsed);
  }

  /** {@code namespace/name}, how messages name the quota. */
  public String key() {
    return namespace + "/" + name;
  }

  /** This quota with an empty {@code status.used}: what the scheduler decides by. */
  public ElasticQuota withoutStatus() {
    return statusUsed.isEmpty() ? this : new ElasticQuota(namespace, name, min, max, preemptible, Map.of());
  }

  /** Whether the quota limits {@code resource} at all. */
  public boolean governs(String resource) {
    return min.containsKey(resource) || max.containsKey(resource);
  }

  /** Reads a cached ElasticQuota; throws {@link IllegalArgumentException} naming the object and field. */
  @SuppressWarnings("unchecked")
  public static ElasticQuota from(GenericKubernetesResource r) {
    String ns = r.getMetadata().getNamespace();
    String name = r.getMetadata().getName();
    String who = "ElasticQuota \"" + ns + "/" + name + "\"";
    Map<String, Object> spec = object(who, "spec", r.getAdditionalProperties().get("spec"));
    Map<String, Long> min = quantities(who, "spec.min", spec.get("min"));
    Map<String, Long> max = quantities(who, "spec.max", spec.get("max"));
    for (Map.Entry<String, Long> e : min.entrySet()) {
      Long upper = max.get(e.getKey());
      if (upper != null && e.getValue() > upper) {
        throw new IllegalArgumentException(who + ": spec.min[" + e.getKey() + "]: Invalid value: "
            + Amounts.format(e.getKey(), e.getValue()) + ": must be less than or equal to spec.max[" + e.getKey()
            + "] " + Amounts.format(e.getKey(), upper));
      }
    }
    Map<String, Object> status = object(who, "status", r.getAdditionalProperties().get("status"));
    Map<String, Long> used;
    try {
      used = quantities(who, "status.used", status.get("used"));
    } catch (IllegalArgumentException badStatus) {
      used = Map.of(); // the scheduler owns status.used: a bad one is simply rewritten
    }
    Map<String, String> labels = r.getMetadata().getLabels();
    boolean preemptible = labels != null && "true".equals(labels.get(PREEMPTIBLE_LABEL));
    return new ElasticQuota(ns, name, min, max, preemptible, used);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(String who, String field, Object raw) {
    if (raw == null) {
      return Map.of();
    }
    if (!(raw instanceof Map)) {
      throw new IllegalArgumentException(who + ": " + field + ": Invalid value: must be an object");
    }
    return (Map<String, Object>) raw;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> quantities(String who, String field, Object raw) {
    Map<String, Long> out = new LinkedHashMap<>();
    if (raw == null) {
      return out;
    }
    if (!(raw instanceof Map)) {
      throw new IllegalArgumentException(who + ": " + field + ": Invalid value: must be a map of quantities");
    }
    for (Map.Entry<String, Object> e : ((Map<String, Object>) raw).entrySet()) {
      String f = who + ": " + field + "[" + e.getKey() + "]";
      long amount = Quantities.forResource(e.getKey(), new Quantity(String.valueOf(e.getValue())), f);
      if (amount < 0) {
        throw new IllegalArgumentException(f + ": Invalid value: " + e.getValue() + ": must not be negative");
      }
      out.put(e.getKey(), amount);
    }
    return out;
  }
}
