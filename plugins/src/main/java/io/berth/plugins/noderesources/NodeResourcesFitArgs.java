package io.berth.plugins.noderesources;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NodeResourcesFit's arguments ({@code kubescheduler.config.k8s.io/v1} NodeResourcesFitArgs),
 * parsed from the profile's pluginConfig, defaulted as upstream's {@code SetDefaults} (no
 * scoringStrategy means LeastAllocated over cpu and memory; no resources means cpu and memory;
 * weight 0 means 1) and validated as upstream's {@code ValidateNodeResourcesFitArgs}. Immutable.
 */
record NodeResourcesFitArgs(List<String> ignoredResources, List<String> ignoredResourceGroups,
    ScoringStrategy scoringStrategy) {
  static final String LEAST_ALLOCATED = "LeastAllocated";
  static final String MOST_ALLOCATED = "MostAllocated";
  static final String REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio";
  private static final List<String> STRATEGY_TYPES =
      List.of(LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO);
  private static final int MAX_CUSTOM_PRIORITY_SCORE = 10;

  /** How the plugin scores nodes; {@code shape} is empty unless the type is RTCR. Immutable. */
  record ScoringStrategy(String type, List<ResourceSpec> resources,
      List<UtilizationShapePoint> shape) {}

  /** A point of the RequestedToCapacityRatio function: utilization 0..100 to score 0..10. */
  record UtilizationShapePoint(long utilization, long score) {}

  NodeResourcesFitArgs {
    ignoredResources = List.copyOf(ignoredResources);
    ignoredResourceGroups = List.copyOf(ignoredResourceGroups);
  }

  /** Parses, defaults and validates; throws {@link IllegalArgumentException} naming the field. */
  static NodeResourcesFitArgs parse(Map<String, Object> args) {
    FieldErrors errors = new FieldErrors();
    ArgsReader.rejectUnknownKeys(args, Set.of("apiVersion", "kind", "ignoredResources",
        "ignoredResourceGroups", "scoringStrategy"), "", errors);
    ArgsReader.string(args, "kind", "kind", errors)
        .filter(kind -> !kind.equals("NodeResourcesFitArgs"))
        .ifPresent(kind -> errors.notSupported("kind", kind, List.of("NodeResourcesFitArgs")));
    List<String> ignored = strings(args, "ignoredResources", errors);
    List<String> groups = strings(args, "ignoredResourceGroups", errors);
    ScoringStrategy strategy = ArgsReader.object(args, "scoringStrategy", "scoringStrategy", errors)
        .map(s -> strategy(s, errors))
        .orElseGet(() -> new ScoringStrategy(LEAST_ALLOCATED, ResourceSpec.DEFAULTS, List.of()));
    errors.throwIfAny();
    NodeResourcesFitArgs parsed = new NodeResourcesFitArgs(ignored, groups, strategy);
    parsed.validate(errors);
    errors.throwIfAny();
    return parsed;
  }

  private static List<String> strings(Map<String, Object> args, String key, FieldErrors errors) {
    List<String> out = new ArrayList<>();
    ArgsReader.list(args, key, key, errors).ifPresent(items -> {
      for (int i = 0; i < items.size(); i++) {
        ArgsReader.asString(items.get(i), key + "[" + i + "]", errors).ifPresent(out::add);
      }
    });
    return out;
  }

  private static ScoringStrategy strategy(Map<String, Object> s, FieldErrors errors) {
    String path = "scoringStrategy";
    ArgsReader.rejectUnknownKeys(s, Set.of("type", "resources", "requestedToCapacityRatio"),
        path + ".", errors);
    String type = ArgsReader.string(s, "type", path + ".type", errors).orElse("");
    List<ResourceSpec> resources = ResourceSpec.read(s, path + ".resources", errors);
    if (resources.isEmpty()) {
      resources = ResourceSpec.DEFAULTS;
    }
    List<UtilizationShapePoint> shape = null;
    String ratioPath = path + ".requestedToCapacityRatio";
    var ratio = ArgsReader.object(s, "requestedToCapacityRatio", ratioPath, errors);
    if (ratio.isPresent()) {
      ArgsReader.rejectUnknownKeys(ratio.get(), Set.of("shape"), ratioPath + ".", errors);
      shape = shape(ratio.get(), ratioPath + ".shape", errors);
    }
    if (type.equals(REQUESTED_TO_CAPACITY_RATIO)) {
      if (shape == null) {
        errors.required(ratioPath, "must be specified when type is RequestedToCapacityRatio");
        shape = List.of();
      }
    } else if (shape != null) {
      errors.forbidden(ratioPath, "must be nil when type is not RequestedToCapacityRatio");
      shape = List.of();
    }
    return new ScoringStrategy(type, resources, shape == null ? List.of() : List.copyOf(shape));
  }

  private static List<UtilizationShapePoint> shape(Map<String, Object> ratio, String path,
      FieldErrors errors) {
    List<UtilizationShapePoint> points = new ArrayList<>();
    ArgsReader.list(ratio, "shape", path, errors).ifPresent(items -> {
      for (int i = 0; i < items.size(); i++) {
        String p = path + "[" + i + "]";
        ArgsReader.asObject(items.get(i), p, errors).ifPresent(point -> {
          ArgsReader.rejectUnknownKeys(point, Set.of("utilization", "score"), p + ".", errors);
          long utilization = ArgsReader.integer(point, "utilization", p + ".utilization",
              Integer.MIN_VALUE, Integer.MAX_VALUE, errors).orElse(0);
          long score = ArgsReader.integer(point, "score", p + ".score", Integer.MIN_VALUE,
              Integer.MAX_VALUE, errors).orElse(0);
          points.add(new UtilizationShapePoint(utilization, score));
        });
      }
    });
    return points;
  }

  private void validate(FieldErrors errors) {
    for (int i = 0; i < ignoredResources.size(); i++) {
      String name = ignoredResources.get(i);
      for (String message : QualifiedNames.validate(name)) {
        errors.invalid("ignoredResources[" + i + "]", name, message);
      }
    }
    for (int i = 0; i < ignoredResourceGroups.size(); i++) {
      String group = ignoredResourceGroups.get(i);
      String path = "ignoredResourceGroups[" + i + "]";
      if (group.contains("/")) {
        errors.invalid(path, group, "resource group name can't contain '/'");
      }
      for (String message : QualifiedNames.validate(group)) {
        errors.invalid(path, group, message);
      }
    }
    String path = "scoringStrategy";
    if (!STRATEGY_TYPES.contains(scoringStrategy.type())) {
      errors.notSupported(path + ".type", scoringStrategy.type(), STRATEGY_TYPES);
    }
    ResourceSpec.validateWeights(scoringStrategy.resources(), path + ".resources", errors);
    if (scoringStrategy.type().equals(REQUESTED_TO_CAPACITY_RATIO)) {
      validateShape(scoringStrategy.shape(), path + ".requestedToCapacityRatio.shape", errors);
    }
  }

  /** Upstream's {@code validateFunctionShape}. */
  private static void validateShape(List<UtilizationShapePoint> shape, String path,
      FieldErrors errors) {
    if (shape.isEmpty()) {
      errors.required(path, "at least one point must be specified");
      return;
    }
    for (int i = 1; i < shape.size(); i++) {
      if (shape.get(i - 1).utilization() >= shape.get(i).utilization()) {
        errors.invalid(path + "[" + i + "].utilization", shape.get(i).utilization(),
            "values must be sorted in increasing order");
        break;
      }
    }
    for (int i = 0; i < shape.size(); i++) {
      UtilizationShapePoint point = shape.get(i);
      if (point.utilization() < 0 || point.utilization() > 100) {
        errors.invalid(path + "[" + i + "].utilization", point.utilization(),
            "not in valid range [0, 100]");
      }
      if (point.score() < 0 || point.score() > MAX_CUSTOM_PRIORITY_SCORE) {
        errors.invalid(path + "[" + i + "].score", point.score(),
            "not in valid range [0, " + MAX_CUSTOM_PRIORITY_SCORE + "]");
      }
    }
  }
}
