package io.berth.scheduler.explain;

import io.berth.scheduler.explain.Attempt.PluginVerdict;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import io.berth.scheduler.explain.ScoreTable.NodeScores;
import io.berth.scheduler.explain.ScoreTable.PluginScore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Renders an explanation as plain-text tables for a terminal ({@code ?format=text}): the outcome
 * and message, the queue, the summary (rejections per plugin and reason, the nodes nearest to
 * fitting and what they lack), the per-plugin verdicts of each extension point that ran, the
 * per-node Filter table and the Score table (cells {@code raw>normalized*weight=weighted}). The
 * node tables list at most {@code maxNodes} rows (feasible nodes first) and say how many were
 * left out, so that a 5,000-node cluster still reads on one screen. Stateless and thread-safe.
 */
public final class ExplainText {
  /** Node rows shown by default. */
  public static final int DEFAULT_MAX_NODES = 20;

  private ExplainText() {}

  /** The explanation with at most {@link #DEFAULT_MAX_NODES} node rows per table. */
  public static String render(Explanation e) {
    return render(e, DEFAULT_MAX_NODES);
  }

  /** The explanation with at most {@code maxNodes} node rows per table. */
  public static String render(Explanation e, int maxNodes) {
    StringBuilder out = new StringBuilder();
    out.append("Pod ").append(e.namespace()).append('/').append(e.name()).append('\n');
    e.queue().ifPresent(q -> {
      out.append("Queue:    ").append(q.queue()).append(" (").append(q.reason()).append(")");
      out.append(", attempts ").append(q.attempts());
      q.backoffExpiry().ifPresent(t -> out.append(", backoff until ").append(t));
      out.append('\n');
    });
    if (e.latest().isEmpty()) {
      out.append("No scheduling attempt recorded.\n");
      return out.toString();
    }
    Attempt a = e.latest().get();
    out.append("Attempt:  ").append(a.attempt()).append(" at ").append(a.time())
        .append(" (profile ").append(a.profile()).append("): ").append(a.outcome()).append('\n');
    a.selectedNode().ifPresent(n -> out.append("Node:     ").append(n).append('\n'));
    a.nominatedNode().ifPresent(n -> out.append("Nominated: ").append(n).append('\n'));
    if (!a.message().isEmpty()) {
      out.append("Message:  ").append(a.message()).append('\n');
    }
    Summary s = Summary.of(a.filter());
    if (!s.rejections().isEmpty()) {
      out.append("\nRejections (").append(s.totalNodes() - s.feasible()).append(" of ")
          .append(s.totalNodes()).append(" nodes):\n");
      List<String[]> rows = new ArrayList<>();
      for (Map.Entry<String, Integer> r : s.rejections().entrySet()) {
        rows.add(new String[] {Integer.toString(r.getValue()), r.getKey()});
      }
      table(out, new String[] {"NODES", "PLUGIN: REASON"}, rows);
      out.append("\nNearest to fitting:\n");
      rows = new ArrayList<>();
      for (NodeVerdict v : s.nearest()) {
        rows.add(new String[] {v.node(), v.plugin(), v.lacks().orElse(v.reason())});
      }
      table(out, new String[] {"NODE", "PLUGIN", "LACKS"}, rows);
    }
    verdicts(out, "PreFilter", a.preFilter());
    FilterTable f = a.filter();
    if (f.totalNodes() > 0) {
      out.append("\nFilter (").append(f.feasible().size()).append(" feasible, ")
          .append(f.rejected().size()).append(" rejected");
      if (f.notEvaluated() > 0) {
        out.append(", ").append(f.notEvaluated()).append(" not evaluated");
      }
      out.append(", of ").append(f.totalNodes()).append("; plugins ")
          .append(String.join(", ", f.plugins())).append("):\n");
      List<String[]> rows = new ArrayList<>();
      List<NodeVerdict> nodes = f.nodes();
      for (NodeVerdict v : nodes.subList(0, Math.min(maxNodes, nodes.size()))) {
        rows.add(new String[] {v.node(), v.passed() ? "passed" : "rejected", v.plugin(),
            v.lacks().map(l -> v.reason() + " (" + l + ")").orElse(v.passed() ? "" : v.reason())});
      }
      f.otherNodes().ifPresent(v -> rows.add(new String[] {"(all others)", "rejected", v.plugin(),
          v.reason()}));
      table(out, new String[] {"NODE", "RESULT", "PLUGIN", "REASON"}, rows);
      more(out, nodes.size() - rows.size() + (f.otherNodes().isPresent() ? 1 : 0));
    }
    verdicts(out, "PreScore", a.preScore());
    ScoreTable sc = a.scores();
    if (!sc.isEmpty()) {
      out.append("\nScores (raw>normalized*weight=weighted):\n");
      List<String> header = new ArrayList<>();
      header.add("NODE");
      header.addAll(sc.plugins());
      header.add("TOTAL");
      List<NodeScores> all = new ArrayList<>(sc.rows());
      all.sort((x, y) -> Long.compare(y.total(), x.total()));
      List<String[]> rows = new ArrayList<>();
      for (NodeScores row : all.subList(0, Math.min(maxNodes, all.size()))) {
        String[] cells = new String[header.size()];
        cells[0] = row.node();
        int i = 1;
        for (PluginScore c : row.plugins()) {
          cells[i++] = c.raw() + ">" + c.normalized() + "*" + c.weight() + "=" + c.weighted();
        }
        cells[i] = Long.toString(row.total());
        rows.add(cells);
      }
      table(out, header.toArray(String[]::new), rows);
      more(out, all.size() - rows.size());
    }
    verdicts(out, "PostFilter", a.postFilter());
    a.preemption().ifPresent(p -> {
      out.append("\nPreemption: ").append(p.candidates().size()).append(" candidate node(s)");
      p.nominatedNode().ifPresent(n -> out.append(", nominated ").append(n));
      if (!p.victims().isEmpty()) {
        out.append(", victims ").append(String.join(", ", p.victims()));
      }
      out.append('\n');
    });
    verdicts(out, "Reserve", a.reserve());
    verdicts(out, "Permit", a.permit());
    verdicts(out, "PreBind", a.preBind());
    verdicts(out, "Bind", a.bind());
    if (e.attempts().size() > 1) {
      out.append("\nEarlier attempts:\n");
      List<String[]> rows = new ArrayList<>();
      for (Attempt old : e.attempts().subList(0, e.attempts().size() - 1)) {
        rows.add(new String[] {Integer.toString(old.attempt()), old.time().toString(),
            old.outcome().name(), old.selectedNode().orElse(""), old.message()});
      }
      table(out, new String[] {"ATTEMPT", "TIME", "OUTCOME", "NODE", "MESSAGE"}, rows);
    }
    return out.toString();
  }

  private static void verdicts(StringBuilder out, String point, List<PluginVerdict> list) {
    if (list.isEmpty()) {
      return;
    }
    out.append('\n').append(point).append(":\n");
    List<String[]> rows = new ArrayList<>();
    for (PluginVerdict v : list) {
      String msg = v.message();
      if (v.nodeNames().isPresent()) {
        msg = (msg.isEmpty() ? "" : msg + "; ") + "nodes " + String.join(", ", v.nodeNames().get());
      }
      rows.add(new String[] {v.plugin(), v.code(), msg});
    }
    table(out, new String[] {"PLUGIN", "RESULT", "MESSAGE"}, rows);
  }

  private static void more(StringBuilder out, int left) {
    if (left > 0) {
      out.append("  ... ").append(left).append(" more node(s) (?nodes=all)\n");
    }
  }

  /** Left-aligned columns two spaces apart; the last column is not padded. */
  static void table(StringBuilder out, String[] header, List<String[]> rows) {
    int[] width = new int[header.length];
    for (int i = 0; i < header.length; i++) {
      width[i] = header[i].length();
    }
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i] == null ? 0 : r[i].length());
      }
    }
    line(out, header, width);
    for (String[] r : rows) {
      line(out, r, width);
    }
  }

  private static void line(StringBuilder out, String[] cells, int[] width) {
    StringBuilder l = new StringBuilder("  ");
    for (int i = 0; i < cells.length; i++) {
      String c = cells[i] == null ? "" : cells[i];
      l.append(c);
      if (i < cells.length - 1) {
        l.append(" ".repeat(width[i] - c.length() + 2));
      }
    }
    out.append(l.toString().stripTrailing()).append('\n');
  }
}
