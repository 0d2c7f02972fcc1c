package io.berth.embedded.defaults;

import java.time.Clock;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API defaults and the defaulting admission steps kube-apiserver applies to a written object,
 * for the embedded API server to call before it stores a create or an update. Values are checked
 * against upstream {@code pkg/apis/core/v1/defaults.go}, {@code pkg/apis/apps/v1/defaults.go}, the
 * Priority and DefaultTolerationSeconds admission plugins and the pod and namespace strategies.
 *
 * <table>
 *   <caption>What is defaulted, per resource</caption>
 *   <tr><th>resource</th><th>create and update</th><th>create only</th></tr>
 *   <tr><td>pods</td><td>PodSpec, containers, probes, volumes; requests from limits; enableServiceLinks;
 *       not-ready/unreachable tolerations (300 s)</td>
 *       <td>priority, preemptionPolicy (and the global default class name); status.phase Pending;
 *       status.qosClass; PodScheduled=False/SchedulingGated for gated pods</td></tr>
 *   <tr><td>deployments, replicasets, statefulsets, daemonsets, replicationcontrollers,
 *       podtemplates</td><td>the kind's spec defaults and the template's PodSpec defaults</td><td></td></tr>
 *   <tr><td>services</td><td>type ClusterIP, sessionAffinity None, ports' protocol TCP and targetPort,
 *       traffic policies</td><td></td></tr>
 *   <tr><td>persistentvolumeclaims, persistentvolumes</td><td>volumeMode Filesystem, status.phase
 *       Pending (PV: reclaim policy Retain)</td><td></td></tr>
 *   <tr><td>namespaces</td><td>label {@code kubernetes.io/metadata.name}, status.phase Active</td>
 *       <td>finalizer {@code kubernetes}</td></tr>
 *   <tr><td>nodes</td><td>status.allocatable from capacity</td><td></td></tr>
 *   <tr><td>secrets; priorityclasses</td><td>type Opaque; preemptionPolicy PreemptLowerPriority</td>
 *       <td></td></tr>
 *   <tr><td>resourceclaims, resourceclaimtemplates</td><td>device requests' allocationMode ExactCount and
 *       count 1, tolerations' operator Equal</td><td></td></tr>
 * </table>
 *
 * <p>Only unset fields are filled (except {@code status.qosClass}, which upstream always computes);
 * the argument is never mutated, a new tree is returned (the {@code InPlace} variants default the
 * caller's own tree instead); resources not listed come back as an
 * unchanged copy. Upstream's {@code PrepareForCreate} also clears a pod's whole client-sent status and
 * sets {@code metadata.generation}; that is left to the store. Immutable (the clock only stamps
 * condition times) and thread-safe.
 */
public final class ApiDefaults {

  private final Clock clock;

  /** {@code "/" + resource} for the core resources with defaults, the keys the switch below matches. */
  private static final java.util.Map<String, String> CORE_KEYS = java.util.Map.ofEntries(
      java.util.Map.entry("pods", "/pods"), java.util.Map.entry("podtemplates", "/podtemplates"),
      java.util.Map.entry("replicationcontrollers", "/replicationcontrollers"),
      java.util.Map.entry("services", "/services"),
      java.util.Map.entry("persistentvolumeclaims", "/persistentvolumeclaims"),
      java.util.Map.entry("persistentvolumes", "/persistentvolumes"), java.util.Map.entry("namespaces", "/namespaces"),
      java.util.Map.entry("nodes", "/nodes"), java.util.Map.entry("secrets", "/secrets"));

  /** Defaults whose condition timestamps come from {@code clock}. */
  public ApiDefaults(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Defaults stamping times from the system UTC clock. */
  public static ApiDefaults systemDefaults() {
    return new ApiDefaults(Clock.systemUTC());
  }

  /**
   * The object as kube-apiserver would store it on create.
   *
   * @param group the API group, "" for core
   * @param resource the plural resource name, e.g. {@code pods}
   * @param object the decoded request body
   * @param priorityClasses the PriorityClasses the pod priority is resolved against
   * @return a defaulted copy
   * @throws AdmissionException (403 Forbidden) when a pod names a missing PriorityClass or sets a
   *     priority or preemption policy that differs from its class's
   */
  public ObjectNode applyOnCreate(String group, String resource, ObjectNode object, PriorityClassLookup priorityClasses) {
    return applyOnCreateInPlace(group, resource, copy(object), priorityClasses);
  }

  /**
   * As {@link #applyOnCreate}, but defaults {@code object} itself instead of a copy and returns it: for a caller
   * that owns the tree and gives it up (the server, with a request body it parsed), to save the copy.
   */
  public ObjectNode applyOnCreateInPlace(String group, String resource, ObjectNode object,
      PriorityClassLookup priorityClasses) {
    Objects.requireNonNull(priorityClasses, "priorityClasses");
    Objects.requireNonNull(object, "object");
    applyEveryWrite(group, resource, object);
    if (group.isEmpty() && resource.equals("pods")) {
      ObjectNode spec = JsonFields.object(object, "spec");
      PodDefaults.admitPriority(spec, priorityClasses);
      PodDefaults.prepareStatusForCreate(object, spec, clock);
    } else if (group.isEmpty() && resource.equals("namespaces")) {
      CoreObjectDefaults.namespaceOnCreate(object);
    }
    return object;
  }

  /**
   * The object as kube-apiserver would store it on update (PUT, or the result of a PATCH).
   *
   * @param oldObject the stored object being replaced, from which a pod keeps the priority and
   *     preemption policy set on create when the new object omits them
   * @return a defaulted copy
   */
  public ObjectNode applyOnUpdate(String group, String resource, ObjectNode object, JsonNode oldObject) {
    return applyOnUpdateInPlace(group, resource, copy(object), oldObject);
  }

  /** As {@link #applyOnUpdate}, but defaults {@code object} itself (owned by the caller) and returns it. */
  public ObjectNode applyOnUpdateInPlace(String group, String resource, ObjectNode object, JsonNode oldObject) {
    Objects.requireNonNull(oldObject, "oldObject");
    Objects.requireNonNull(object, "object");
    applyEveryWrite(group, resource, object);
    if (group.isEmpty() && resource.equals("pods")) {
      PodDefaults.preservePriority(JsonFields.object(object, "spec"), oldObject.path("spec"));
    }
    return object;
  }

  private static ObjectNode copy(ObjectNode object) {
    return Objects.requireNonNull(object, "object").deepCopy();
  }

  /** Scheme defaulting (runs on every decode) and admission steps that run on create and update. */
  private static void applyEveryWrite(String group, String resource, ObjectNode object) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(resource, "resource");
    // the core group's resources are matched without building "group/resource" per write
    switch (group.isEmpty() ? CORE_KEYS.getOrDefault(resource, resource) : group + "/" + resource) {
      case "/pods" -> {
        ObjectNode spec = JsonFields.object(object, "spec");
        PodSpecDefaults.applyToPodSpec(spec);
        PodDefaults.applyPodOnly(spec);
        PodDefaults.addDefaultTolerations(spec);
      }
      case "/podtemplates" -> WorkloadDefaults.podTemplate(object);
      case "/replicationcontrollers" -> WorkloadDefaults.replicationController(object);
      case "apps/deployments" -> WorkloadDefaults.deployment(object);
      case "apps/replicasets" -> WorkloadDefaults.replicaSet(object);
      case "apps/statefulsets" -> WorkloadDefaults.statefulSet(object);
      case "apps/daemonsets" -> WorkloadDefaults.daemonSet(object);
      case "/services" -> CoreObjectDefaults.service(object);
      case "/persistentvolumeclaims" -> CoreObjectDefaults.persistentVolumeClaim(object);
      case "/persistentvolumes" -> CoreObjectDefaults.persistentVolume(object);
      case "/namespaces" -> CoreObjectDefaults.namespace(object);
      case "/nodes" -> CoreObjectDefaults.node(object);
      case "/secrets" -> CoreObjectDefaults.secret(object);
      case "scheduling.k8s.io/priorityclasses" -> CoreObjectDefaults.priorityClass(object);
      case "resource.k8s.io/resourceclaims" -> ResourceClaimDefaults.claimSpec(JsonFields.object(object, "spec"));
      case "resource.k8s.io/resourceclaimtemplates" -> ResourceClaimDefaults.template(object);
      default -> {
        // no defaults modelled for this resource
      }
    }
  }
}
