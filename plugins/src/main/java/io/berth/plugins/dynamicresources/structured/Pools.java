package io.berth.plugins.dynamicresources.structured;

import io.berth.framework.NodeSelectorMatcher;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The resource pools of a set of ResourceSlices, as upstream's {@code GatherPools}: per driver
 * and pool name only the slices of the newest {@code pool.generation} count; a pool with fewer
 * of those than {@code resourceSliceCount} is incomplete, one naming a device twice is invalid.
 * {@link #devicesFor} lists the devices a node can reach: from slices for that node
 * ({@code nodeName}), for all nodes ({@code allNodes}), with a matching {@code nodeSelector}, or
 * (with {@code perDeviceNodeSelection}) per device. Immutable after construction; thread-safe.
 */
final class Pools {
  /** One pool's usable state. */
  record Pool(String driver, String name, boolean incomplete, String invalidReason) {
    String id() {
      return driver + "/" + name;
    }
  }

  /** A device a node can reach, with the slice it came from. */
  record Candidate(DeviceId id, Device device, ResourceSlice slice, Pool pool, boolean nodeLocal) {
  }

  private record Entry(Pool pool, ResourceSlice slice) {
  }

  private final Map<String, List<Entry>> byNodeName = new HashMap<>();
  private final List<Entry> others = new ArrayList<>();
  private final Map<ResourceSlice, NodeSelectorMatcher> selectors = new HashMap<>();

  Pools(List<ResourceSlice> slices) {
    Map<String, List<ResourceSlice>> grouped = new LinkedHashMap<>();
    for (ResourceSlice s : slices) {
      ResourceSliceSpec spec = s.getSpec();
      if (spec == null || spec.getPool() == null || spec.getDriver() == null) {
        continue;
      }
      grouped.computeIfAbsent(spec.getDriver() + "/" + spec.getPool().getName(),
          k -> new ArrayList<>()).add(s);
    }
    List<String> keys = new ArrayList<>(grouped.keySet());
    keys.sort(Comparator.naturalOrder());
    for (String key : keys) {
      List<ResourceSlice> all = grouped.get(key);
      long newest = all.stream().mapToLong(s -> generation(s)).max().orElse(0);
      List<ResourceSlice> current = all.stream().filter(s -> generation(s) == newest).toList();
      ResourceSliceSpec first = current.get(0).getSpec();
      Long wanted = first.getPool().getResourceSliceCount();
      boolean incomplete = wanted != null && current.size() < wanted;
      String invalid = null;
      Set<String> names = new HashSet<>();
      for (ResourceSlice s : current) {
        for (Device d : devices(s)) {
          if (!names.add(d.getName())) {
            invalid = "duplicate device name " + d.getName();
          }
        }
      }
      Pool pool = new Pool(first.getDriver(), first.getPool().getName(), incomplete, invalid);
      for (ResourceSlice s : current) {
        ResourceSliceSpec spec = s.getSpec();
        Entry e = new Entry(pool, s);
        if (spec.getNodeName() != null && !spec.getNodeName().isEmpty()) {
          byNodeName.computeIfAbsent(spec.getNodeName(), n -> new ArrayList<>()).add(e);
        } else {
          others.add(e);
          if (spec.getNodeSelector() != null) {
            selectors.put(s, NodeSelectorMatcher.compile(spec.getNodeSelector(),
                "spec.nodeSelector"));
          }
        }
      }
    }
  }

  private static long generation(ResourceSlice s) {
    Long g = s.getSpec().getPool().getGeneration();
    return g == null ? 0 : g;
  }

  static List<Device> devices(ResourceSlice s) {
    return s.getSpec().getDevices() == null ? List.of() : s.getSpec().getDevices();
  }

  /** The pools whose slices the node can reach, in order, each with the reachable devices. */
  Map<Pool, List<Candidate>> devicesFor(Node node) {
    String nodeName = node.getMetadata().getName();
    Map<Pool, List<Candidate>> out = new LinkedHashMap<>();
    List<Entry> entries = new ArrayList<>(byNodeName.getOrDefault(nodeName, List.of()));
    entries.addAll(others);
    entries.sort(Comparator.comparing((Entry e) -> e.pool().id()));
    for (Entry e : entries) {
      ResourceSliceSpec spec = e.slice().getSpec();
      boolean local = spec.getNodeName() != null && !spec.getNodeName().isEmpty();
      if (Boolean.TRUE.equals(spec.getPerDeviceNodeSelection())) {
        for (Device d : devices(e.slice())) {
          if (deviceReaches(d, node)) {
            out.computeIfAbsent(e.pool(), p -> new ArrayList<>()).add(new Candidate(
                new DeviceId(spec.getDriver(), e.pool().name(), d.getName()), d, e.slice(),
                e.pool(), d.getNodeName() != null && !d.getNodeName().isEmpty()));
          }
        }
        continue;
      }
      boolean reaches = local || Boolean.TRUE.equals(spec.getAllNodes())
          || (selectors.containsKey(e.slice()) && selectors.get(e.slice()).matches(node));
      if (!reaches) {
        continue;
      }
      List<Candidate> list = out.computeIfAbsent(e.pool(), p -> new ArrayList<>());
      for (Device d : devices(e.slice())) {
        list.add(new Candidate(new DeviceId(spec.getDriver(), e.pool().name(), d.getName()), d,
            e.slice(), e.pool(), local));
      }
    }
    return out;
  }

  private static boolean deviceReaches(Device d, Node node) {
    if (d.getNodeName() != null && !d.getNodeName().isEmpty()) {
      return Objects.equals(d.getNodeName(), node.getMetadata().getName());
    }
    if (Boolean.TRUE.equals(d.getAllNodes())) {
      return true;
    }
    return d.getNodeSelector() != null
        && NodeSelectorMatcher.compile(d.getNodeSelector(), "devices[].nodeSelector").matches(node);
  }
}
