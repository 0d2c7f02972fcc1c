package io.berth.embedded.server;

import io.berth.dracel.Compilation;
import io.berth.dracel.SelectorEnvironment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The checks kube-apiserver makes on {@code resource.k8s.io/v1} objects ({@code pkg/apis/resource/validation}) that
 * clients of the embedded server depend on: device requests of claims and claim templates (names, exactly one of
 * {@code exactly} or {@code firstAvailable}, class names, allocation mode and count), immutable claim and template
 * specs, a claim's status ({@code reservedFor} at most {@value #RESERVED_FOR_MAX_SIZE} unique consumers and only
 * while allocated, an allocation that is set once and whose results name requests of the claim, DNS-label device
 * names, driver and pool names), slices (driver, pool, exactly one node selection field, unique device names,
 * device attributes with exactly one value and versions that are semantic versions,
 * immutable driver, pool name and node name) and device classes' selectors (CEL selectors compiled in
 * {@link SelectorEnvironment}, as upstream: at most 10,240 bytes, compiling, and a worst-case cost estimate within
 * {@link SelectorEnvironment#MAX_COST}). The first violation is a 422 Invalid
 * naming the object and the field path as upstream does. Stateless and thread-safe.
 */
final class ResourceApiValidation {

  /** Upstream's {@code ResourceClaimReservedForMaxSize}. */
  static final int RESERVED_FOR_MAX_SIZE = 256;
  /** Upstream's {@code DeviceRequestsMaxSize}, {@code AllocationResultsMaxSize} (32 each). */
  static final int DEVICE_REQUESTS_MAX_SIZE = 32;
  /** Upstream's {@code FirstAvailableDeviceRequestMaxSize}. */
  static final int FIRST_AVAILABLE_MAX_SIZE = 8;
  /** Upstream's {@code ResourceSliceMaxDevices}. */
  static final int SLICE_MAX_DEVICES = 128;
  /** Upstream's {@code DeviceSelectorsMaxSize}. */
  static final int SELECTORS_MAX_SIZE = 32;
  /** Upstream's {@code CELSelectorExpressionMaxLength} (bytes of UTF-8). */
  static final int CEL_SELECTOR_EXPRESSION_MAX_LENGTH = SelectorEnvironment.MAX_EXPRESSION_LENGTH;

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  /** Upstream's {@code DeviceAttributeMaxValueLength}. */
  static final int ATTRIBUTE_MAX_VALUE_LENGTH = 64;
  /** semver.org's expression for a version, which upstream's validation uses. */
  private static final Pattern SEMVER = Pattern.compile("(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
      + "(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
      + "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?");
  private static final Pattern CSI_DRIVER_NAME = Pattern.compile("[a-z0-9A-Z]([-a-z0-9A-Z.]*[a-z0-9A-Z])?");

  private ResourceApiValidation() {
  }

  static boolean covers(ResourceType type) {
    return type.group().equals("resource.k8s.io");
  }

  /** Create and update checks of the whole object. */
  static void validate(ResourceType type, JsonNode obj) {
    Check check = new Check(type, Json.text(obj, "metadata", "name"));
    JsonNode spec = obj.path("spec");
    if (type == ResourceTypes.RESOURCE_CLAIMS) {
      deviceClaim(check, spec.path("devices"), "spec.devices");
    } else if (type == ResourceTypes.RESOURCE_CLAIM_TEMPLATES) {
      deviceClaim(check, spec.path("spec").path("devices"), "spec.spec.devices");
    } else if (type == ResourceTypes.RESOURCE_SLICES) {
      slice(check, spec);
    } else if (type == ResourceTypes.DEVICE_CLASSES) {
      selectors(check, spec.path("selectors"), "spec.selectors");
    }
  }

  /** What an update of the main resource may not change. */
  static void validateUpdate(ResourceType type, JsonNode current, JsonNode next) {
    Check check = new Check(type, Json.text(next, "metadata", "name"));
    if (type == ResourceTypes.RESOURCE_CLAIMS || type == ResourceTypes.RESOURCE_CLAIM_TEMPLATES) {
      check.immutable("spec", current.path("spec"), next.path("spec"));
    } else if (type == ResourceTypes.RESOURCE_SLICES) {
      check.immutable("spec.driver", current.path("spec").path("driver"), next.path("spec").path("driver"));
      check.immutable("spec.pool.name", current.path("spec").path("pool").path("name"),
          next.path("spec").path("pool").path("name"));
      check.immutable("spec.nodeName", current.path("spec").path("nodeName"), next.path("spec").path("nodeName"));
    }
  }

  /** A write through {@code /status}: {@code next} is the stored object with the new status. */
  static void validateStatusUpdate(ResourceType type, JsonNode current, JsonNode next) {
    if (type != ResourceTypes.RESOURCE_CLAIMS) {
      return;
    }
    Check check = new Check(type, Json.text(next, "metadata", "name"));
    JsonNode status = next.path("status");
    JsonNode oldStatus = current.path("status");
    JsonNode reservedFor = status.path("reservedFor");
    JsonNode allocation = status.path("allocation");
    boolean allocated = allocation.isObject();
    if (reservedFor.isArray()) {
      if (reservedFor.size() > RESERVED_FOR_MAX_SIZE) {
        check.fail("status.reservedFor: Too many: " + reservedFor.size() + ": must have at most "
            + RESERVED_FOR_MAX_SIZE + " items");
      }
      Set<String> uids = new HashSet<>();
      for (int i = 0; i < reservedFor.size(); i++) {
        JsonNode ref = reservedFor.get(i);
        String path = "status.reservedFor[" + i + "]";
        check.required(path + ".resource", ref.path("resource"));
        check.required(path + ".name", ref.path("name"));
        check.required(path + ".uid", ref.path("uid"));
        if (!uids.add(ref.path("uid").asString(""))) {
          check.fail(path + ".uid: Duplicate value: \"" + ref.path("uid").asString("") + "\"");
        }
      }
      if (!reservedFor.isEmpty() && !allocated) {
        check.fail("status.reservedFor: Forbidden: may not be specified when `allocated` is not set");
      }
    }
    if (oldStatus.path("allocation").isObject() && allocated) {
      check.immutable("status.allocation", oldStatus.path("allocation"), allocation);
    } else if (allocated) {
      allocationResult(check, allocation, requestNames(next.path("spec").path("devices")));
    }
  }

  private static void deviceClaim(Check check, JsonNode devices, String path) {
    JsonNode requests = devices.path("requests");
    if (requests.isArray() && requests.size() > DEVICE_REQUESTS_MAX_SIZE) {
      check.fail(path + ".requests: Too many: " + requests.size() + ": must have at most " + DEVICE_REQUESTS_MAX_SIZE
          + " items");
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; requests.isArray() && i < requests.size(); i++) {
      JsonNode request = requests.get(i);
      String rp = path + ".requests[" + i + "]";
      String name = check.dnsLabel(rp + ".name", request.path("name"));
      if (!names.add(name)) {
        check.fail(rp + ".name: Duplicate value: \"" + name + "\"");
      }
      boolean exactly = request.path("exactly").isObject();
      boolean firstAvailable = request.path("firstAvailable").isArray() && !request.path("firstAvailable").isEmpty();
      if (!exactly && !firstAvailable) {
        check.fail(rp + ": Required value: exactly one of `exactly` or `firstAvailable` is required");
      }
      if (exactly && firstAvailable) {
        check.fail(rp + ": Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but "
            + "multiple fields are set");
      }
      if (exactly) {
        exactRequest(check, request.path("exactly"), rp + ".exactly");
      } else {
        JsonNode subs = request.path("firstAvailable");
        if (subs.size() > FIRST_AVAILABLE_MAX_SIZE) {
          check.fail(rp + ".firstAvailable: Too many: " + subs.size() + ": must have at most "
              + FIRST_AVAILABLE_MAX_SIZE + " items");
        }
        Set<String> subNames = new HashSet<>();
        for (int j = 0; j < subs.size(); j++) {
          String sp = rp + ".firstAvailable[" + j + "]";
          String subName = check.dnsLabel(sp + ".name", subs.get(j).path("name"));
          if (!subNames.add(subName)) {
            check.fail(sp + ".name: Duplicate value: \"" + subName + "\"");
          }
          exactRequest(check, subs.get(j), sp);
        }
      }
    }
    Map<String, Set<String>> requestNames = requestNames(devices);
    JsonNode constraints = devices.path("constraints");
    for (int i = 0; constraints.isArray() && i < constraints.size(); i++) {
      JsonNode refs = constraints.get(i).path("requests");
      for (int j = 0; refs.isArray() && j < refs.size(); j++) {
        requestRef(check, path + ".constraints[" + i + "].requests[" + j + "]", refs.get(j).asString(""),
            requestNames);
      }
    }
  }

  private static void exactRequest(Check check, JsonNode request, String path) {
    JsonNode className = request.path("deviceClassName");
    check.required(path + ".deviceClassName", className);
    String name = className.asString("");
    if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      check.fail(path + ".deviceClassName: Invalid value: \"" + name + "\": a lowercase RFC 1123 subdomain must "
          + "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
          + "alphanumeric character");
    }
    selectors(check, request.path("selectors"), path + ".selectors");
    String mode = request.path("allocationMode").asString("ExactCount");
    long count = request.path("count").asLong(0);
    switch (mode) {
      case "All" -> {
        if (count != 0) {
          check.fail(path + ".count: Invalid value: " + count + ": must not be specified when allocationMode is "
              + "'All'");
        }
      }
      case "ExactCount" -> {
        if (count <= 0) {
          check.fail(path + ".count: Invalid value: " + count + ": must be greater than zero");
        }
      }
      default -> check.fail(path + ".allocationMode: Unsupported value: \"" + mode + "\": supported values: "
          + "\"All\", \"ExactCount\"");
    }
  }

  private static void selectors(Check check, JsonNode selectors, String path) {
    if (!selectors.isArray()) {
      return;
    }
    if (selectors.size() > SELECTORS_MAX_SIZE) {
      check.fail(path + ": Too many: " + selectors.size() + ": must have at most " + SELECTORS_MAX_SIZE + " items");
    }
    for (int i = 0; i < selectors.size(); i++) {
      JsonNode cel = selectors.get(i).path("cel");
      if (!cel.isObject()) {
        check.fail(path + "[" + i + "]: Required value: exactly one of `cel` is required");
      }
      String fieldPath = path + "[" + i + "].cel.expression";
      check.required(fieldPath, cel.path("expression"));
      celSelector(check, fieldPath, cel.path("expression").asString(""));
    }
  }

  /**
   * Upstream's {@code validateCELSelector}: too long expressions are not compiled; one that does not compile is
   * Invalid with the compiler's message; one whose worst-case cost estimate exceeds the limit is Forbidden.
   */
  private static void celSelector(Check check, String path, String expression) {
    int bytes = expression.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > CEL_SELECTOR_EXPRESSION_MAX_LENGTH) {
      check.fail(path + ": Too long: may not be more than " + CEL_SELECTOR_EXPRESSION_MAX_LENGTH + " bytes");
    }
    Compilation compiled = SelectorEnvironment.compile(expression, true);
    if (compiled.failure().isPresent()) {
      if (compiled.failure().get() == Compilation.Failure.INTERNAL) {
        check.fail(path + ": Internal error: " + compiled.error().orElse(""));
      }
      check.fail(path + ": Invalid value: \"" + expression + "\": " + compiled.error().orElse(""));
    }
    if (compiled.exceedsCostLimit()) {
      check.fail(path + ": Forbidden: too complex, exceeds cost limit");
    }
  }

  private static void slice(Check check, JsonNode spec) {
    driverName(check, "spec.driver", spec.path("driver"));
    JsonNode pool = spec.path("pool");
    check.required("spec.pool.name", pool.path("name"));
    if (pool.path("resourceSliceCount").asLong(0) <= 0) {
      check.fail("spec.pool.resourceSliceCount: Invalid value: " + pool.path("resourceSliceCount").asLong(0)
          + ": must be greater than zero");
    }
    if (pool.path("generation").asLong(0) < 0) {
      check.fail("spec.pool.generation: Invalid value: " + pool.path("generation").asLong()
          + ": must be greater than or equal to zero");
    }
    List<String> set = new ArrayList<>();
    JsonNode nodeName = spec.path("nodeName");
    if (!nodeName.isMissingNode() && !nodeName.isNull()) {
      if (nodeName.asString("").isEmpty()) {
        check.fail("spec.nodeName: Invalid value: \"\": must be either unset or set to a non-empty string");
      }
      set.add("`nodeName`");
    }
    if (spec.path("nodeSelector").isObject()) {
      set.add("`nodeSelector`");
    }
    for (String flag : List.of("allNodes", "perDeviceNodeSelection")) {
      JsonNode value = spec.path(flag);
      if (value.isBoolean()) {
        if (!value.booleanValue()) {
          check.fail("spec." + flag + ": Invalid value: false: must be either unset or set to true");
        }
        set.add("`" + flag + "`");
      }
    }
    String oneOf = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";
    if (set.isEmpty()) {
      check.fail("spec: Required value: " + oneOf);
    } else if (set.size() > 1) {
      check.fail("spec: Invalid value: \"{" + String.join(", ", set) + "}\": " + oneOf
          + ", but multiple fields are set");
    }
    JsonNode devices = spec.path("devices");
    if (devices.isArray() && devices.size() > SLICE_MAX_DEVICES) {
      check.fail("spec.devices: Too many: " + devices.size() + ": must have at most " + SLICE_MAX_DEVICES
          + " items");
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; devices.isArray() && i < devices.size(); i++) {
      String name = check.dnsLabel("spec.devices[" + i + "].name", devices.get(i).path("name"));
      if (!names.add(name)) {
        check.fail("spec.devices[" + i + "].name: Duplicate value: \"" + name + "\"");
      }
      JsonNode attributes = devices.get(i).path("attributes");
      for (Map.Entry<String, JsonNode> a : attributes.properties()) {
        deviceAttribute(check, "spec.devices[" + i + "].attributes[" + a.getKey() + "]", a.getValue());
      }
    }
  }

  /**
   * Upstream's {@code validateDeviceAttribute}: exactly one value; strings and versions at most
   * {@value #ATTRIBUTE_MAX_VALUE_LENGTH} bytes; a version as Semantic Versioning 2.0.0 writes one (what the selectors
   * then see as a {@code semver}).
   */
  private static void deviceAttribute(Check check, String path, JsonNode attribute) {
    int values = 0;
    for (String kind : List.of("bool", "int", "string", "version")) {
      JsonNode v = attribute.path(kind);
      if (v.isMissingNode() || v.isNull()) {
        continue;
      }
      values++;
      if (kind.equals("string") || kind.equals("version")) {
        String text = v.asString("");
        if (kind.equals("version") && !SEMVER.matcher(text).matches()) {
          check.fail(path + ".version: Invalid value: \"" + text
              + "\": must be a string compatible with semver.org spec 2.0.0");
        }
        if (text.getBytes(StandardCharsets.UTF_8).length > ATTRIBUTE_MAX_VALUE_LENGTH) {
          check.fail(path + "." + kind + ": Too long: may not be more than " + ATTRIBUTE_MAX_VALUE_LENGTH + " bytes");
        }
      }
    }
    if (values == 0) {
      check.fail(path + ": Required value: exactly one value must be specified");
    } else if (values > 1) {
      check.fail(path + ": Invalid value: exactly one value must be specified");
    }
  }

  private static void allocationResult(Check check, JsonNode allocation, Map<String, Set<String>> requestNames) {
    JsonNode results = allocation.path("devices").path("results");
    if (results.isArray() && results.size() > DEVICE_REQUESTS_MAX_SIZE) {
      check.fail("status.allocation.devices.results: Too many: " + results.size() + ": must have at most "
          + DEVICE_REQUESTS_MAX_SIZE + " items");
    }
    for (int i = 0; results.isArray() && i < results.size(); i++) {
      JsonNode result = results.get(i);
      String path = "status.allocation.devices.results[" + i + "]";
      check.required(path + ".request", result.path("request"));
      requestRef(check, path + ".request", result.path("request").asString(""), requestNames);
      driverName(check, path + ".driver", result.path("driver"));
      check.required(path + ".pool", result.path("pool"));
      check.dnsLabel(path + ".device", result.path("device"));
    }
  }

  /** Request names, each with its subrequest names (empty for an {@code exactly} request). */
  private static Map<String, Set<String>> requestNames(JsonNode devices) {
    Map<String, Set<String>> names = new HashMap<>();
    JsonNode requests = devices.path("requests");
    for (int i = 0; requests.isArray() && i < requests.size(); i++) {
      Set<String> subs = new HashSet<>();
      JsonNode first = requests.get(i).path("firstAvailable");
      for (int j = 0; first.isArray() && j < first.size(); j++) {
        subs.add(first.get(j).path("name").asString(""));
      }
      names.put(requests.get(i).path("name").asString(""), subs);
    }
    return names;
  }

  /** {@code request} or {@code request/subrequest}, as upstream's {@code validateRequestNameRef}. */
  private static void requestRef(Check check, String path, String ref, Map<String, Set<String>> names) {
    String[] parts = ref.split("/", -1);
    boolean found = parts.length <= 2 && names.containsKey(parts[0])
        && (parts.length == 1 || names.get(parts[0]).contains(parts[1]));
    if (!ref.isEmpty() && !found) {
      check.fail(path + ": Invalid value: \"" + ref + "\": must be the name of a request in the claim or the name "
          + "of a request and a subrequest separated by '/'");
    }
  }

  private static void driverName(Check check, String path, JsonNode value) {
    check.required(path, value);
    String name = value.asString("");
    if (name.length() > 63) {
      check.fail(path + ": Too long: may not be more than 63 bytes");
    }
    if (!CSI_DRIVER_NAME.matcher(name).matches()) {
      check.fail(path + ": Invalid value: \"" + name + "\": a DNS-1123 subdomain must consist of lower case "
          + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
    }
  }

  /** The object under validation, for messages. */
  private record Check(ResourceType type, String name) {

    void fail(String message) {
      throw ApiException.invalid(type, name == null ? "" : name, message);
    }

    void required(String path, JsonNode value) {
      if (value.isMissingNode() || value.isNull() || value.asString("").isEmpty()) {
        fail(path + ": Required value");
      }
    }

    String dnsLabel(String path, JsonNode value) {
      required(path, value);
      String s = value.asString("");
      if (s.length() > 63 || !DNS_LABEL.matcher(s).matches()) {
        fail(path + ": Invalid value: \"" + s + "\": a lowercase RFC 1123 label must consist of lower case "
            + "alphanumeric characters or '-', and must start and end with an alphanumeric character");
      }
      return s;
    }

    void immutable(String path, JsonNode before, JsonNode after) {
      if (!Objects.equals(before, after)) {
        fail(path + ": Invalid value: " + (after.isMissingNode() ? "null" : after.toString())
            + ": field is immutable");
      }
    }
  }
}
