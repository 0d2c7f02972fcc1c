package io.berth.plugins.noderesources;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A resource scored by a resource-allocation strategy and its weight, as upstream's
 * {@code config.ResourceSpec}; parsing applies upstream's v1 defaulting (a missing or zero weight
 * becomes 1). Immutable.
 */
record ResourceSpec(String name, long weight) {
  /** cpu and memory with weight 1: the default of both plugins. */
  static final List<ResourceSpec> DEFAULTS =
      List.of(new ResourceSpec("cpu", 1), new ResourceSpec("memory", 1));

  private static final Set<String> KEYS = Set.of("name", "weight");

  /** Parses a {@code resources} list found at {@code path}; errors go to {@code errors}. */
  static List<ResourceSpec> parseList(List<?> items, String path, FieldErrors errors) {
    List<ResourceSpec> out = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      String itemPath = path + "[" + i + "]";
      ArgsReader.asObject(items.get(i), itemPath, errors).ifPresent(item -> {
        ArgsReader.rejectUnknownKeys(item, KEYS, itemPath + ".", errors);
        String name = ArgsReader.string(item, "name", itemPath + ".name", errors).orElse("");
        long weight = ArgsReader.integer(item, "weight", itemPath + ".weight", Long.MIN_VALUE,
            Long.MAX_VALUE, errors).orElse(0);
        out.add(new ResourceSpec(name, weight == 0 ? 1 : weight));
      });
    }
    return List.copyOf(out);
  }

  /** Upstream's {@code validateResources}: each weight in (0, 100]. */
  static void validateWeights(List<ResourceSpec> resources, String path, FieldErrors errors) {
    for (int i = 0; i < resources.size(); i++) {
      ResourceSpec r = resources.get(i);
      if (r.weight() <= 0 || r.weight() > 100) {
        errors.invalid(path + "[" + i + "].weight", r.weight(),
            "resource weight of " + r.name() + " not in valid range (0, 100]");
      }
    }
  }

  /** Reads {@code resources} out of an args object, or empty when absent. */
  static List<ResourceSpec> read(Map<String, Object> parent, String path, FieldErrors errors) {
    return ArgsReader.list(parent, "resources", path, errors)
        .map(items -> parseList(items, path, errors))
        .orElse(List.of());
  }
}
