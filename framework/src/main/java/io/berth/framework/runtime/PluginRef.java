package io.berth.framework.runtime;

/** A plugin named in a profile, with its score weight (0 means "unset": the runtime uses 1). */
public record PluginRef(String name, int weight) {
  public static PluginRef of(String name) {
    return new PluginRef(name, 0);
  }
}
