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

  /**
   * The default selector and what determines it: the merged Service/ReplicationController labels
   * and the ReplicaSet's or StatefulSet's selector as written. Immutable.
   */
  record Selector(LabelMatcher matcher, Key key) {}

  /** What determines a default selector; equal keys select the same pods. */
  record Key(Map<String, String> labels, List<LabelSelector> controllerSelectors) {}

  Optional<Selector> forPod(Pod pod) {
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
    List<LabelSelector> controllerSelectors = new ArrayList<>(1);
    List<LabelMatcher> controllerRequirements = new ArrayList<>(1);
    controllerOf(pod).ifPresent(owner -> {
      String apiVersion = owner.getApiVersion();
      String kind = owner.getKind();
      String name = owner.getName();
      LabelSelector selector = null;
      if ("v1".equals(apiVersion) && "ReplicationController".equals(kind)) {
        replicationControllers.get(namespace, name)
            .filter(rc -> rc.getSpec() != null && rc.getSpec().getSelector() != null)
            .ifPresent(rc -> labelSet.putAll(rc.getSpec().getSelector()));
      } else if ("apps/v1".equals(apiVersion) && "ReplicaSet".equals(kind)) {
        selector = replicaSets.get(namespace, name)
            .map(rs -> rs.getSpec() == null ? null : rs.getSpec().getSelector()).orElse(null);
      } else if ("apps/v1".equals(apiVersion) && "StatefulSet".equals(kind)) {
        selector = statefulSets.get(namespace, name)
            .map(ss -> ss.getSpec() == null ? null : ss.getSpec().getSelector()).orElse(null);
      }
      LabelSelector s = selector;
      requirements(s).ifPresent(m -> {
        controllerSelectors.add(s);
        controllerRequirements.add(m);
      });
    });
    if (labelSet.isEmpty() && controllerRequirements.isEmpty()) {
      return Optional.empty();
    }
    Key key = new Key(java.util.Collections.unmodifiableMap(labelSet),
        List.copyOf(controllerSelectors));
    LabelMatcher fromLabels = labelSet.isEmpty() ? LabelMatcher.EVERYTHING
        : LabelSelectors.fromMap(labelSet);
    if (controllerRequirements.isEmpty()) {
      return Optional.of(new Selector(fromLabels, key));
    }
    // at most one controller: no list to walk per pod
    LabelMatcher controller = controllerRequirements.get(0);
    if (labelSet.isEmpty()) {
      return Optional.of(new Selector(controller, key));
    }
    return Optional.of(new Selector(
        labels -> fromLabels.matches(labels) && controller.matches(labels), key));
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
