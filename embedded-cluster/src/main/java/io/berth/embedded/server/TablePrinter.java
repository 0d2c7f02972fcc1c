package io.berth.embedded.server;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side printing ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}), so that {@code kubectl get}
 * shows the same columns as against kube-apiserver: pods, nodes, deployments, replicasets, events and namespaces
 * have upstream's columns (wide ones at priority 1); other kinds get Name and Created At. Stateless and
 * thread-safe.
 */
final class TablePrinter {

  static final String CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

  private record Column(String name, String type, int priority, Function<JsonNode, Object> cell) {
  }

  private final Clock clock;

  TablePrinter(Clock clock) {
    this.clock = clock;
  }

  /** Whether an Accept header asks for tables. */
  static boolean wantsTable(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  /** A Table of {@code items}, with list metadata. */
  byte[] table(ResourceType type, long resourceVersion, String continueToken, List<StoredObject> items,
      String includeObject) {
    ObjectNode table = header(type, true);
    ObjectNode meta = table.putObject("metadata");
    meta.put("resourceVersion", Long.toString(resourceVersion));
    if (continueToken != null) {
      meta.put("continue", continueToken);
    }
    ArrayNode rows = table.putArray("rows");
    for (StoredObject o : items) {
      rows.add(row(type, o.tree(), includeObject));
    }
    return Json.bytes(table);
  }

  /** A Table holding one object (a get, or one watch event). */
  byte[] single(ResourceType type, JsonNode object, String includeObject, boolean withColumns) {
    ObjectNode table = header(type, withColumns);
    ObjectNode meta = table.putObject("metadata");
    String rv = Json.text(object, "metadata", "resourceVersion");
    if (rv != null) {
      meta.put("resourceVersion", rv);
    }
    table.putArray("rows").add(row(type, object, includeObject));
    return Json.bytes(table);
  }

  private ObjectNode header(ResourceType type, boolean withColumns) {
    ObjectNode table = Json.object();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    ArrayNode defs = table.putArray("columnDefinitions");
    if (withColumns) {
      for (Column c : columns(type)) {
        ObjectNode d = defs.addObject();
        d.put("name", c.name());
        d.put("type", c.type());
        d.put("format", c.name().equals("Name") ? "name" : "");
        d.put("description", c.name());
        d.put("priority", c.priority());
      }
    }
    return table;
  }

  private ObjectNode row(ResourceType type, JsonNode object, String includeObject) {
    ObjectNode row = Json.object();
    ArrayNode cells = row.putArray("cells");
    for (Column c : columns(type)) {
      Object v = c.cell().apply(object);
      if (v instanceof Number n) {
        cells.add(n.longValue());
      } else {
        cells.add(v == null ? "<none>" : v.toString());
      }
    }
    if ("Object".equals(includeObject)) {
      row.set("object", object);
    } else if (!"None".equals(includeObject)) {
      ObjectNode partial = row.putObject("object");
      partial.put("kind", "PartialObjectMetadata");
      partial.put("apiVersion", "meta.k8s.io/v1");
      JsonNode meta = object.get("metadata");
      partial.set("metadata", meta == null ? Json.object() : meta);
    }
    return row;
  }

  private List<Column> columns(ResourceType type) {
    List<Column> c = new ArrayList<>();
    c.add(new Column("Name", "string", 0, o -> Json.text(o, "metadata", "name")));
    if (type == ResourceTypes.PODS) {
      c.add(new Column("Ready", "string", 0, TablePrinter::podReady));
      c.add(new Column("Status", "string", 0, TablePrinter::podStatus));
      c.add(new Column("Restarts", "string", 0, TablePrinter::podRestarts));
      c.add(new Column("Age", "string", 0, this::age));
      c.add(new Column("IP", "string", 1, o -> Json.text(o, "status", "podIP")));
      c.add(new Column("Node", "string", 1, o -> Json.text(o, "spec", "nodeName")));
      c.add(new Column("Nominated Node", "string", 1, o -> Json.text(o, "status", "nominatedNodeName")));
      c.add(new Column("Readiness Gates", "string", 1, o -> null));
    } else if (type == ResourceTypes.NODES) {
      c.add(new Column("Status", "string", 0, TablePrinter::nodeStatus));
      c.add(new Column("Roles", "string", 0, TablePrinter::nodeRoles));
      c.add(new Column("Age", "string", 0, this::age));
      c.add(new Column("Version", "string", 0, o -> Json.text(o, "status", "nodeInfo", "kubeletVersion")));
      c.add(new Column("Internal-IP", "string", 1, o -> address(o, "InternalIP")));
      c.add(new Column("External-IP", "string", 1, o -> address(o, "ExternalIP")));
      c.add(new Column("OS-Image", "string", 1, o -> Json.text(o, "status", "nodeInfo", "osImage")));
      c.add(new Column("Kernel-Version", "string", 1, o -> Json.text(o, "status", "nodeInfo", "kernelVersion")));
      c.add(new Column("Container-Runtime", "string", 1,
          o -> Json.text(o, "status", "nodeInfo", "containerRuntimeVersion")));
    } else if (type == ResourceTypes.DEPLOYMENTS) {
      c.add(new Column("Ready", "string", 0, o -> o.path("status").path("readyReplicas").asInt(0) + "/"
          + o.path("spec").path("replicas").asInt(0)));
      c.add(new Column("Up-to-date", "integer", 0, o -> o.path("status").path("updatedReplicas").asInt(0)));
      c.add(new Column("Available", "integer", 0, o -> o.path("status").path("availableReplicas").asInt(0)));
      c.add(new Column("Age", "string", 0, this::age));
      addWorkloadWide(c);
    } else if (type == ResourceTypes.REPLICA_SETS) {
      c.add(new Column("Desired", "integer", 0, o -> o.path("spec").path("replicas").asInt(0)));
      c.add(new Column("Current", "integer", 0, o -> o.path("status").path("replicas").asInt(0)));
      c.add(new Column("Ready", "integer", 0, o -> o.path("status").path("readyReplicas").asInt(0)));
      c.add(new Column("Age", "string", 0, this::age));
      addWorkloadWide(c);
    } else if (type == ResourceTypes.EVENTS) {
      c.clear();
      c.add(new Column("Last Seen", "string", 0, this::eventLastSeen));
      c.add(new Column("Type", "string", 0, o -> Json.text(o, "type")));
      c.add(new Column("Reason", "string", 0, o -> Json.text(o, "reason")));
      c.add(new Column("Object", "string", 0, o -> lower(Json.text(o, "involvedObject", "kind")) + "/"
          + Json.text(o, "involvedObject", "name")));
      c.add(new Column("Message", "string", 0, o -> Json.text(o, "message")));
      c.add(new Column("Source", "string", 1, o -> Json.text(o, "source", "component")));
      c.add(new Column("Count", "integer", 1, o -> o.path("count").asInt(1)));
      c.add(new Column("Name", "string", 1, o -> Json.text(o, "metadata", "name")));
    } else if (type == ResourceTypes.NAMESPACES) {
      c.add(new Column("Status", "string", 0, o -> Json.text(o, "status", "phase")));
      c.add(new Column("Age", "string", 0, this::age));
    } else {
      c.add(new Column("Created At", "date", 0, o -> Json.text(o, "metadata", "creationTimestamp")));
    }
    return c;
  }

  private static void addWorkloadWide(List<Column> c) {
    c.add(new Column("Containers", "string", 1, o -> containerField(o, "name")));
    c.add(new Column("Images", "string", 1, o -> containerField(o, "image")));
    c.add(new Column("Selector", "string", 1, o -> Json.stringMap(o, "spec", "selector", "matchLabels")
        .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","))));
  }

  private static String containerField(JsonNode o, String field) {
    JsonNode containers = Json.at(o, "spec", "template", "spec", "containers");
    if (containers == null) {
      return null;
    }
    List<String> values = new ArrayList<>();
    containers.values().forEach(c -> values.add(Json.text(c, field)));
    return String.join(",", values);
  }

  private static String lower(String s) {
    return s == null ? "" : s.toLowerCase(java.util.Locale.ROOT);
  }

  private String age(JsonNode o) {
    return since(Json.text(o, "metadata", "creationTimestamp"));
  }

  private String since(String timestamp) {
    if (timestamp == null) {
      return "<unknown>";
    }
    try {
      return HumanAge.format(Duration.between(Instant.parse(timestamp), clock.instant()));
    } catch (DateTimeParseException e) {
      return "<unknown>";
    }
  }

  private String eventLastSeen(JsonNode o) {
    String last = Json.text(o, "lastTimestamp");
    if (last == null) {
      last = Json.text(o, "eventTime");
    }
    if (last == null) {
      last = Json.text(o, "metadata", "creationTimestamp");
    }
    return since(last);
  }

  private static String podReady(JsonNode pod) {
    JsonNode containers = Json.at(pod, "spec", "containers");
    int total = containers == null ? 0 : containers.size();
    int ready = 0;
    JsonNode statuses = Json.at(pod, "status", "containerStatuses");
    if (statuses != null) {
      for (JsonNode s : statuses.values()) {
        if (s.path("ready").asBoolean(false)) {
          ready++;
        }
      }
    }
    return ready + "/" + total;
  }

  private static String podStatus(JsonNode pod) {
    if (Json.at(pod, "metadata", "deletionTimestamp") != null) {
      return "Terminating";
    }
    String reason = Json.text(pod, "status", "reason");
    if (reason != null) {
      return reason;
    }
    JsonNode statuses = Json.at(pod, "status", "containerStatuses");
    if (statuses != null) {
      for (JsonNode s : statuses.values()) {
        String waiting = Json.text(s, "state", "waiting", "reason");
        if (waiting != null) {
          return waiting;
        }
      }
    }
    String phase = Json.text(pod, "status", "phase");
    return phase == null ? "Pending" : phase;
  }

  private static Object podRestarts(JsonNode pod) {
    int restarts = 0;
    JsonNode statuses = Json.at(pod, "status", "containerStatuses");
    if (statuses != null) {
      for (JsonNode s : statuses.values()) {
        restarts += s.path("restartCount").asInt(0);
      }
    }
    return Integer.toString(restarts);
  }

  private static String nodeStatus(JsonNode node) {
    String ready = "Unknown";
    JsonNode conditions = Json.at(node, "status", "conditions");
    if (conditions != null) {
      for (JsonNode c : conditions.values()) {
        if ("Ready".equals(Json.text(c, "type"))) {
          ready = "True".equals(Json.text(c, "status")) ? "Ready" : "NotReady";
        }
      }
    }
    if (node.path("spec").path("unschedulable").asBoolean(false)) {
      return ready + ",SchedulingDisabled";
    }
    return ready;
  }

  private static String nodeRoles(JsonNode node) {
    List<String> roles = new ArrayList<>();
    for (Map.Entry<String, String> e : Json.stringMap(node, "metadata", "labels").entrySet()) {
      if (e.getKey().startsWith("node-role.kubernetes.io/")) {
        roles.add(e.getKey().substring("node-role.kubernetes.io/".length()));
      } else if (e.getKey().equals("kubernetes.io/role")) {
        roles.add(e.getValue());
      }
    }
    return roles.isEmpty() ? "<none>" : String.join(",", roles);
  }

  private static String address(JsonNode node, String kind) {
    JsonNode addresses = Json.at(node, "status", "addresses");
    if (addresses != null) {
      for (JsonNode a : addresses.values()) {
        if (kind.equals(Json.text(a, "type"))) {
          return Json.text(a, "address");
        }
      }
    }
    return null;
  }
}
