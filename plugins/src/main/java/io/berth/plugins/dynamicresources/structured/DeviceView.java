package io.berth.plugins.dynamicresources.structured;

import io.berth.dracel.CelQuantity;
import io.berth.dracel.CelSemver;
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
 * (version attributes as {@link CelSemver}, as upstream's {@code getAttributeValue})
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
  private final boolean allowMultipleAllocations;
  // as constraints compare them (versions as Version), and as CEL sees them (versions as
  // CelSemver)
  private final Map<String, Map<String, Object>> attributes = new HashMap<>();
  // the same map as attributes when the device has no version attribute
  private final Map<String, Map<String, Object>> celAttributes;
  // why no selector evaluates on this device (a version attribute that does not parse), or null
  private final String celError;
  private final Map<String, Map<String, Object>> capacity = new HashMap<>();
  private volatile Map<String, Object> cel;
  // expression -> Boolean, or the Failure of its evaluation
  private final Map<String, Object> outcomes = new ConcurrentHashMap<>();

  /** Expressions memoized per device; past it, further ones are evaluated on each call. */
  static final int MAX_MEMOIZED = 64;

  private record Failure(String message) {}

  /**
   * A {@code version} attribute's value as {@code matchAttribute} constraints compare it: its
   * text, exactly (upstream compares the strings, which Semantic Versioning keeps minimal), and
   * never equal to a string attribute of the same text.
   *
   * @param text the version as the slice gives it
   */
  public record Version(String text) {}

  public DeviceView(String driver, Device device) {
    this.driver = driver;
    this.allowMultipleAllocations = Boolean.TRUE.equals(device.getAllowMultipleAllocations());
    String celError = null;
    Map<String, Map<String, Object>> cel = null;
    if (device.getAttributes() != null) {
      for (Map.Entry<String, DeviceAttribute> en : device.getAttributes().entrySet()) {
        Object v = attributeValue(en.getValue());
        if (v == null) {
          continue;
        }
        put(attributes, en.getKey(), v);
        if (v instanceof Version version) {
          if (cel == null) {
            cel = new HashMap<>();
          }
          try {
            put(cel, en.getKey(), CelSemver.parse(version.text()));
          } catch (IllegalArgumentException e) {
            // upstream's DeviceMatches: no selector evaluates on such a device
            if (celError == null) {
              celError = "attribute " + en.getKey() + ": parse semantic version: "
                  + e.getMessage();
            }
          }
        }
      }
    }
    if (cel != null) {
      // the other attributes as they are
      for (Map.Entry<String, Map<String, Object>> domain : attributes.entrySet()) {
        Map<String, Object> into = cel.computeIfAbsent(domain.getKey(), d -> new HashMap<>());
        domain.getValue().forEach((id, v) -> {
          if (!(v instanceof Version)) {
            into.put(id, v);
          }
        });
      }
    }
    this.celAttributes = cel != null ? cel : attributes;
    this.celError = celError;
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
      return new Version(a.getVersion());
    }
    return null;
  }

  public String driver() {
    return driver;
  }

  /**
   * An attribute by fully qualified name ({@code domain/id}, or an id of the driver's domain);
   * the value is a Boolean, Long, String or {@link Version}.
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

  /**
   * Why no selector evaluates on this device, in upstream's words ("attribute NAME: parse semantic
   * version: ..."), when one of its version attributes is not a semantic version.
   */
  Optional<String> celError() {
    return Optional.ofNullable(celError);
  }

  /** The CEL variable {@code device}. */
  Map<String, Object> asCel() {
    Map<String, Object> c = cel;
    if (c == null) {
      c = Map.of("driver", driver, "allowMultipleAllocations", allowMultipleAllocations,
          "attributes", new AnyDomain(celAttributes),
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
