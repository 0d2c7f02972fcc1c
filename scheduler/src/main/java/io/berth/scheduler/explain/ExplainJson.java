package io.berth.scheduler.explain;

import io.berth.scheduler.explain.Attempt.PluginVerdict;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import io.berth.scheduler.explain.ScoreTable.NodeScores;
import io.berth.scheduler.explain.ScoreTable.PluginScore;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Renders explanations as JSON, the default of {@code GET /debug/explain/{namespace}/{pod}}: the
 * pod, its queue state, the latest attempt's summary, the latest attempt in full (every node's
 * Filter verdict, every scored node's per-plugin raw, normalized and weighted scores and total)
 * and the earlier attempts in brief. Field names are part of the API (the simulator's dashboard
 * reads them); absent optionals are left out. Stateless and thread-safe.
 */
public final class ExplainJson {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private ExplainJson() {}

  /** The explanation as a JSON document. */
  public static String render(Explanation e) {
    return MAPPER.writeValueAsString(tree(e));
  }

  /** The explanation as a Jackson tree (for embedding in larger documents). */
  public static ObjectNode tree(Explanation e) {
    ObjectNode root = F.objectNode();
    root.put("namespace", e.namespace());
    root.put("name", e.name());
    e.queue().ifPresent(q -> root.set("queue", queue(q)));
    e.summary().ifPresent(s -> root.set("summary", summary(s)));
    e.latest().ifPresent(a -> root.set("latest", attempt(a)));
    ArrayNode history = root.putArray("history");
    List<Attempt> all = e.attempts();
    for (int i = 0; i < all.size() - 1; i++) {
      history.add(brief(all.get(i)));
    }
    return root;
  }

  static ObjectNode queue(QueueState q) {
    ObjectNode n = F.objectNode();
    n.put("queue", q.queue());
    n.put("reason", q.reason());
    ArrayNode plugins = n.putArray("plugins");
    q.plugins().forEach(plugins::add);
    n.put("attempts", q.attempts());
    q.backoffExpiry().ifPresent(t -> n.put("backoffExpiry", t.toString()));
    return n;
  }

  static ObjectNode summary(Summary s) {
    ObjectNode n = F.objectNode();
    n.put("totalNodes", s.totalNodes());
    n.put("feasibleNodes", s.feasible());
    ObjectNode rej = n.putObject("rejections");
    s.rejections().forEach(rej::put);
    ArrayNode nearest = n.putArray("nearest");
    for (NodeVerdict v : s.nearest()) {
      nearest.add(verdict(v).put("node", v.node()));
    }
    return n;
  }

  /** One attempt without the per-node tables. */
  public static ObjectNode brief(Attempt a) {
    ObjectNode n = F.objectNode();
    n.put("attempt", a.attempt());
    n.put("time", a.time().toString());
    n.put("profile", a.profile());
    n.put("outcome", a.outcome().name());
    n.put("message", a.message());
    a.selectedNode().ifPresent(s -> n.put("selectedNode", s));
    a.nominatedNode().ifPresent(s -> n.put("nominatedNode", s));
    return n;
  }

  /** One attempt in full. */
  public static ObjectNode attempt(Attempt a) {
    ObjectNode n = brief(a);
    n.set("preFilter", verdicts(a.preFilter()));
    FilterTable f = a.filter();
    ObjectNode filter = n.putObject("filter");
    ArrayNode plugins = filter.putArray("plugins");
    f.plugins().forEach(plugins::add);
    filter.put("totalNodes", f.totalNodes());
    filter.put("feasibleNodes", f.feasible().size());
    filter.put("rejectedNodes", f.rejected().size());
    filter.put("notEvaluatedNodes", f.notEvaluated());
    ObjectNode nodes = filter.putObject("nodes");
    for (NodeVerdict v : f.nodes()) {
      nodes.set(v.node(), verdict(v));
    }
    f.otherNodes().ifPresent(v -> filter.set("otherNodes", verdict(v)));
    n.set("preScore", verdicts(a.preScore()));
    ObjectNode scores = n.putObject("scores");
    ObjectNode weights = scores.putObject("weights");
    for (String p : a.scores().plugins()) {
      weights.put(p, a.scores().weight(p).orElse(0));
    }
    ObjectNode byNode = scores.putObject("nodes");
    for (NodeScores row : a.scores().rows()) {
      ObjectNode r = byNode.putObject(row.node());
      ObjectNode cells = r.putObject("plugins");
      for (PluginScore c : row.plugins()) {
        ObjectNode cell = cells.putObject(c.plugin());
        cell.put("raw", c.raw());
        cell.put("normalized", c.normalized());
        cell.put("weight", c.weight());
        cell.put("weighted", c.weighted());
      }
      r.put("total", row.total());
    }
    n.set("postFilter", verdicts(a.postFilter()));
    a.preemption().ifPresent(p -> {
      ObjectNode pre = n.putObject("preemption");
      ArrayNode cands = pre.putArray("candidates");
      for (Attempt.Candidate c : p.candidates()) {
        cands.addObject().put("node", c.node()).put("victims", c.victims())
            .put("pdbViolations", c.pdbViolations());
      }
      p.nominatedNode().ifPresent(s -> pre.put("nominatedNode", s));
      ArrayNode victims = pre.putArray("victims");
      p.victims().forEach(victims::add);
    });
    n.set("reserve", verdicts(a.reserve()));
    n.set("permit", verdicts(a.permit()));
    n.set("preBind", verdicts(a.preBind()));
    n.set("bind", verdicts(a.bind()));
    return n;
  }

  private static ObjectNode verdict(NodeVerdict v) {
    ObjectNode n = F.objectNode();
    n.put("passed", v.passed());
    if (!v.passed()) {
      n.put("plugin", v.plugin());
      n.put("code", v.code());
    }
    n.put("reason", v.reason());
    v.lacks().ifPresent(l -> n.put("lacks", l));
    return n;
  }

  private static ArrayNode verdicts(List<PluginVerdict> list) {
    ArrayNode out = F.arrayNode();
    for (PluginVerdict v : list) {
      ObjectNode n = out.addObject();
      n.put("plugin", v.plugin());
      n.put("code", v.code());
      if (!v.message().isEmpty()) {
        n.put("message", v.message());
      }
      v.nodeNames().ifPresent(names -> {
        ArrayNode a = n.putArray("nodeNames");
        names.forEach(a::add);
      });
    }
    return out;
  }

  /** A JSON string for a map of strings (used by the result annotations). */
  static String stringMap(Map<String, ?> map) {
    return MAPPER.writeValueAsString(map);
  }
}
