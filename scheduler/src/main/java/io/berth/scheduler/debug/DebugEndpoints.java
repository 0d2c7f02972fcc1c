package io.berth.scheduler.debug;

import io.berth.component.EndpointRoutes;
import io.berth.component.EndpointRoutes.Response;
import io.berth.scheduler.config.SchedulerConfigException;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.explain.ExplainJson;
import io.berth.scheduler.explain.ExplainText;
import io.berth.scheduler.explain.Explainer;
import io.berth.scheduler.explain.Explanation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The scheduler's {@code /debug/*} paths, registered on the daemon's {@link EndpointRoutes} (so
 * both {@code --port} and the authorizing {@code --secure-port} serve them):
 * <ul>
 *   <li>{@code GET /debug/explain} — the pods with recorded attempts and their latest outcome;</li>
 *   <li>{@code GET /debug/explain/{namespace}/{pod}} — {@link ExplainJson} ({@code ?format=text}:
 *   {@link ExplainText}; {@code ?nodes=N|all} rows per node table);</li>
 *   <li>{@code GET /debug/snapshot} — {@link SnapshotReport};</li>
 *   <li>{@code POST /debug/simulate} — {@link Simulation} of a Pod, a List of pods, or YAML
 *   documents of pods with at most one {@code KubeSchedulerConfiguration}.</li>
 * </ul>
 * While leader election is on and this instance does not lead, {@link LeaderForwarding} sends the
 * requests on to the leader; should one reach these handlers all the same (leadership just lost),
 * it answers 503 with the Lease holder's identity (its queue and cache are not the ones scheduling). Thread-safe: the
 * parts are; handlers run on the endpoints' request threads.
 */
public final class DebugEndpoints {
  private static final Logger LOG = LoggerFactory.getLogger(DebugEndpoints.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final YAMLMapper YAML = YAMLMapper.builder().build();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  /** The JSON Content-Type. */
  public static final String JSON_TYPE = "application/json";

  /** Whether this instance leads, and who does. */
  public interface Leadership {
    /** Always leading (leader election off). */
    Leadership ALWAYS = new Leadership() {
      @Override
      public boolean leading() {
        return true;
      }

      @Override
      public Optional<String> leader() {
        return Optional.empty();
      }
    };

    /** Whether this instance runs the scheduling loop now. */
    boolean leading();

    /** The Lease's holderIdentity, if known. */
    Optional<String> leader();
  }

  private final Explainer explainer;
  private final SnapshotReport snapshot;
  private final Simulation simulation;
  private final Leadership leadership;

  public DebugEndpoints(Explainer explainer, SnapshotReport snapshot, Simulation simulation,
      Leadership leadership) {
    this.explainer = Objects.requireNonNull(explainer, "explainer");
    this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
    this.simulation = Objects.requireNonNull(simulation, "simulation");
    this.leadership = Objects.requireNonNull(leadership, "leadership");
  }

  /** Registers the paths on {@code routes}. */
  public void register(EndpointRoutes routes) {
    routes.get("/debug/explain", uri -> leaderOnly(this::listExplained));
    routes.getPrefix("/debug/explain/", uri -> leaderOnly(() -> explain(uri)));
    routes.get("/debug/snapshot", uri -> leaderOnly(() -> json(200, snapshot.render())));
    routes.post("/debug/simulate", (uri, body) -> leaderOnly(() -> simulate(uri, body)));
  }

  private Response leaderOnly(Supplier<Response> action) {
    if (!leadership.leading()) {
      ObjectNode n = F.objectNode();
      n.put("error", "this scheduler instance is not the leader; ask the leader");
      leadership.leader().ifPresent(l -> n.put("leader", l));
      return json(503, JSON.writeValueAsString(n));
    }
    try {
      return action.get();
    } catch (RuntimeException e) {
      LOG.warn("debug request failed", e);
      return error(500, "internal error: " + e.getMessage());
    }
  }

  private Response listExplained() {
    ArrayNode pods = F.arrayNode();
    for (String key : explainer.store().pods()) {
      int slash = key.indexOf('/');
      explainer.store().latest(key.substring(0, slash), key.substring(slash + 1)).ifPresent(a ->
          pods.addObject().put("pod", key).put("attempt", a.attempt())
              .put("outcome", a.outcome().name()).put("time", a.time().toString()));
    }
    ObjectNode root = F.objectNode();
    root.put("attemptsPerPod", explainer.store().attemptsPerPod());
    root.put("maxEntries", explainer.store().maxEntries());
    root.put("entries", explainer.store().entries());
    root.set("pods", pods);
    return json(200, JSON.writeValueAsString(root));
  }

  private Response explain(URI uri) {
    String rest = uri.getRawPath().substring("/debug/explain/".length());
    String[] parts = rest.split("/", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      return error(400, "expected /debug/explain/{namespace}/{pod}, got " + uri.getRawPath());
    }
    String ns = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
    String name = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
    Explanation e = explainer.explain(ns, name);
    if (e.isEmpty()) {
      return error(404, "no scheduling attempt of pod " + ns + "/" + name
          + " is recorded and it is not in the scheduling queue");
    }
    if ("text".equals(query(uri, "format"))) {
      String nodes = query(uri, "nodes");
      int max = ExplainText.DEFAULT_MAX_NODES;
      if ("all".equals(nodes)) {
        max = Integer.MAX_VALUE;
      } else if (nodes != null) {
        try {
          max = Integer.parseInt(nodes);
        } catch (NumberFormatException ex) {
          return error(400, "nodes: Invalid value: \"" + nodes + "\": a number or \"all\"");
        }
      }
      return Response.text(200, ExplainText.render(e, max));
    }
    return json(200, ExplainJson.render(e));
  }

  private Response simulate(URI uri, String body) {
    List<Pod> pods = new ArrayList<>();
    SchedulerConfiguration config = null;
    List<JsonNode> docs;
    try {
      docs = documents(body);
    } catch (JacksonException e) {
      return error(400, "request body: cannot parse: " + e.getOriginalMessage());
    }
    for (int i = 0; i < docs.size(); i++) {
      JsonNode doc = docs.get(i);
      String kind = doc.path("kind").asString("");
      switch (kind) {
        case "Pod" -> pods.add(SERIALIZATION.unmarshal(JSON.writeValueAsString(doc), Pod.class));
        case "List", "PodList" -> {
          int j = 0;
          for (JsonNode item : doc.path("items")) {
            if (!"Pod".equals(item.path("kind").asString("Pod"))) {
              return error(400, "documents[" + i + "].items[" + j + "].kind: Unsupported value: \""
                  + item.path("kind").asString() + "\": only Pods can be simulated");
            }
            pods.add(SERIALIZATION.unmarshal(JSON.writeValueAsString(item), Pod.class));
            j++;
          }
        }
        case "KubeSchedulerConfiguration" -> {
          if (config != null) {
            return error(400, "documents[" + i + "]: at most one KubeSchedulerConfiguration");
          }
          try {
            config = SchedulerConfigLoader.load(JSON.writeValueAsString(doc), simulation.registry());
          } catch (SchedulerConfigException e) {
            return error(400, "documents[" + i + "] (KubeSchedulerConfiguration): " + e.getMessage());
          }
        }
        default -> {
          return error(400, "documents[" + i + "].kind: Unsupported value: \"" + kind
              + "\": supported values: \"Pod\", \"List\", \"PodList\", \"KubeSchedulerConfiguration\"");
        }
      }
    }
    if (pods.isEmpty()) {
      return error(400, "request body: no Pod to simulate");
    }
    Simulation.Report report;
    try {
      report = simulation.simulate(pods, config);
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    }
    List<Simulation.Result> results = report.results();
    if ("text".equals(query(uri, "format"))) {
      StringBuilder out = new StringBuilder();
      for (String note : report.notes()) {
        out.append("note: ").append(note).append('\n');
      }
      for (Simulation.Result r : results) {
        int slash = r.pod().indexOf('/');
        out.append(ExplainText.render(new Explanation(r.pod().substring(0, slash),
            r.pod().substring(slash + 1), List.of(r.attempt()), Optional.empty())));
        out.append('\n');
      }
      return Response.text(200, out.toString());
    }
    ObjectNode root = F.objectNode();
    root.put("configuration", config == null ? "scheduler" : "request");
    ArrayNode notes = root.putArray("notes");
    report.notes().forEach(notes::add);
    ArrayNode arr = root.putArray("results");
    for (Simulation.Result r : results) {
      ObjectNode n = arr.addObject();
      n.put("pod", r.pod());
      r.attempt().selectedNode().ifPresentOrElse(s -> n.put("node", s), () -> n.putNull("node"));
      n.put("outcome", r.attempt().outcome().name());
      n.put("message", r.attempt().message());
      int slash = r.pod().indexOf('/');
      Explanation e = new Explanation(r.pod().substring(0, slash), r.pod().substring(slash + 1),
          List.of(r.attempt()), Optional.empty());
      ObjectNode tree = ExplainJson.tree(e);
      n.set("summary", tree.get("summary"));
      n.set("attempt", tree.get("latest"));
    }
    return json(200, JSON.writeValueAsString(root));
  }

  /** The body's documents: one JSON value, or YAML documents separated by "---". */
  private static List<JsonNode> documents(String body) {
    List<JsonNode> out = new ArrayList<>();
    if (body.strip().startsWith("{") || body.strip().startsWith("[")) {
      JsonNode n = JSON.readTree(body);
      if (n.isArray()) {
        n.forEach(out::add);
      } else {
        out.add(n);
      }
      return out;
    }
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(body)) {
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isMissingNode()) {
          out.add(n);
        }
      }
    }
    return out;
  }

  private static String query(URI uri, String name) {
    String q = uri.getRawQuery();
    if (q == null) {
      return null;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      if (k.equals(name)) {
        return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static Response json(int status, String body) {
    return new Response(status, JSON_TYPE, body);
  }

  private static Response error(int status, String message) {
    ObjectNode n = F.objectNode();
    n.put("error", message);
    return json(status, JSON.writeValueAsString(n));
  }
}
