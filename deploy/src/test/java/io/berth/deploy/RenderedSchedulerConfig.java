package io.berth.deploy;

import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import tools.jackson.databind.JsonNode;

/**
 * The KubeSchedulerConfiguration a render puts in the scheduler's ConfigMap, loaded the way berth-scheduler loads
 * {@code --config}: {@link SchedulerConfigLoader} (strict decoding, defaulting, validation) then
 * {@link SchedulerAssembly#validate} (every profile builds with its plugin args). Stateless.
 */
final class RenderedSchedulerConfig {
  static final String KEY = "scheduler-config.yaml";

  private RenderedSchedulerConfig() {}

  /** The file's text as mounted at /etc/berth/scheduler-config.yaml. */
  static String text(Rendered rendered, String configMapName) {
    JsonNode data = rendered.get("ConfigMap", configMapName).path("data");
    if (!data.has(KEY)) {
      throw new AssertionError("ConfigMap " + configMapName + " has no " + KEY + ": " + data);
    }
    return data.get(KEY).asString();
  }

  /** Loads and validates it as the daemon does at start; throws the loader's exception, naming the field. */
  static SchedulerConfiguration load(String text) {
    Registry registry = InTreeRegistry.create();
    SchedulerConfiguration config = SchedulerConfigLoader.load(text, registry);
    SchedulerAssembly.validate(config, registry);
    return config;
  }
}
