package io.berth.dracel;

import java.util.List;
import java.util.Map;

/**
 * The declared shape of the {@code device} variable with upstream's size bounds, as the
 * {@code DeclType}s of {@code dynamic-resource-allocation/cel}'s compiler: the driver name (at most
 * {@value #DRIVER_NAME_MAX_LENGTH} characters), {@code allowMultipleAllocations} (a bool), and the
 * attribute and capacity maps (at most
 * {@value #MAX_ATTRIBUTES_AND_CAPACITIES} domains, each with at most as many identifiers, domains
 * of at most {@value #DOMAIN_MAX_LENGTH} and identifiers of at most {@value #ID_MAX_LENGTH}
 * characters, attribute values of at most {@value #ATTRIBUTE_MAX_VALUE_LENGTH}). The cost
 * estimator asks it for the size of what a field path reaches (upstream's {@code sizeEstimator}).
 * Immutable.
 */
final class DeviceShape {
  /** Upstream's {@code resourceapi.DriverNameMaxLength}. */
  static final long DRIVER_NAME_MAX_LENGTH = 63;
  /** Upstream's {@code resourceapi.DeviceMaxDomainLength}. */
  static final long DOMAIN_MAX_LENGTH = 63;
  /** Upstream's {@code resourceapi.DeviceMaxIDLength}. */
  static final long ID_MAX_LENGTH = 32;
  /** Upstream's {@code resourceapi.DeviceAttributeMaxValueLength}. */
  static final long ATTRIBUTE_MAX_VALUE_LENGTH = 64;
  /** Upstream's {@code resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice}. */
  static final long MAX_ATTRIBUTES_AND_CAPACITIES = 32;

  /** What a node of the declaration is; selecting a field of a MAP or STRUCT costs a unit. */
  enum Kind { STRUCT, MAP, STRING, ANY, QUANTITY, BOOL }

  final Kind kind;
  final long maxElements;
  final Map<String, DeviceShape> fields;
  final DeviceShape key;
  final DeviceShape elem;

  private DeviceShape(Kind kind, long maxElements, Map<String, DeviceShape> fields,
      DeviceShape key, DeviceShape elem) {
    this.kind = kind;
    this.maxElements = maxElements;
    this.fields = fields;
    this.key = key;
    this.elem = elem;
  }

  private static DeviceShape scalar(Kind kind, long maxElements) {
    return new DeviceShape(kind, maxElements, Map.of(), null, null);
  }

  private static DeviceShape map(DeviceShape key, DeviceShape elem, long maxElements) {
    return new DeviceShape(Kind.MAP, maxElements, Map.of(), key, elem);
  }

  /** An attribute's value: of unknown type, but of known maximum size. */
  static final DeviceShape ATTRIBUTE = scalar(Kind.ANY, ATTRIBUTE_MAX_VALUE_LENGTH);
  private static final DeviceShape DOMAIN = scalar(Kind.STRING, DOMAIN_MAX_LENGTH);
  private static final DeviceShape ID = scalar(Kind.STRING, ID_MAX_LENGTH);
  // upstream's QuantityDeclType declares no maximum size
  private static final DeviceShape QUANTITY = scalar(Kind.QUANTITY, 0);

  /** The {@code device} variable. */
  static final DeviceShape DEVICE = new DeviceShape(Kind.STRUCT, 0, Map.of(
      "driver", scalar(Kind.STRING, DRIVER_NAME_MAX_LENGTH),
      // upstream's multiAllocType: a bool of known size, with DRAConsumableCapacity (on in 1.36)
      "allowMultipleAllocations", scalar(Kind.BOOL, 1),
      "attributes", map(DOMAIN, map(ID, ATTRIBUTE, MAX_ATTRIBUTES_AND_CAPACITIES),
          MAX_ATTRIBUTES_AND_CAPACITIES),
      "capacity", map(DOMAIN, map(ID, QUANTITY, MAX_ATTRIBUTES_AND_CAPACITIES),
          MAX_ATTRIBUTES_AND_CAPACITIES)), null, null);

  /**
   * The node a field path reaches ({@code device}, then field names, {@code @keys},
   * {@code @values} or {@code @items}), or null when the path leaves the declaration. Any
   * identifier of an attribute map reaches an attribute value, as upstream.
   */
  static DeviceShape resolve(List<String> path) {
    if (path == null || path.isEmpty() || !path.get(0).equals(SelectorEnvironment.DEVICE_VAR)) {
      return null;
    }
    DeviceShape current = DEVICE;
    for (String name : path.subList(1, path.size())) {
      switch (name) {
        case "@items", "@values" -> current = current.elem;
        case "@keys" -> current = current.key;
        default -> {
          DeviceShape field = current.fields.get(name);
          current = field != null ? field : current.elem == ATTRIBUTE ? ATTRIBUTE : null;
        }
      }
      if (current == null) {
        return null;
      }
    }
    return current;
  }
}
