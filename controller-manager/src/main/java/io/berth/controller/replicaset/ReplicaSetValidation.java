package io.berth.controller.replicaset;

import io.berth.controller.Selector;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checks a sync makes before acting on a ReplicaSet, so that input kube-apiserver would have refused (or that
 * reached the cache some other way) makes the controller report and skip it instead of creating pods it would then
 * disown: {@code spec.replicas} present and not negative, {@code spec.selector} present, parseable and not empty,
 * and the template's labels matched by the selector. A failure carries the Event reason and a message naming the
 * object and the field. Stateless.
 */
final class ReplicaSetValidation {

  /** Event reason for a selector that is missing, empty, malformed or does not match the template. */
  static final String INVALID_SELECTOR = "InvalidSelector";
  /** Event reason for a missing or negative {@code spec.replicas}, or a missing template. */
  static final String INVALID_SPEC = "InvalidSpec";

  /** The outcome: a usable selector, or why there is none. */
  sealed interface Result permits Valid, Invalid {
  }

  /** The ReplicaSet can be synced with {@code selector}. */
  record Valid(Selector selector) implements Result {
  }

  /** The ReplicaSet cannot be synced; {@code reason} is the Warning event's reason. */
  record Invalid(String reason, String message) implements Result {
  }

  private ReplicaSetValidation() {
  }

  static Result validate(ReplicaSet rs) {
    String who = "ReplicaSet " + rs.getMetadata().getNamespace() + "/" + rs.getMetadata().getName() + ": ";
    if (rs.getSpec() == null) {
      return new Invalid(INVALID_SPEC, who + "spec: Required value");
    }
    Integer replicas = rs.getSpec().getReplicas();
    if (replicas == null) {
      return new Invalid(INVALID_SPEC, who + "spec.replicas: Required value: the desired number of pods is missing");
    }
    if (replicas < 0) {
      return new Invalid(INVALID_SPEC, who + "spec.replicas: Invalid value: " + replicas
          + ": must be greater than or equal to 0");
    }
    if (rs.getSpec().getSelector() == null) {
      return new Invalid(INVALID_SELECTOR, who + "spec.selector: Required value");
    }
    Selector selector;
    try {
      selector = Selector.fromLabelSelector(rs.getSpec().getSelector());
    } catch (Selector.InvalidSelectorException e) {
      return new Invalid(INVALID_SELECTOR, who + "spec.selector." + e.getMessage());
    }
    if (selector.isEmpty()) {
      return new Invalid(INVALID_SELECTOR, who + "spec.selector: Invalid value: {}: empty selector is invalid for "
          + "a ReplicaSet (it would select every pod of the namespace)");
    }
    if (rs.getSpec().getTemplate() == null) {
      return new Invalid(INVALID_SPEC, who + "spec.template: Required value");
    }
    Map<String, String> labels = rs.getSpec().getTemplate().getMetadata() == null ? null
        : rs.getSpec().getTemplate().getMetadata().getLabels();
    if (!selector.matches(labels)) {
      return new Invalid(INVALID_SELECTOR, who + "spec.template.metadata.labels: Invalid value: "
          + (labels == null ? "{}" : new TreeMap<>(labels)) + ": `selector` (" + selector
          + ") does not match template `labels`");
    }
    return new Valid(selector);
  }
}
