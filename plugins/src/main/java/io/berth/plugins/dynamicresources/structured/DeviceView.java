package io.berth.plugins.dynamicresources.structured;

import io.berth.dracel.CelQuantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One device of a ResourceSlice as selectors and constraints see it: its driver, and its
 * attributes and capacities keyed by fully qualified name ({@code domain/id}; an unqualified
 * name belongs to the driver's domain, as upstream). {@link #asCel} is the CEL {@code device}
 * variable: {@code device.attributes["domain"].id}, where looking up a domain the device does not
 * have gives an empty map (as upstream, so {@code has(...)} answers false).
 *
 * <p>A device's attributes and capacities cannot change without a new ResourceSlice object, so
 * {@link #selectedBy} memoizes each selector's outcome (match, no match, or the evaluation error)
 * per expression for the life of the view; {@link PoolsCache} keeps one view per device of each
 * slice version, so the memo lasts across scheduling cycles and is dropped with the slice
 * version. Attributes are immutable once built; the memo is a concurrent map (Filter evaluates
 * one view from many threads), bounded by {@value #MAX_MEMOIZED} expressions.
 */
public final class DeviceView {
  private final String driver;
  private final Map<String, Map<String, Object>> attributes = new HashMap<>();
  private final Map<String, Map<String, Object>> capacity = new HashMap<>();
  private volatile Map<String, Object> cel;
  // expression -> Boolean, or the Failure of its evaluation
  private final Map<String, Object> outcomes = new ConcurrentHashMap<>();

  /** Expressions memoized per device; past it, further ones are evaluated on each call. */
  static final int MAX_MEMOIZED = 64;

  private record Failure(String message) {}

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

  /**
   * Whether {@code selector} selects this device, as {@link DeviceSelectors.Compiled#matches},
   * memoized per expression (selectors are pure functions of the device).
   *
   * @throws DeviceSelectors.SelectorException as {@code matches}, also when memoized
   */
  public boolean selectedBy(DeviceSelectors.Compiled selector)
      throws DeviceSelectors.SelectorException {
    String key = selector.expression();
    Object outcome = outcomes.get(key);
    if (outcome == null) {
      try {
        outcome = selector.matches(this);
      } catch (DeviceSelectors.SelectorException e) {
        outcome = new Failure(e.getMessage());
      }
      if (outcomes.size() < MAX_MEMOIZED) {
        outcomes.putIfAbsent(key, outcome);
      }
    }
    if (outcome instanceof Failure f) {
      throw new DeviceSelectors.SelectorException(f.message());
    }
    return (Boolean) outcome;
  }

  /** How many selector outcomes this view holds (tests). */
  int memoized() {
    return outcomes.size();
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
