package io.berth.embedded.server;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sets a condition in a {@code status.conditions} list the way Kubernetes components do: one entry per type, the
 * transition time moved only when the status value changes. Stateless and thread-safe; mutates the given tree.
 */
public final class Conditions {

  private Conditions() {
  }

  /** Sets condition {@code type} of {@code status} to {@code value} with optional reason and message. */
  public static void set(ObjectNode status, String type, String value, String reason, String message, String now) {
    JsonNode existing = status.get("conditions");
    ArrayNode conditions = existing instanceof ArrayNode a ? a : status.putArray("conditions");
    ObjectNode condition = null;
    for (JsonNode c : conditions.values()) {
      if (type.equals(Json.text(c, "type")) && c instanceof ObjectNode o) {
        condition = o;
      }
    }
    if (condition == null) {
      condition = conditions.addObject();
      condition.put("type", type);
    }
    if (!value.equals(Json.text(condition, "status"))) {
      condition.put("lastTransitionTime", now);
    }
    condition.put("status", value);
    condition.putNull("lastProbeTime");
    if (reason != null) {
      condition.put("reason", reason);
    } else {
      condition.remove("reason");
    }
    if (message != null) {
      condition.put("message", message);
    } else {
      condition.remove("message");
    }
  }
}
