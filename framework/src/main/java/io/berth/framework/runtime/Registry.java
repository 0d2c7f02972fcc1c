package io.berth.framework.runtime;

import io.berth.framework.PluginFactory;
import io.berth.framework.PluginProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Plugin names mapped to factories. Built once at start-up (in-tree plugins, then out-of-tree ones
 * found with {@link ServiceLoader}), read-only afterwards; not thread-safe while being built.
 */
public final class Registry {
  // confined to the start-up thread until built, then read-only
  private final Map<String, PluginFactory> factories = new LinkedHashMap<>();

  /** Registers a plugin; a name registered twice is an error. */
  public Registry register(String name, PluginFactory factory) {
    if (factories.putIfAbsent(name, factory) != null) {
      throw new IllegalArgumentException("a plugin named \"" + name + "\" already exists");
    }
    return this;
  }

  /** Adds all of {@code other}'s plugins. */
  public Registry merge(Registry other) {
    other.factories.forEach(this::register);
    return this;
  }

  /** Adds the plugins of every {@link PluginProvider} on the class path. */
  public Registry loadOutOfTree(ClassLoader loader) {
    for (PluginProvider provider : ServiceLoader.load(PluginProvider.class, loader)) {
      provider.plugins().forEach(this::register);
    }
    return this;
  }

  public Optional<PluginFactory> get(String name) {
    return Optional.ofNullable(factories.get(name));
  }

  public boolean contains(String name) {
    return factories.containsKey(name);
  }

  public Set<String> names() {
    return java.util.Collections.unmodifiableSet(factories.keySet());
  }
}
