package io.berth.embedded.defaults;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * What the priority admission step needs to know of a {@code scheduling.k8s.io/v1} PriorityClass.
 * Immutable, thread-safe.
 *
 * @param name the class name, e.g. {@code system-node-critical}
 * @param value the priority a pod of this class gets
 * @param preemptionPolicy {@code PreemptLowerPriority} (the API default) or {@code Never}
 * @param globalDefault whether pods without a class name get this class
 */
public record PriorityClassInfo(String name, int value, String preemptionPolicy, boolean globalDefault) {

  /** The API default of a PriorityClass's {@code preemptionPolicy}. */
  public static final String PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority";

  /** The class kube-apiserver bootstraps for cluster-critical add-ons. */
  public static final PriorityClassInfo SYSTEM_CLUSTER_CRITICAL =
      new PriorityClassInfo("system-cluster-critical", 2_000_000_000, PREEMPT_LOWER_PRIORITY, false);

  /** The class kube-apiserver bootstraps for node-critical pods. */
  public static final PriorityClassInfo SYSTEM_NODE_CRITICAL =
      new PriorityClassInfo("system-node-critical", 2_000_001_000, PREEMPT_LOWER_PRIORITY, false);

  public PriorityClassInfo {
    Objects.requireNonNull(name, "name");
    if (preemptionPolicy == null || preemptionPolicy.isEmpty()) {
      preemptionPolicy = PREEMPT_LOWER_PRIORITY;
    }
  }

  /** Reads the fields of a PriorityClass object tree ({@code metadata.name}, {@code value}, …). */
  public static PriorityClassInfo fromObject(JsonNode priorityClass) {
    return new PriorityClassInfo(
        priorityClass.path("metadata").path("name").asString(""),
        priorityClass.path("value").asInt(0),
        priorityClass.path("preemptionPolicy").asString(""),
        priorityClass.path("globalDefault").asBoolean(false));
  }
}
