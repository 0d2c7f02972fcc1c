package io.berth.scheduler.config;

import io.berth.framework.runtime.Registry;
import io.berth.plugins.DefaultProfile;

/** Registries and document headers shared by the config tests. */
final class TestConfigs {
  static final String HEADER = """
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: KubeSchedulerConfiguration
      """;

  private TestConfigs() {}

  /** The default plugins plus a few out-of-tree names, each with a do-nothing factory. */
  static Registry registry() {
    Registry registry = new Registry();
    for (String name : DefaultProfile.names()) {
      register(registry, name);
    }
    for (String name : new String[] {"Coscheduling", "CustomSort", "CustomBinder"}) {
      register(registry, name);
    }
    return registry;
  }

  static void register(Registry registry, String name) {
    registry.register(name, (args, handle) -> () -> name);
  }

  /** {@code body} after the apiVersion/kind header. */
  static String yaml(String body) {
    return HEADER + body;
  }
}
