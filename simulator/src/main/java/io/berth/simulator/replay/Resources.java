package io.berth.simulator.replay;

import io.berth.framework.Resource;
import java.util.Map;
import java.util.TreeMap;

/** Converts the framework's {@link Resource} to resource name → amount. Stateless. */
final class Resources {
  private Resources() {}

  /** cpu in millicores, memory and ephemeral-storage in bytes, pods, extended resources; zeros left out. */
  static Map<String, Long> toMap(Resource r) {
    Map<String, Long> out = new TreeMap<>();
    put(out, Resource.CPU, r.milliCpu());
    put(out, Resource.MEMORY, r.memory());
    put(out, Resource.EPHEMERAL_STORAGE, r.ephemeralStorage());
    put(out, Resource.PODS, r.allowedPodNumber());
    r.scalarResources().forEach((k, v) -> put(out, k, v));
    return out;
  }

  private static void put(Map<String, Long> out, String name, long value) {
    if (value != 0) {
      out.put(name, value);
    }
  }
}
