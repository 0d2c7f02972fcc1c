package io.berth.plugins.dynamicresources.structured;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One device of a ResourceSlice as selectors and constraints see it: its driver, and its
 * attributes and capacities keyed by fully qualified name ({@code domain/id}; an unqualified
 * name belongs to the driver's domain, as upstream). {@link #asCel} is the CEL {@code device}
 * variable: {@code device.attributes["domain"].id}, where looking up a domain the device does not
 * have gives an empty map (as upstream, so {@code has(...)} answers false). Immutable once built;
 * built lazily by the allocator, one per device.
 */
public final class DeviceView {
  private final String driver;
  private final Map<String, Map<String, Object>> attributes = new HashMap<>();
  private final Map<String, Map<String, Object>> capacity = new HashMap<>();
  private volatile Map<String, Object> cel;

  public DeviceView(String driver, Device device) {
    this.driver = driver;
    if (device.getAttributes() != null) {
      device.getAttributes().forEach((name, value) -> {
        Object v = attributeValue(value);
        if (v != null) {
          put(attributes, name, v);
        }
      });
    }
    if (device.getCapacity() != null) {
      device.getCapacity().forEach((name, value) -> {
        if (value != null && value.getValue() != null) {
          put(capacity, name, CelQuantity.of(value.getValue()));
        }
      });
    }
  }

  private void put(Map<String, Map<String, Object>> into, String name, Object value) {
    int slash = name.indexOf('/');
    String domain = slash < 0 ? driver : name.substring(0, slash);
    String id = slash < 0 ? name : name.substring(slash + 1);
    into.computeIfAbsent(domain, d -> new HashMap<>()).put(id, value);
  }

  private static Object attributeValue(DeviceAttribute a) {
    if (a == null) {
      return null;
    }
    if (a.getBool() != null) {
      return a.getBool();
    }
    if (a.getInt() != null) {
      return a.getInt();
    }
    if (a.getString() != null) {
      return a.getString();
    }
    if (a.getVersion() != null) {
      return a.getVersion();
    }
    return null;
  }

  public String driver() {
    return driver;
  }

  /**
   * An attribute by fully qualified name ({@code domain/id}, or an id of the driver's domain);
   * the value is a Boolean, Long or String (versions as their string).
   */
  public Optional<Object> attribute(String qualifiedName) {
    int slash = qualifiedName.indexOf('/');
    String domain = slash < 0 ? driver : qualifiedName.substring(0, slash);
    String id = slash < 0 ? qualifiedName : qualifiedName.substring(slash + 1);
    Map<String, Object> byId = attributes.get(domain);
    return Optional.ofNullable(byId == null ? null : byId.get(id));
  }

  /** The CEL variable {@code device}. */
  Map<String, Object> asCel() {
    Map<String, Object> c = cel;
    if (c == null) {
      c = Map.of("driver", driver, "attributes", new AnyDomain(attributes),
          "capacity", new AnyDomain(capacity));
      cel = c;
    }
    return c;
  }

  // A map of domains in which every string key is present (empty when the device has none).
  private static final class AnyDomain extends AbstractMap<String, Map<String, Object>> {
    private final Map<String, Map<String, Object>> byDomain;

    AnyDomain(Map<String, Map<String, Object>> byDomain) {
      this.byDomain = byDomain;
    }

    @Override
    public boolean containsKey(Object key) {
      return key instanceof String;
    }

    @Override
    public Map<String, Object> get(Object key) {
      if (!(key instanceof String)) {
        return null;
      }
      Map<String, Object> m = byDomain.get(key);
      return m == null ? Map.of() : m;
    }

    @Override
    public Set<Entry<String, Map<String, Object>>> entrySet() {
      return byDomain.entrySet();
    }
  }
}
