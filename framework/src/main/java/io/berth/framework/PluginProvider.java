package io.berth.framework;

import java.util.Map;

/**
 * How out-of-tree plugins join the registry: a jar on the classpath declares implementations in
 * {@code META-INF/services/io.berth.framework.PluginProvider}, and the scheduler loads them with
 * {@link java.util.ServiceLoader}. Each returns plugin names and factories.
 */
public interface PluginProvider {
  Map<String, PluginFactory> plugins();
}
