package io.berth.plugins.dynamicresources.structured;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecBuilder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Compact builders of DRA objects for tests (the shape of upstream's allocator test helpers). */
public final class DraObjects {
  public static final String DRIVER = "driver-a";
  public static final String DRIVER_B = "driver-b";

  private DraObjects() {}

  public static DeviceClass deviceClass(String name, String... selectors) {
    return new DeviceClassBuilder().withNewMetadata().withName(name).withUid(uid()).endMetadata()
        .withNewSpec().withSelectors(selectors(selectors)).endSpec().build();
  }

  public static List<DeviceSelector> selectors(String... expressions) {
    return Arrays.stream(expressions).map(e -> new DeviceSelectorBuilder().withNewCel()
        .withExpression(e).endCel().build()).toList();
  }

  /** An ExactCount request of {@code count} devices. */
  public static DeviceRequest request(String name, String className, long count,
      String... selectors) {
    return new DeviceRequestBuilder().withName(name).withNewExactly()
        .withDeviceClassName(className).withAllocationMode("ExactCount").withCount(count)
        .withSelectors(selectors(selectors)).endExactly().build();
  }

  public static DeviceRequest allRequest(String name, String className, String... selectors) {
    return new DeviceRequestBuilder().withName(name).withNewExactly()
        .withDeviceClassName(className).withAllocationMode("All")
        .withSelectors(selectors(selectors)).endExactly().build();
  }

  public static DeviceRequest adminRequest(DeviceRequest r) {
    return new DeviceRequestBuilder(r).editExactly().withAdminAccess(true).endExactly().build();
  }

  public static DeviceRequest firstAvailable(String name, DeviceSubRequest... subs) {
    return new DeviceRequestBuilder().withName(name).withFirstAvailable(subs).build();
  }

  public static DeviceSubRequest sub(String name, String className, long count,
      String... selectors) {
    return new DeviceSubRequestBuilder().withName(name).withDeviceClassName(className)
        .withAllocationMode("ExactCount").withCount(count).withSelectors(selectors(selectors))
        .build();
  }

  public static DeviceConstraint matchAttribute(String attribute, String... requests) {
    return new DeviceConstraintBuilder().withMatchAttribute(attribute)
        .withRequests(requests.length == 0 ? null : List.of(requests)).build();
  }

  public static ResourceClaim claim(String name, List<DeviceRequest> requests,
      DeviceConstraint... constraints) {
    return new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid(uid()).endMetadata().withNewSpec().withNewDevices().withRequests(requests)
        .withConstraints(constraints.length == 0 ? null : List.of(constraints)).endDevices()
        .endSpec().build();
  }

  public static ResourceClaim claim(String name, DeviceRequest... requests) {
    return claim(name, List.of(requests));
  }

  /** A device with attributes (String, Long or Boolean values) and capacities given as pairs. */
  public static Device device(String name, Map<String, Object> attributes,
      Map<String, String> capacity) {
    Map<String, DeviceAttribute> attrs = new LinkedHashMap<>();
    attributes.forEach((k, v) -> {
      DeviceAttributeBuilder b = new DeviceAttributeBuilder();
      if (v instanceof String s) {
        b.withString(s);
      } else if (v instanceof Long l) {
        b.withInt(l);
      } else if (v instanceof Integer i) {
        b.withInt(i.longValue());
      } else if (v instanceof Boolean bo) {
        b.withBool(bo);
      }
      attrs.put(k, b.build());
    });
    Map<String, DeviceCapacity> caps = new LinkedHashMap<>();
    capacity.forEach((k, v) -> caps.put(k,
        new DeviceCapacityBuilder().withValue(new Quantity(v)).build()));
    return new DeviceBuilder().withName(name).withAttributes(attrs).withCapacity(caps).build();
  }

  public static Device device(String name) {
    return device(name, Map.of(), Map.of());
  }

  /** A node-local slice of pool {@code pool} (generation 1, one slice). */
  public static ResourceSlice slice(String name, String node, String pool, String driver,
      Device... devices) {
    return slice(name, pool, driver, 1, 1, devices, b -> b.withNodeName(node));
  }

  public static ResourceSlice allNodesSlice(String name, String pool, String driver,
      Device... devices) {
    return slice(name, pool, driver, 1, 1, devices, b -> b.withAllNodes(true));
  }

  public static ResourceSlice selectorSlice(String name, String pool, String driver,
      NodeSelector selector, Device... devices) {
    return slice(name, pool, driver, 1, 1, devices, b -> b.withNodeSelector(selector));
  }

  public static NodeSelector labelSelector(String key, String value) {
    return new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchExpression()
        .withKey(key).withOperator("In").withValues(value).endMatchExpression()
        .endNodeSelectorTerm().build();
  }

  public static ResourceSlice slice(String name, String pool, String driver, long generation,
      long sliceCount, Device[] devices,
      java.util.function.Consumer<ResourceSliceSpecBuilder> where) {
    ResourceSliceSpecBuilder spec = new ResourceSliceSpecBuilder().withDriver(driver)
        .withNewPool().withName(pool).withGeneration(generation)
        .withResourceSliceCount(sliceCount).endPool().withDevices(devices);
    where.accept(spec);
    return new ResourceSliceBuilder().withNewMetadata().withName(name).withUid(uid())
        .endMetadata().withSpec(spec.build()).build();
  }

  private static String uid() {
    return UUID.randomUUID().toString();
  }
}
