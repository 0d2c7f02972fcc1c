package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2} PodGroup into the scheduler's {@link PodGroup}:
 * {@code spec.schedulingPolicy} must set exactly one of {@code basic} (no gang: minMember 1) and {@code gang}
 * ({@code minCount} at least 1 becomes minMember); {@code spec.schedulingConstraints.topology} holds at most one
 * {@code key}, a node label key. The policy and constraints are read from the PodGroup itself, as upstream's
 * scheduler does: workload controllers copy them from the Workload's template when they create the group. The
 * v1alpha2 PodGroup has no timeout field, so members wait {@value #DEFAULT_TIMEOUT_SECONDS} s at Permit, upstream's
 * default for the Workload API. Throws {@link IllegalArgumentException} naming the PodGroup and field for bad input.
 * Stateless and thread-safe.
 */
public final class WorkloadPodGroups {

  /** How long a Workload API gang's members wait at Permit (upstream: 5 minutes). */
  public static final int DEFAULT_TIMEOUT_SECONDS = 300;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private WorkloadPodGroups() {
  }

  /** Reads a cached v1alpha2 PodGroup; throws {@link IllegalArgumentException} naming the object and field. */
  public static PodGroup from(GenericKubernetesResource r) {
    String ns = r.getMetadata().getNamespace();
    String name = r.getMetadata().getName();
    String who = "PodGroup \"" + ns + "/" + name + "\"";
    Instant created = PodGroup.creationTimestamp(who, r);
    Map<String, Object> spec = object(who, "spec", r.getAdditionalProperties().get("spec"));
    Map<String, Object> policy = object(who, "spec.schedulingPolicy", spec.get("schedulingPolicy"));
    boolean basic = policy.get("basic") != null;
    boolean gang = policy.get("gang") != null;
    if (basic == gang) {
      throw new IllegalArgumentException(who + ": spec.schedulingPolicy: Invalid value: exactly one of basic and "
          + "gang must be set");
    }
    int minCount = 1;
    if (gang) {
      Map<String, Object> g = object(who, "spec.schedulingPolicy.gang", policy.get("gang"));
      Object raw = g.get("minCount");
      if (!(raw instanceof Number n) || n.doubleValue() != n.longValue() || n.longValue() != n.intValue()) {
        throw new IllegalArgumentException(who + ": spec.schedulingPolicy.gang.minCount: Invalid value: " + raw
            + ": must be a 32-bit integer");
      }
      minCount = n.intValue();
      if (minCount < 1) {
        throw new IllegalArgumentException(who + ": spec.schedulingPolicy.gang.minCount: Invalid value: "
            + minCount + ": must be greater than or equal to 1");
      }
    }
    Optional<String> topologyKey = Optional.empty();
    Object constraintsRaw = spec.get("schedulingConstraints");
    if (constraintsRaw != null) {
      Map<String, Object> constraints = object(who, "spec.schedulingConstraints", constraintsRaw);
      Object topology = constraints.get("topology");
      if (topology != null) {
        if (!(topology instanceof List<?> list)) {
          throw new IllegalArgumentException(who + ": spec.schedulingConstraints.topology: Invalid value: must be "
              + "a list");
        }
        if (list.size() > 1) {
          throw new IllegalArgumentException(who + ": spec.schedulingConstraints.topology: Too many: "
              + list.size() + ": must have at most 1 items");
        }
        if (list.size() == 1) {
          String field = "spec.schedulingConstraints.topology[0].key";
          Object key = object(who, "spec.schedulingConstraints.topology[0]", list.get(0)).get("key");
          if (!(key instanceof String k)) {
            throw new IllegalArgumentException(who + ": " + field + ": Required value");
          }
          topologyKey = Optional.of(labelKey(who, field, k));
        }
      }
    }
    return new PodGroup(ns, name, created, minCount, Map.of(), Optional.of(DEFAULT_TIMEOUT_SECONDS),
        GroupRef.Api.WORKLOAD, gang, topologyKey);
  }

  /** Validates a node label key (an optional DNS-subdomain prefix and a name of at most 63 characters). */
  static String labelKey(String who, String field, String key) {
    int slash = key.indexOf('/');
    String prefix = slash < 0 ? null : key.substring(0, slash);
    String name = slash < 0 ? key : key.substring(slash + 1);
    boolean ok = name.length() <= 63 && NAME.matcher(name).matches()
        && (prefix == null || (prefix.length() <= 253 && DNS_SUBDOMAIN.matcher(prefix).matches()));
    if (!ok) {
      throw new IllegalArgumentException(who + ": " + field + ": Invalid value: \"" + key + "\": must be a "
          + "label key (an optional DNS subdomain prefix and '/', and a name of at most 63 alphanumeric "
          + "characters, '-', '_' or '.')");
    }
    return key;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(String who, String field, Object raw) {
    if (raw == null) {
      throw new IllegalArgumentException(who + ": " + field + ": Required value");
    }
    if (!(raw instanceof Map)) {
      throw new IllegalArgumentException(who + ": " + field + ": Invalid value: must be an object");
    }
    return (Map<String, Object>) raw;
  }
}
