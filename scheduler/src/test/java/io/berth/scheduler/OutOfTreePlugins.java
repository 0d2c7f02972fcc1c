package io.berth.scheduler;

import io.berth.framework.CycleState;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeInfo;
import io.berth.framework.PluginFactory;
import io.berth.framework.PluginProvider;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * An out-of-tree plugin provider found through {@code META-INF/services} on the test class path:
 * "OnlyEvenNodes" rejects nodes whose name ends in an odd digit. Stateless.
 */
public final class OutOfTreePlugins implements PluginProvider {
  static final String NAME = "OnlyEvenNodes";

  @Override
  public Map<String, PluginFactory> plugins() {
    return Map.of(NAME, (args, handle) -> new FilterPlugin() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
        char last = nodeInfo.nodeName().charAt(nodeInfo.nodeName().length() - 1);
        return (last - '0') % 2 == 0 ? Status.SUCCESS : Status.unschedulable("node name is odd");
      }
    });
  }
}
