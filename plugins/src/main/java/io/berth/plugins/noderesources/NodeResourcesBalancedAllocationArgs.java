package io.berth.plugins.noderesources;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NodeResourcesBalancedAllocation's arguments ({@code kubescheduler.config.k8s.io/v1}
 * NodeResourcesBalancedAllocationArgs), defaulted as upstream (no resources means cpu and memory;
 * weight 0 means 1) and validated as upstream's {@code ValidateNodeResourcesBalancedAllocationArgs}
 * (no duplicate names, every weight exactly 1). Immutable.
 */
record NodeResourcesBalancedAllocationArgs(List<ResourceSpec> resources) {
  NodeResourcesBalancedAllocationArgs {
    resources = List.copyOf(resources);
  }

  /** Parses, defaults and validates; throws {@link IllegalArgumentException} naming the field. */
  static NodeResourcesBalancedAllocationArgs parse(Map<String, Object> args) {
    FieldErrors errors = new FieldErrors();
    ArgsReader.rejectUnknownKeys(args, Set.of("apiVersion", "kind", "resources"), "", errors);
    ArgsReader.string(args, "kind", "kind", errors)
        .filter(kind -> !kind.equals("NodeResourcesBalancedAllocationArgs"))
        .ifPresent(kind -> errors.notSupported("kind", kind,
            List.of("NodeResourcesBalancedAllocationArgs")));
    List<ResourceSpec> resources = ResourceSpec.read(args, "resources", errors);
    errors.throwIfAny();
    if (resources.isEmpty()) {
      resources = ResourceSpec.DEFAULTS;
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < resources.size(); i++) {
      ResourceSpec r = resources.get(i);
      if (!seen.add(r.name())) {
        errors.duplicate("resources[" + i + "].name", r.name());
      }
      if (r.weight() != 1) {
        errors.invalid("resources[" + i + "].weight", r.weight(), "must be 1");
      }
    }
    errors.throwIfAny();
    return new NodeResourcesBalancedAllocationArgs(resources);
  }
}
