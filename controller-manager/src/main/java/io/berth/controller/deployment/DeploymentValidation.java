package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The checks the controller makes before acting on a Deployment: what a real API server's validation would
 * have rejected (a mock server stores anything) plus the controller's own "selects everything" guard
 * (upstream apps validation ValidateDeploymentSpec and syncDeployment's SelectingAll check).
 *
 * <p>Every message starts with the field path ("spec.selector: Required value"). The controller turns a
 * non-empty result into a Warning event and a status condition for that Deployment and goes on serving the
 * others. Stateless and thread-safe.
 */
public final class DeploymentValidation {

  /** Event reason upstream records for a Deployment with an empty selector. */
  public static final String SELECTING_ALL_REASON = "SelectingAll";
  public static final String SELECTING_ALL_MESSAGE =
      "This deployment is selecting all pods. A non-empty selector is required.";

  private DeploymentValidation() {
  }

  /**
   * Whether the selector is present but has no requirement, so it would select every pod of the namespace.
   * Upstream then records {@value #SELECTING_ALL_REASON}, bumps observedGeneration and does nothing else.
   */
  public static boolean selectsEverything(Deployment d) {
    LabelSelector selector = d.getSpec() == null ? null : d.getSpec().getSelector();
    return selector != null && LabelSelectors.isEmpty(selector);
  }

  /** Every problem found, in field order; empty when the Deployment can be acted on. */
  public static List<String> validate(Deployment d) {
    List<String> problems = new ArrayList<>();
    DeploymentSpec spec = d.getSpec();
    if (spec == null) {
      problems.add("spec: Required value");
      return problems;
    }
    nonNegative(spec.getReplicas(), "spec.replicas", problems);
    validateSelector(spec, problems);
    validateStrategy(spec.getStrategy(), problems);
    nonNegative(spec.getMinReadySeconds(), "spec.minReadySeconds", problems);
    nonNegative(spec.getRevisionHistoryLimit(), "spec.revisionHistoryLimit", problems);
    Integer deadline = spec.getProgressDeadlineSeconds();
    if (deadline != null) {
      nonNegative(deadline, "spec.progressDeadlineSeconds", problems);
      int minReady = spec.getMinReadySeconds() == null ? 0 : spec.getMinReadySeconds();
      if (deadline <= minReady) {
        problems.add("spec.progressDeadlineSeconds: Invalid value: " + deadline
            + ": must be greater than minReadySeconds");
      }
    }
    return problems;
  }

  private static void validateSelector(DeploymentSpec spec, List<String> problems) {
    LabelSelector selector = spec.getSelector();
    PodTemplateSpec template = spec.getTemplate();
    if (template == null) {
      problems.add("spec.template: Required value");
    }
    if (selector == null) {
      problems.add("spec.selector: Required value");
      return;
    }
    if (LabelSelectors.isEmpty(selector)) {
      problems.add("spec.selector: Invalid value: {}: empty selector is invalid for deployment ("
          + SELECTING_ALL_MESSAGE + ")");
      return;
    }
    List<String> selectorProblems = LabelSelectors.validate(selector, "spec.selector");
    problems.addAll(selectorProblems);
    if (!selectorProblems.isEmpty() || template == null) {
      return;
    }
    Map<String, String> labels = template.getMetadata() == null ? null : template.getMetadata().getLabels();
    if (!LabelSelectors.matches(selector, labels)) {
      problems.add("spec.template.metadata.labels: Invalid value: " + render(labels)
          + ": `selector` does not match template `labels`");
    }
  }

  private static void validateStrategy(DeploymentStrategy strategy, List<String> problems) {
    String type = strategy == null || strategy.getType() == null ? "" : strategy.getType();
    RollingUpdateDeployment rollingUpdate = strategy == null ? null : strategy.getRollingUpdate();
    switch (type) {
      case RollingUpdateMath.STRATEGY_RECREATE -> {
        if (rollingUpdate != null) {
          problems.add("spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy "
              + "`type` is 'Recreate'");
        }
      }
      case RollingUpdateMath.STRATEGY_ROLLING_UPDATE -> {
        if (rollingUpdate == null) {
          problems.add("spec.strategy.rollingUpdate: Required value: this should be defaulted and "
              + "never be nil");
        } else {
          validateRollingUpdate(rollingUpdate, problems);
        }
      }
      default -> problems.add("spec.strategy.type: Unsupported value: \"" + type
          + "\": supported values: \"Recreate\", \"RollingUpdate\"");
    }
  }

  private static void validateRollingUpdate(RollingUpdateDeployment ru, List<String> problems) {
    Integer unavailable = intOrPercent(ru.getMaxUnavailable(), RollingUpdateMath.MAX_UNAVAILABLE_FIELD,
        problems);
    Integer surge = intOrPercent(ru.getMaxSurge(), RollingUpdateMath.MAX_SURGE_FIELD, problems);
    if (unavailable != null && IntOrPercent.isPercent(ru.getMaxUnavailable()) && unavailable > 100) {
      problems.add(RollingUpdateMath.MAX_UNAVAILABLE_FIELD + ": Invalid value: \""
          + ru.getMaxUnavailable().getValue() + "\": must not be greater than 100%");
    }
    if (unavailable != null && surge != null && unavailable == 0 && surge == 0) {
      problems.add(RollingUpdateMath.MAX_UNAVAILABLE_FIELD + ": Invalid value: "
          + render(ru.getMaxUnavailable()) + ": may not be 0 when `maxSurge` is 0");
    }
  }

  /** The written number (percent or count), or null after recording why it is unusable. */
  private static Integer intOrPercent(IntOrString value, String field, List<String> problems) {
    if (value == null) {
      problems.add(field + ": Required value");
      return null;
    }
    int raw;
    try {
      raw = IntOrPercent.rawValue(value, field);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return null;
    }
    if (raw < 0) {
      problems.add(field + ": Invalid value: " + render(value) + ": must be greater than or equal to 0");
      return null;
    }
    return raw;
  }

  private static void nonNegative(Integer value, String field, List<String> problems) {
    if (value != null && value < 0) {
      problems.add(field + ": Invalid value: " + value + ": must be greater than or equal to 0");
    }
  }

  private static String render(IntOrString value) {
    return value.getValue() instanceof String s ? "\"" + s + "\"" : String.valueOf(value.getValue());
  }

  private static String render(Map<String, String> labels) {
    if (labels == null || labels.isEmpty()) {
      return "{}";
    }
    return labels.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"")
        .collect(Collectors.joining(",", "{", "}"));
  }
}
