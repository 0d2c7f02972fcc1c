package io.berth.embedded;

import io.berth.embedded.server.Json;
import io.berth.embedded.server.StoredObject;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a simulated node's GPU driver publishes, as a DRA kubelet plugin would: one {@code resource.k8s.io/v1}
 * ResourceSlice per node named {@code <node>-gpu.berth.io}, of driver {@value #DRIVER}, with {@code nodeName} set,
 * one pool named after the node (generation 1, one slice), an owner reference to its Node (so that deleting the node
 * deletes the slice, as the kubelet's owner reference does upstream), and devices {@code gpu-0}, {@code gpu-1}, ...
 * with the attributes {@code model} (string) and {@code index} (int) and the capacity {@code memory}. Also the
 * DeviceClass {@value #DEVICE_CLASS} a driver's installation ships, selecting the driver's devices with
 * {@code device.driver == "gpu.berth.io"}. Stateless; builds fresh trees.
 */
public final class SimulatedGpus {

  /** The driver name of simulated GPUs. */
  public static final String DRIVER = "gpu.berth.io";
  /** The DeviceClass that selects every simulated GPU. */
  public static final String DEVICE_CLASS = "gpu.berth.io";
  /** The device names' prefix: {@code gpu-0}, {@code gpu-1}, ... */
  public static final String DEVICE_PREFIX = "gpu-";

  private SimulatedGpus() {
  }

  /** The name of the slice the node publishes. */
  public static String sliceName(String nodeName) {
    return nodeName + "-" + DRIVER;
  }

  /** The ResourceSlice of {@code node} (as stored, for its uid) with {@code gpus}. */
  static ObjectNode slice(StoredObject node, GpuSpec gpus) {
    ObjectNode slice = Json.object();
    slice.put("apiVersion", "resource.k8s.io/v1");
    slice.put("kind", "ResourceSlice");
    ObjectNode meta = slice.putObject("metadata");
    meta.put("name", sliceName(node.name()));
    ObjectNode owner = meta.putArray("ownerReferences").addObject();
    owner.put("apiVersion", "v1");
    owner.put("kind", "Node");
    owner.put("name", node.name());
    owner.put("uid", node.uid());
    owner.put("controller", true);
    ObjectNode spec = slice.putObject("spec");
    spec.put("driver", DRIVER);
    spec.put("nodeName", node.name());
    ObjectNode pool = spec.putObject("pool");
    pool.put("name", node.name());
    pool.put("generation", 1);
    pool.put("resourceSliceCount", 1);
    ArrayNode devices = spec.putArray("devices");
    for (int i = 0; i < gpus.count(); i++) {
      ObjectNode device = devices.addObject();
      device.put("name", DEVICE_PREFIX + i);
      ObjectNode attributes = device.putObject("attributes");
      attributes.putObject("model").put("string", gpus.model());
      attributes.putObject("index").put("int", i);
      device.putObject("capacity").putObject("memory").put("value", gpus.memory());
    }
    return slice;
  }

  /** The DeviceClass {@value #DEVICE_CLASS}. */
  static ObjectNode deviceClass() {
    ObjectNode deviceClass = Json.object();
    deviceClass.put("apiVersion", "resource.k8s.io/v1");
    deviceClass.put("kind", "DeviceClass");
    deviceClass.putObject("metadata").put("name", DEVICE_CLASS);
    deviceClass.putObject("spec").putArray("selectors").addObject().putObject("cel")
        .put("expression", "device.driver == \"" + DRIVER + "\"");
    return deviceClass;
  }
}
