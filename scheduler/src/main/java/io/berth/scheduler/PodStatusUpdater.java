package io.berth.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes a failed pod's {@code PodScheduled=False} condition and {@code status.nominatedNodeName}
 * with a strategic merge patch on the status subresource, skipping the write when nothing changed
 * (upstream's {@code updatePod}). Thread-safe: stateless apart from the shared client.
 */
public final class PodStatusUpdater {
  public static final String POD_SCHEDULED = "PodScheduled";
  public static final String REASON_UNSCHEDULABLE = "Unschedulable";
  public static final String REASON_SCHEDULER_ERROR = "SchedulerError";

  private final KubernetesClient client;

  public PodStatusUpdater(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Sets the condition and, when {@code nominatedNodeName} is non-null, the nomination ("" clears
   * it). Returns whether a write was made. A pod that is gone is not an error.
   */
  public boolean update(Pod pod, String reason, String message, String nominatedNodeName) {
    PodCondition current = findCondition(pod);
    String currentNominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    boolean conditionSame = current != null && "False".equals(current.getStatus())
        && Objects.equals(reason, current.getReason()) && Objects.equals(message, current.getMessage());
    boolean nominationSame = nominatedNodeName == null
        || Objects.equals(emptyToNull(nominatedNodeName), emptyToNull(currentNominated));
    if (conditionSame && nominationSame) {
      return false;
    }
    Map<String, Object> condition = new LinkedHashMap<>();
    condition.put("type", POD_SCHEDULED);
    condition.put("status", "False");
    condition.put("reason", reason);
    condition.put("message", message);
    condition.put("lastProbeTime", null);
    String now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    condition.put("lastTransitionTime", current != null && "False".equals(current.getStatus())
        ? current.getLastTransitionTime() : now);
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", List.of(condition));
    if (nominatedNodeName != null) {
      status.put("nominatedNodeName", nominatedNodeName.isEmpty() ? null : nominatedNodeName);
    }
    String patch = client.getKubernetesSerialization().asJson(Map.of("status", status));
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
          .subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** Sets or clears only {@code status.nominatedNodeName} (preemption clears lower nominations). */
  public void setNominatedNodeName(Pod pod, String nodeName) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("nominatedNodeName", nodeName == null || nodeName.isEmpty() ? null : nodeName);
    String patch = client.getKubernetesSerialization().asJson(Map.of("status", status));
    client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
        .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  private static PodCondition findCondition(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if (POD_SCHEDULED.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
