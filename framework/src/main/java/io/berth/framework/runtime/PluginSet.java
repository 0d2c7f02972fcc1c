package io.berth.framework.runtime;

import java.util.List;

/**
 * The plugins enabled and disabled at one extension point (or multiPoint), in order. Disabling
 * {@code "*"} disables every default plugin there. Immutable.
 */
public record PluginSet(List<PluginRef> enabled, List<String> disabled) {
  public static final PluginSet EMPTY = new PluginSet(List.of(), List.of());

  public PluginSet {
    enabled = List.copyOf(enabled);
    disabled = List.copyOf(disabled);
  }

  public static PluginSet enabled(PluginRef... refs) {
    return new PluginSet(List.of(refs), List.of());
  }
}
