package io.berth.framework.runtime;

import java.util.Map;
import java.util.OptionalInt;

/**
 * One profile as the runtime consumes it, after config defaulting: the scheduler name, the plugin
 * sets per extension point and for multiPoint, each plugin's args, and an optional
 * percentageOfNodesToScore. Immutable.
 */
public record ProfileConfig(
    String schedulerName,
    Map<ExtensionPoint, PluginSet> plugins,
    PluginSet multiPoint,
    Map<String, Map<String, Object>> pluginConfig,
    OptionalInt percentageOfNodesToScore) {

  public ProfileConfig {
    plugins = Map.copyOf(plugins);
    pluginConfig = Map.copyOf(pluginConfig);
  }

  public PluginSet pluginSet(ExtensionPoint point) {
    return plugins.getOrDefault(point, PluginSet.EMPTY);
  }

  public Map<String, Object> argsOf(String plugin) {
    return pluginConfig.getOrDefault(plugin, Map.of());
  }
}
