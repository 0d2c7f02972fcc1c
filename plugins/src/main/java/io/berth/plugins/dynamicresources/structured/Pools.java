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
import java.util.function.Function;

/**
 * The resource pools of a set of ResourceSlices, as upstream's {@code GatherPools}: per driver
 * and pool name only the slices of the newest {@code pool.generation} count; a pool with fewer
 * of those than {@code resourceSliceCount} is incomplete, one naming a device twice is invalid.
 * {@link #devicesFor} lists the devices a node can reach: from slices for that node
 * ({@code nodeName}), for all nodes ({@code allNodes}), with a matching {@code nodeSelector}, or
 * (with {@code perDeviceNodeSelection}) per device. Slices are indexed by node name when built,
 * so a node's devices cost no walk over all slices; build through {@link PoolsCache} to keep the
 * index (and the devices' memoized selector outcomes) across cycles while the slices are
 * unchanged. Immutable after construction; thread-safe.
 */
public final class Pools {
  /** One pool's usable state. */
  record Pool(String driver, String name, boolean incomplete, String invalidReason) {
    String id() {
      return driver + "/" + name;
    }
  }

  /** A device a node can reach, with the slice it came from. */
  record Candidate(DeviceId id, Device device, ResourceSlice slice, Pool pool, boolean nodeLocal,
      SliceDevices source, int index) {
    DeviceView view() {
      return source.view(index);
    }
  }

  // one slice of a pool; candidates: every device, unless the slice selects nodes per device
  private record Entry(Pool pool, SliceDevices devices, boolean perDevice,
      List<Candidate> candidates) {
    ResourceSlice slice() {
      return devices.slice;
    }
  }

  // node name -> that node's slices, sorted by pool id (stable)
  private final Map<String, List<Entry>> byNodeName = new HashMap<>();
  // slices for all nodes or by node selector, sorted by pool id (stable)
  private final List<Entry> others = new ArrayList<>();
  private final Map<ResourceSlice, NodeSelectorMatcher> selectors = new HashMap<>();

  Pools(List<ResourceSlice> slices) {
    this(slices, SliceDevices::new);
  }

  /** @param devicesOf the devices of each slice (a cache's entry for the slice's version) */
  Pools(List<ResourceSlice> slices, Function<ResourceSlice, SliceDevices> devicesOf) {
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
    // keys are visited in pool-id order, so appending keeps every list sorted by pool id
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
        Entry e = entry(pool, devicesOf.apply(s));
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

  private static Entry entry(Pool pool, SliceDevices sd) {
    ResourceSliceSpec spec = sd.slice.getSpec();
    boolean perDevice = Boolean.TRUE.equals(spec.getPerDeviceNodeSelection());
    if (perDevice) {
      return new Entry(pool, sd, true, List.of());
    }
    boolean local = spec.getNodeName() != null && !spec.getNodeName().isEmpty();
    List<Device> ds = sd.devices();
    List<Candidate> candidates = new ArrayList<>(ds.size());
    for (int i = 0; i < ds.size(); i++) {
      Device d = ds.get(i);
      candidates.add(new Candidate(new DeviceId(spec.getDriver(), pool.name(), d.getName()), d,
          sd.slice, pool, local, sd, i));
    }
    return new Entry(pool, sd, false, List.copyOf(candidates));
  }

  private static long generation(ResourceSlice s) {
    Long g = s.getSpec().getPool().getGeneration();
    return g == null ? 0 : g;
  }

  static List<Device> devices(ResourceSlice s) {
    return s.getSpec().getDevices() == null ? List.of() : s.getSpec().getDevices();
  }

  /**
   * The devices the node can reach, pool by pool in pool-id order, each pool's in slice and
   * device order. Immutable.
   */
  List<Candidate> devicesFor(Node node) {
    String nodeName = node.getMetadata().getName();
    List<Entry> local = byNodeName.getOrDefault(nodeName, List.of());
    if (others.isEmpty() && local.size() == 1 && !local.get(0).perDevice()) {
      return local.get(0).candidates(); // the common shape: one slice per node
    }
    List<Entry> entries = new ArrayList<>(local);
    entries.addAll(others);
    entries.sort(Comparator.comparing((Entry e) -> e.pool().id()));
    List<Candidate> out = new ArrayList<>();
    for (Entry e : entries) {
      if (e.perDevice()) {
        ResourceSliceSpec spec = e.slice().getSpec();
        List<Device> ds = e.devices().devices();
        for (int i = 0; i < ds.size(); i++) {
          Device d = ds.get(i);
          if (deviceReaches(d, node)) {
            out.add(new Candidate(new DeviceId(spec.getDriver(), e.pool().name(), d.getName()),
                d, e.slice(), e.pool(), d.getNodeName() != null && !d.getNodeName().isEmpty(),
                e.devices(), i));
          }
        }
        continue;
      }
      ResourceSliceSpec spec = e.slice().getSpec();
      boolean reaches = (spec.getNodeName() != null && !spec.getNodeName().isEmpty())
          || Boolean.TRUE.equals(spec.getAllNodes())
          || (selectors.containsKey(e.slice()) && selectors.get(e.slice()).matches(node));
      if (reaches) {
        out.addAll(e.candidates());
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
