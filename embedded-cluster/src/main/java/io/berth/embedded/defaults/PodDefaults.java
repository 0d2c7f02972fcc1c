package io.berth.embedded.defaults;

import static io.berth.embedded.defaults.JsonFields.existingObject;
import static io.berth.embedded.defaults.JsonFields.objects;

import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a Pod (not a pod template) gets beyond {@link PodSpecDefaults}:
 *
 * <ul>
 *   <li>{@code SetDefaults_Pod}: container requests default to their limits; {@code enableServiceLinks}
 *       true; with {@code hostNetwork}, container ports' {@code hostPort} defaults to the container port.
 *   <li>The DefaultTolerationSeconds admission plugin (create and update): unless tolerated already, add
 *       {@code node.kubernetes.io/not-ready} and {@code node.kubernetes.io/unreachable} NoExecute
 *       tolerations for 300 s.
 *   <li>On create only: the Priority admission plugin (resolve {@code priority} and
 *       {@code preemptionPolicy} from the PriorityClass), and the pod strategy's
 *       {@code PrepareForCreate} ({@code status.phase} Pending, {@code status.qosClass}, the
 *       {@code PodScheduled=False/SchedulingGated} condition for gated pods).
 * </ul>
 * Mutates the given tree; stateless, thread-safe.
 */
final class PodDefaults {

  static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
  static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
  static final int DEFAULT_TOLERATION_SECONDS = 300;

  private PodDefaults() {}

  /** {@code SetDefaults_Pod}: runs on every decode, so on create and update. */
  static void applyPodOnly(ObjectNode spec) {
    for (String list : List.of("containers", "initContainers")) {
      for (ObjectNode container : objects(spec, list)) {
        defaultRequestsToLimits(container);
      }
    }
    JsonFields.defaultPointer(spec, "enableServiceLinks", true);
    if (spec.path("hostNetwork").asBoolean(false)) {
      for (String list : List.of("containers", "initContainers")) {
        for (ObjectNode container : objects(spec, list)) {
          for (ObjectNode port : objects(container, "ports")) {
            if (JsonFields.isZero(port, "hostPort") && port.path("containerPort").isNumber()) {
              port.set("hostPort", port.get("containerPort"));
            }
          }
        }
      }
    }
  }

  private static void defaultRequestsToLimits(ObjectNode container) {
    ObjectNode resources = existingObject(container, "resources");
    ObjectNode limits = existingObject(resources, "limits");
    if (limits == null || limits.isEmpty()) {
      return;
    }
    ObjectNode requests = JsonFields.object(resources, "requests");
    for (Map.Entry<String, JsonNode> limit : limits.properties()) {
      if (!requests.has(limit.getKey())) {
        requests.set(limit.getKey(), limit.getValue().deepCopy());
      }
    }
  }

  /** The DefaultTolerationSeconds admission plugin; runs on create and update. */
  static void addDefaultTolerations(ObjectNode spec) {
    boolean toleratesNotReady = false;
    boolean toleratesUnreachable = false;
    for (ObjectNode toleration : objects(spec, "tolerations")) {
      String key = JsonFields.string(toleration, "key");
      String effect = JsonFields.string(toleration, "effect");
      boolean noExecuteOrAny = effect.isEmpty() || effect.equals("NoExecute");
      toleratesNotReady |= noExecuteOrAny && (key.isEmpty() || key.equals(NOT_READY_TAINT));
      toleratesUnreachable |= noExecuteOrAny && (key.isEmpty() || key.equals(UNREACHABLE_TAINT));
    }
    if (toleratesNotReady && toleratesUnreachable) {
      return;
    }
    JsonNode existing = spec.get("tolerations");
    ArrayNode tolerations = existing != null && existing.isArray() ? (ArrayNode) existing : spec.putArray("tolerations");
    if (!toleratesNotReady) {
      tolerations.add(defaultToleration(tolerations, NOT_READY_TAINT));
    }
    if (!toleratesUnreachable) {
      tolerations.add(defaultToleration(tolerations, UNREACHABLE_TAINT));
    }
  }

  private static ObjectNode defaultToleration(ArrayNode factory, String key) {
    ObjectNode toleration = factory.objectNode();
    toleration.put("key", key);
    toleration.put("operator", "Exists");
    toleration.put("effect", "NoExecute");
    toleration.put("tolerationSeconds", DEFAULT_TOLERATION_SECONDS);
    return toleration;
  }

  /**
   * The Priority admission plugin on create: a named class must exist and gives {@code priority} and
   * {@code preemptionPolicy}; without a name the global default class applies (and its name is set),
   * else priority 0 and {@code PreemptLowerPriority}. A client-set value that differs from the resolved
   * one is refused.
   *
   * @throws AdmissionException naming {@code spec.priorityClassName}, {@code spec.priority} or
   *     {@code spec.preemptionPolicy}
   */
  static void admitPriority(ObjectNode spec, PriorityClassLookup lookup) {
    String className = JsonFields.string(spec, "priorityClassName");
    int priority;
    String preemptionPolicy;
    if (className.isEmpty()) {
      var globalDefault = lookup.globalDefault();
      if (globalDefault.isPresent()) {
        spec.put("priorityClassName", globalDefault.get().name());
        priority = globalDefault.get().value();
        preemptionPolicy = globalDefault.get().preemptionPolicy();
      } else {
        priority = 0;
        preemptionPolicy = PriorityClassInfo.PREEMPT_LOWER_PRIORITY;
      }
    } else {
      PriorityClassInfo priorityClass = lookup.byName(className).orElseThrow(() -> new AdmissionException(
          "spec.priorityClassName", "no PriorityClass with name " + className + " was found"));
      priority = priorityClass.value();
      preemptionPolicy = priorityClass.preemptionPolicy();
    }
    JsonNode given = spec.get("priority");
    if (given != null && !given.isNull() && given.asLong() != priority) {
      throw new AdmissionException("spec.priority", "the integer value of priority (" + given.asLong()
          + ") must not be provided in pod spec; priority admission controller computed " + priority
          + " from the given PriorityClass name");
    }
    spec.put("priority", priority);
    String givenPolicy = JsonFields.string(spec, "preemptionPolicy");
    if (!givenPolicy.isEmpty() && !givenPolicy.equals(preemptionPolicy)) {
      throw new AdmissionException("spec.preemptionPolicy", "the string value of PreemptionPolicy ("
          + givenPolicy + ") must not be provided in pod spec; priority admission controller computed "
          + preemptionPolicy + " from the given PriorityClass name");
    }
    spec.put("preemptionPolicy", preemptionPolicy);
  }

  /**
   * On update the Priority admission plugin keeps the values it set on create when the new object omits
   * them (validation then refuses any other change).
   */
  static void preservePriority(ObjectNode spec, JsonNode oldSpec) {
    for (String field : List.of("priority", "preemptionPolicy")) {
      JsonNode old = oldSpec.get(field);
      if (JsonFields.isNil(spec, field) && old != null && !old.isNull()) {
        spec.set(field, old.deepCopy());
      }
    }
  }

  /**
   * The status part of the pod strategy's {@code PrepareForCreate}: phase Pending (when unset),
   * {@code qosClass} computed, and for a pod with scheduling gates a {@code PodScheduled} condition with
   * reason {@code SchedulingGated} (unless one exists).
   */
  static void prepareStatusForCreate(ObjectNode pod, ObjectNode spec, Clock clock) {
    ObjectNode status = JsonFields.object(pod, "status");
    JsonFields.defaultString(status, "phase", "Pending");
    status.put("qosClass", PodQos.of(spec));
    if (!JsonFields.hasElements(spec, "schedulingGates")) {
      return;
    }
    for (ObjectNode condition : objects(status, "conditions")) {
      if ("PodScheduled".equals(JsonFields.string(condition, "type"))) {
        return;
      }
    }
    JsonNode existing = status.get("conditions");
    ArrayNode conditions = existing != null && existing.isArray() ? (ArrayNode) existing : status.putArray("conditions");
    ObjectNode gated = conditions.addObject();
    gated.put("type", "PodScheduled");
    gated.put("status", "False");
    gated.put("lastTransitionTime",
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS)));
    gated.put("reason", "SchedulingGated");
    gated.put("message", "Scheduling is blocked due to non-empty scheduling gates");
  }
}
