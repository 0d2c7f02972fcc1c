package io.berth.embedded.defaults;

import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code resource.k8s.io/v1} scheme defaults ({@code pkg/apis/resource/v1/defaults.go}) of a claim's device
 * requests, applied to ResourceClaims and to the claim spec inside ResourceClaimTemplates: an {@code exactly} request
 * or a {@code firstAvailable} subrequest gets {@code allocationMode: ExactCount} and, in that mode,
 * {@code count: 1}; a toleration gets {@code operator: Equal}. Stateless and thread-safe; mutates the tree it is
 * given.
 */
final class ResourceClaimDefaults {

  private ResourceClaimDefaults() {}

  /** Defaults {@code claimSpec} (a ResourceClaim's {@code spec}) in place. */
  static void claimSpec(ObjectNode claimSpec) {
    ObjectNode devices = JsonFields.existingObject(claimSpec, "devices");
    if (devices == null) {
      return;
    }
    for (ObjectNode request : JsonFields.objects(devices, "requests")) {
      ObjectNode exactly = JsonFields.existingObject(request, "exactly");
      if (exactly != null) {
        deviceRequest(exactly);
      }
      JsonFields.objects(request, "firstAvailable").forEach(ResourceClaimDefaults::deviceRequest);
    }
  }

  /** Defaults a template's {@code spec.spec}. */
  static void template(ObjectNode template) {
    ObjectNode spec = JsonFields.existingObject(template, "spec");
    ObjectNode claimSpec = spec == null ? null : JsonFields.existingObject(spec, "spec");
    if (claimSpec != null) {
      claimSpec(claimSpec);
    }
  }

  private static void deviceRequest(ObjectNode request) {
    JsonFields.defaultString(request, "allocationMode", "ExactCount");
    if ("ExactCount".equals(JsonFields.string(request, "allocationMode"))) {
      JsonFields.defaultInt(request, "count", 1);
    }
    for (ObjectNode toleration : JsonFields.objects(request, "tolerations")) {
      JsonFields.defaultString(toleration, "operator", "Equal");
    }
  }
}
