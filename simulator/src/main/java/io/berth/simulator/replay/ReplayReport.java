package io.berth.simulator.replay;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Renders the results of one replay (one {@link ReplayRun.Result} per configuration, in command-line
 * order) as text for a terminal or as JSON for scripts. Placements are compared with the recording
 * (the node the recorded scheduler bound each pod to) and, from the second configuration on, with
 * the first configuration's. Pods are listed in the order the recording first showed them, so the
 * output of a deterministic replay is byte-for-byte the same every time. Stateless.
 */
final class ReplayReport {
  private static final String PENDING = "<pending>";

  private ReplayReport() {}

  static String json(List<ReplayRun.Result> results) {
    List<Object> configs = new ArrayList<>();
    for (ReplayRun.Result r : results) {
      configs.add(asMap(r, results.get(0)));
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("configs", configs);
    return new KubernetesSerialization().asJson(root);
  }

  private static Map<String, Object> asMap(ReplayRun.Result r, ReplayRun.Result first) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("config", r.config());
    m.put("events", r.events());
    m.put("schedulingCycles", r.cycles());
    m.put("placed", r.pods().stream().filter(p -> p.node().isPresent()).count());
    List<Object> placements = new ArrayList<>();
    List<Object> differRecorded = new ArrayList<>();
    for (ReplayRun.PodOutcome p : r.pods()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("pod", p.key());
      row.put("recorded", p.recordedNode().orElse(null));
      row.put("replayed", p.node().orElse(null));
      placements.add(row);
      if (!p.recordedNode().equals(p.node())) {
        differRecorded.add(row);
      }
    }
    m.put("placements", placements);
    m.put("differsFromRecording", differRecorded);
    if (r != first) {
      List<Object> differFirst = new ArrayList<>();
      for (Diff d : diff(first, r)) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("pod", d.pod());
        row.put("first", d.a().orElse(null));
        row.put("replayed", d.b().orElse(null));
        differFirst.add(row);
      }
      m.put("differsFromFirst", differFirst);
    }
    List<Object> pending = new ArrayList<>();
    for (ReplayRun.PodOutcome p : r.pending()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("pod", p.key());
      row.put("reason", p.pendingReason().orElseThrow());
      pending.add(row);
    }
    m.put("pending", pending);
    Map<String, Object> latency = new LinkedHashMap<>();
    latency.put("count", r.latency().count());
    latency.put("p50", r.latency().p50());
    latency.put("p90", r.latency().p90());
    latency.put("p99", r.latency().p99());
    latency.put("max", r.latency().max());
    m.put("latencyMillis", latency);
    Packing.Report pk = r.packing();
    Map<String, Object> packing = new LinkedHashMap<>();
    packing.put("nodes", pk.nodes());
    packing.put("nodesInUse", pk.nodesInUse());
    Map<String, Object> alloc = new LinkedHashMap<>();
    pk.allocation().forEach((res, a) -> {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("requested", a.requested());
      x.put("allocatable", a.allocatable());
      x.put("ratio", round(a.ratio()));
      alloc.put(res, x);
    });
    packing.put("allocation", alloc);
    Packing.Fragmentation f = pk.fragmentation();
    Map<String, Object> frag = new LinkedHashMap<>();
    frag.put("figure", round(f.figure()));
    frag.put("basis", f.basis());
    frag.put("reference", f.reference());
    frag.put("unfitNodes", f.unfitNodes());
    Map<String, Object> shares = new LinkedHashMap<>();
    f.shares().forEach((res, v) -> shares.put(res, round(v)));
    frag.put("shares", shares);
    packing.put("fragmentation", frag);
    m.put("packing", packing);
    return m;
  }

  static String text(List<ReplayRun.Result> results) {
    StringBuilder out = new StringBuilder();
    ReplayRun.Result first = results.get(0);
    for (ReplayRun.Result r : results) {
      long placed = r.pods().stream().filter(p -> p.node().isPresent()).count();
      List<ReplayRun.PodOutcome> differ = r.pods().stream()
          .filter(p -> !p.recordedNode().equals(p.node())).toList();
      out.append("== ").append(r.config()).append(" (").append(r.events()).append(" events, ")
          .append(r.cycles()).append(" scheduling cycles)\n");
      out.append("placements: ").append(placed).append(" placed, ").append(r.pending().size())
          .append(" pending; ").append(differ.size()).append(" differ from the recording\n");
      for (ReplayRun.PodOutcome p : differ) {
        out.append("  ").append(p.key()).append(": ").append(p.recordedNode().orElse(PENDING))
            .append(" (recorded) vs ").append(p.node().orElse(PENDING)).append('\n');
      }
      if (r != first) {
        List<Diff> diffs = diff(first, r);
        out.append("vs ").append(first.config()).append(": ").append(diffs.size())
            .append(" placements differ\n");
        for (Diff d : diffs) {
          out.append("  ").append(d.pod()).append(": ").append(d.a().orElse(PENDING)).append(" vs ")
              .append(d.b().orElse(PENDING)).append('\n');
        }
      }
      out.append("pending: ").append(r.pending().size()).append('\n');
      for (ReplayRun.PodOutcome p : r.pending()) {
        out.append("  ").append(p.key()).append(": ").append(p.pendingReason().orElseThrow())
            .append('\n');
      }
      Latency l = r.latency();
      out.append(String.format(Locale.ROOT, "latency (simulated ms, arrival to bound, %d pods):"
          + " p50 %d, p90 %d, p99 %d, max %d%n", l.count(), l.p50(), l.p90(), l.p99(), l.max()));
      Packing.Report pk = r.packing();
      out.append("packing: ").append(pk.nodesInUse()).append(" of ").append(pk.nodes())
          .append(" nodes in use\n");
      pk.allocation().forEach((res, a) -> out.append(String.format(Locale.ROOT,
          "  %s: %s of %s allocated (%.1f%%)%n", res, amount(res, a.requested()),
          amount(res, a.allocatable()), a.ratio() * 100)));
      Packing.Fragmentation f = pk.fragmentation();
      out.append(String.format(Locale.ROOT, "fragmentation: %.1f%%", f.figure() * 100));
      if (f.reference().isEmpty()) {
        out.append(" (no reference pod: nothing pending or placed)\n");
      } else {
        List<String> ref = new ArrayList<>();
        f.reference().forEach((res, v) -> ref.add(res + " " + amount(res, v)));
        List<String> shares = new ArrayList<>();
        f.shares().forEach((res, v) -> shares.add(String.format(Locale.ROOT, "%s %.1f%%", res,
            v * 100)));
        out.append(" of free capacity is on the ").append(f.unfitNodes())
            .append(" nodes that cannot fit the median ").append(f.basis()).append(" pod (")
            .append(String.join(", ", ref)).append("): ").append(String.join(", ", shares))
            .append('\n');
      }
      out.append('\n');
    }
    return out.toString();
  }

  private record Diff(String pod, Optional<String> a, Optional<String> b) {}

  /** Pods both runs placed or left pending whose placement differs, in {@code b}'s order. */
  private static List<Diff> diff(ReplayRun.Result a, ReplayRun.Result b) {
    Map<String, ReplayRun.PodOutcome> byUid = new HashMap<>();
    a.pods().forEach(p -> byUid.put(p.uid(), p));
    List<Diff> out = new ArrayList<>();
    for (ReplayRun.PodOutcome p : b.pods()) {
      ReplayRun.PodOutcome q = byUid.get(p.uid());
      if (q != null && !q.node().equals(p.node())) {
        out.add(new Diff(p.key(), q.node(), p.node()));
      }
    }
    return out;
  }

  private static double round(double v) {
    return Math.round(v * 10_000) / 10_000.0;
  }

  /** cpu as millicores, byte amounts in binary units, the rest as numbers. */
  static String amount(String resource, long v) {
    if ("cpu".equals(resource)) {
      return v + "m";
    }
    if ("memory".equals(resource) || "ephemeral-storage".equals(resource)
        || resource.startsWith("hugepages-")) {
      String[] units = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
      double x = v;
      int u = 0;
      while (x >= 1024 && u < units.length - 1) {
        x /= 1024;
        u++;
      }
      return x == Math.rint(x) ? String.format(Locale.ROOT, "%d%s", (long) x, units[u])
          : String.format(Locale.ROOT, "%.1f%s", x, units[u]);
    }
    return Long.toString(v);
  }
}
