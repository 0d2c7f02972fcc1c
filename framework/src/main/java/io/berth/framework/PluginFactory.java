package io.berth.framework;

import java.util.Map;

/**
 * Creates a plugin for a profile from its arguments (the {@code pluginConfig} entry's
 * {@code args}, as a JSON-like map; empty when none) and the profile's {@link Handle}. Throws
 * {@link IllegalArgumentException} naming the field for invalid arguments.
 */
@FunctionalInterface
public interface PluginFactory {
  Plugin create(Map<String, Object> args, Handle handle);
}
