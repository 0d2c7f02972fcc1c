package io.berth.bench.scheduler;

import io.berth.framework.PluginFactory;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The in-process harness's scheduler setup shared by the runs that swap one in-tree plugin for an
 * instance the harness builds over in-memory objects ({@link DraThroughputRun},
 * {@link GangThroughputRun}): the in-tree registry with that plugin replaced plus
 * {@link HarnessBinder} and {@link HarnessClock}; the default profile with the binder in place of
 * DefaultBinder, the clock at PreFilter and {@code berth.parallelism} (default 16); and the
 * binder's feedback of bound pods through the scheduler's pod handler. Stateless; called by the
 * single-threaded driver before the scheduler starts (the feedback runs on binding threads and is
 * thread-safe if {@code current} and the caller's callback are).
 */
final class HarnessProfile {
  private HarnessProfile() {}

  /** The in-tree plugins with {@code replaced} built by {@code replacement}, and the harness's. */
  static Registry registry(String replaced, PluginFactory replacement, HarnessBinder binder,
      HarnessClock clock) {
    Registry inTree = InTreeRegistry.create();
    Registry registry = new Registry();
    for (String name : inTree.names()) {
      if (!name.equals(replaced)) {
        registry.register(name, inTree.get(name).orElseThrow());
      }
    }
    return registry.register(replaced, replacement)
        .register(HarnessBinder.NAME, (a, handle) -> binder)
        .register(HarnessClock.NAME, (a, handle) -> clock);
  }

  /**
   * The default profile: multiPoint enables the binder and {@code enabled}, disables DefaultBinder
   * and {@code disabled}; {@code pluginConfig} lines (YAML, indented as list items under
   * {@code pluginConfig:}) are appended when given.
   */
  static SchedulerConfiguration config(Registry registry, List<String> enabled,
      List<String> disabled, String... pluginConfig) throws Exception {
    List<String> lines = new ArrayList<>(List.of(
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "parallelism: " + Integer.getInteger("berth.parallelism", 16),
        "profiles:",
        "- schedulerName: default-scheduler",
        "  plugins:",
        "    preFilter:",
        "      enabled: [{name: " + HarnessClock.NAME + "}]",
        "    multiPoint:",
        "      enabled: [" + names(HarnessBinder.NAME, enabled) + "]",
        "      disabled: [" + names("DefaultBinder", disabled) + "]"));
    if (pluginConfig.length > 0) {
      lines.add("  pluginConfig:");
      lines.addAll(List.of(pluginConfig));
    }
    return SchedulerConfigLoader.load(String.join("\n", lines), registry);
  }

  private static String names(String first, List<String> more) {
    StringBuilder b = new StringBuilder("{name: ").append(first).append('}');
    for (String n : more) {
      b.append(", {name: ").append(n).append('}');
    }
    return b.toString();
  }

  /**
   * The binder's listener: the bound pod replaces the harness's current one and goes to the
   * scheduler's pod handler as the informer's update would, then to {@code then}.
   */
  static HarnessBinder.Listener feedBack(Map<String, Pod> current,
      Supplier<SchedulerAssembly> assembly, Consumer<Pod> then) {
    return (unbound, pod, latency) -> {
      Pod old = current.put(key(pod), pod);
      assembly.get().podHandler().onUpdate(old != null ? old : unbound.get(), pod);
      then.accept(pod);
    };
  }

  static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }
}
