package io.berth.plugins.podtopologyspread;

import io.berth.framework.LabelMatcher;
import io.berth.framework.LabelSelectors;
import io.berth.framework.ObjectLister;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The selector default constraints count with, deduced as upstream's
 * {@code helper.DefaultSelector}: the merged selectors of the Services in the pod's namespace
 * that select the pod, plus the selector of the pod's controller when that is a
 * ReplicationController (merged as labels), a ReplicaSet or a StatefulSet (its requirements
 * added). Empty when nothing contributes a requirement. Thread-safe: the listers are informer
 * caches, read only.
 */
final class DefaultSelector {
  private final ObjectLister<Service> services;
  private final ObjectLister<ReplicationController> replicationControllers;
  private final ObjectLister<ReplicaSet> replicaSets;
  private final ObjectLister<StatefulSet> statefulSets;

  DefaultSelector(ObjectLister<Service> services,
      ObjectLister<ReplicationController> replicationControllers,
      ObjectLister<ReplicaSet> replicaSets, ObjectLister<StatefulSet> statefulSets) {
    this.services = services;
    this.replicationControllers = replicationControllers;
    this.replicaSets = replicaSets;
    this.statefulSets = statefulSets;
  }

  Optional<LabelMatcher> forPod(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    Map<String, String> podLabels = pod.getMetadata().getLabels() == null ? Map.of()
        : pod.getMetadata().getLabels();
    // Objects selecting the same pod cannot have conflicting labels: merging is safe.
    Map<String, String> labelSet = new LinkedHashMap<>();
    for (Service service : services.list(namespace)) {
      Map<String, String> selector = service.getSpec() == null ? null
          : service.getSpec().getSelector();
      // A Service with no selector selects nothing, not everything.
      if (selector != null && LabelSelectors.fromMap(selector).matches(podLabels)) {
        labelSet.putAll(selector);
      }
    }
    List<LabelMatcher> controllerRequirements = new ArrayList<>();
    controllerOf(pod).ifPresent(owner -> {
      String apiVersion = owner.getApiVersion();
      String kind = owner.getKind();
      String name = owner.getName();
      if ("v1".equals(apiVersion) && "ReplicationController".equals(kind)) {
        replicationControllers.get(namespace, name)
            .filter(rc -> rc.getSpec() != null && rc.getSpec().getSelector() != null)
            .ifPresent(rc -> labelSet.putAll(rc.getSpec().getSelector()));
      } else if ("apps/v1".equals(apiVersion) && "ReplicaSet".equals(kind)) {
        replicaSets.get(namespace, name)
            .flatMap(rs -> requirements(rs.getSpec() == null ? null : rs.getSpec().getSelector()))
            .ifPresent(controllerRequirements::add);
      } else if ("apps/v1".equals(apiVersion) && "StatefulSet".equals(kind)) {
        statefulSets.get(namespace, name)
            .flatMap(ss -> requirements(ss.getSpec() == null ? null : ss.getSpec().getSelector()))
            .ifPresent(controllerRequirements::add);
      }
    });
    if (labelSet.isEmpty() && controllerRequirements.isEmpty()) {
      return Optional.empty();
    }
    LabelMatcher fromLabels = labelSet.isEmpty() ? LabelMatcher.EVERYTHING
        : LabelSelectors.fromMap(labelSet);
    List<LabelMatcher> all = List.copyOf(controllerRequirements);
    return Optional.of(labels -> {
      if (!fromLabels.matches(labels)) {
        return false;
      }
      for (LabelMatcher m : all) {
        if (!m.matches(labels)) {
          return false;
        }
      }
      return true;
    });
  }

  /**
   * A controller's selector when it has at least one requirement; an invalid, missing or empty
   * selector contributes nothing (upstream skips selectors it cannot convert).
   */
  private static Optional<LabelMatcher> requirements(LabelSelector selector) {
    if (selector == null) {
      return Optional.empty();
    }
    boolean hasLabels = selector.getMatchLabels() != null && !selector.getMatchLabels().isEmpty();
    boolean hasExpressions = selector.getMatchExpressions() != null
        && !selector.getMatchExpressions().isEmpty();
    if (!hasLabels && !hasExpressions) {
      return Optional.empty();
    }
    try {
      return Optional.of(LabelSelectors.compile(selector, "spec.selector"));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<OwnerReference> controllerOf(Pod pod) {
    List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
    if (refs == null) {
      return Optional.empty();
    }
    return refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst();
  }
}
