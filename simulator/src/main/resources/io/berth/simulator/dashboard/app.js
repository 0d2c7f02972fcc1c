// The Berth simulator dashboard: polls /api/cluster, follows /api/events/stream (server-sent events), and shows a
// pending pod's explanation from /api/pods/{ns}/{name}/explain. No framework; every value goes in as text.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return e;
}

function cpu(m) { return m >= 1000 && m % 100 === 0 ? (m / 1000) + "" : m + "m"; }
function mem(b) {
  const units = [["Gi", 1 << 30], ["Mi", 1 << 20], ["Ki", 1 << 10]];
  for (const [u, n] of units) if (b >= n) return (Math.round(b / n * 10) / 10) + u;
  return b + "";
}
function pct(used, total) { return total > 0 ? Math.min(100, Math.round(used * 100 / total)) : 0; }

function bar(kind, used, total, fmt) {
  const p = pct(used, total);
  return el("div", {},
    el("div", { class: "bar " + kind + (p >= 100 ? " full" : ""), title: kind + " " + p + "%" },
      el("div", { style: "width:" + p + "%" })),
    el("div", { class: "barlabel" }, kind + " " + fmt(used) + " / " + fmt(total) + " (" + p + "%)"));
}

function renderNode(n) {
  const flags = [];
  if (!n.ready) flags.push("NotReady");
  if (n.unschedulable) flags.push("SchedulingDisabled");
  for (const t of n.taints) if (!t.startsWith("node.kubernetes.io/unschedulable")) flags.push(t);
  return el("div", { class: "node" + (n.unschedulable ? " cordoned" : "") + (n.ready ? "" : " notready"),
      "data-node": n.name },
    el("div", { class: "title" }, el("span", {}, n.name), el("span", { class: "muted" }, n.podCount + " pods")),
    flags.length ? el("div", { class: "flags" }, flags.join(", ")) : null,
    bar("cpu", n.cpu.requested, n.cpu.allocatable, cpu),
    bar("memory", n.memory.requested, n.memory.allocatable, mem),
    el("div", { class: "pods" }, n.pods.map((p) => el("span", {
      class: "pod " + p.phase + (p.terminating ? " terminating" : ""), "data-pod": p.namespace + "/" + p.name,
      title: p.namespace + "/" + p.name + " " + p.phase + " cpu " + cpu(p.cpu) + " memory " + mem(p.memory)
        + (p.priority ? " priority " + p.priority : "") }, p.name))));
}

function renderZones(zones) {
  const root = $("zones");
  root.replaceChildren(...zones.map((z) => el("div", { class: "zone", "data-zone": z.name },
    el("h3", {}, z.name + " (" + z.nodes.length + " node" + (z.nodes.length === 1 ? "" : "s") + ")"),
    el("div", { class: "nodes" }, z.nodes.map(renderNode)))));
  if (!zones.length) root.replaceChildren(el("p", { class: "muted" }, "No nodes yet."));
}

function renderPending(pending) {
  const body = $("pending").querySelector("tbody");
  body.replaceChildren(...pending.map((p) => el("tr", { "data-pod": p.namespace + "/" + p.name },
    el("td", {}, p.namespace + "/" + p.name),
    el("td", { class: "queue" }, p.queue),
    el("td", {}, p.attempts),
    el("td", { class: "reason" }, p.reason, " ",
      el("button", { class: "why", onclick: () => explain(p.namespace, p.name) }, "explain")))));
  $("pending").style.display = pending.length ? "" : "none";
  $("no-pending").style.display = pending.length ? "none" : "";
}

function renderDeployments(list) {
  const root = $("deployments");
  root.replaceChildren(...list.map((d) => {
    const total = Math.max(d.replicas, d.current, 1);
    return el("div", { class: "deployment" + (d.complete ? " complete" : ""),
        "data-deployment": d.namespace + "/" + d.name },
      el("div", {}, el("strong", {}, d.namespace + "/" + d.name), " ",
        el("span", { class: "muted" }, (d.images || []).join(", ") + (d.revision ? " (revision " + d.revision + ")" : ""))),
      el("div", { class: "progress", title: d.updated + " updated, " + d.old + " old" },
        el("div", { class: "new", style: "width:" + pct(d.updated, total) + "%" }),
        el("div", { class: "old", style: "width:" + pct(d.old, total) + "%" })),
      el("div", { class: "state" }, d.updated + "/" + d.replicas + " updated, " + d.available + " available"
        + (d.old ? ", " + d.old + " old" : "") + (d.complete ? " — rolled out" : d.progressing ? " — " + d.progressing : "")));
  }));
  if (!list.length) root.replaceChildren(el("p", { class: "muted" }, "No Deployments."));
}

function renderPodGroups(pg) {
  const root = $("podgroups");
  if (!pg.installed) {
    root.replaceChildren(el("p", { class: "muted" }, "The PodGroup CRD (scheduling.x-k8s.io) is not installed."));
    return;
  }
  root.replaceChildren(...pg.items.map((g) => el("div", { class: "podgroup", "data-podgroup": g.namespace + "/" + g.name },
    el("strong", {}, g.namespace + "/" + g.name), " ",
    el("span", {}, "minMember " + g.minMember + ": " + g.members + " members, " + g.scheduled + " scheduled, "
      + g.running + " running" + (g.phase ? " (" + g.phase + ")" : "")))));
  if (!pg.items.length) root.replaceChildren(el("p", { class: "muted" }, "No PodGroups."));
}

function setCounter(id, value, warn) {
  const c = $(id);
  c.querySelector(".value").textContent = value;
  c.classList.toggle("nonzero", !!warn && value > 0);
}

function render(data) {
  $("scenario-name").textContent = "— " + data.scenario.name;
  $("scenario-description").textContent = data.scenario.description || "";
  $("scenario-status").textContent = data.scenario.status;
  for (const q of ["active", "backoff", "unschedulable", "gated"]) setCounter("queue-" + q, data.queue[q], q !== "active");
  setCounter("count-nodes", data.counts.nodes);
  setCounter("count-running", data.counts.running);
  setCounter("count-pending", data.counts.pending);
  renderZones(data.zones);
  renderPending(data.pending);
  renderDeployments(data.deployments);
  renderPodGroups(data.podGroups);
}

let refreshing = false;
let again = false;
async function refresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    const r = await fetch("/api/cluster", { cache: "no-store" });
    if (r.ok) render(await r.json());
  } catch (e) {
    $("scenario-status").textContent = "dashboard: cannot reach the simulator (" + e + ")";
  } finally {
    refreshing = false;
    if (again) { again = false; setTimeout(refresh, 100); }
  }
}

function table(headers, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c === null || c === undefined ? "" : String(c)))))));
}

// The scheduler's own record of the pod's latest attempt (its explain model): the summary, each node's Filter
// verdict, the scores of the feasible nodes, and preemption.
function renderExplainModel(m) {
  const parts = [];
  const s = m.summary;
  if (s) {
    parts.push(el("p", {}, s.feasibleNodes + " of " + s.totalNodes + " nodes feasible."));
    const rej = Object.entries(s.rejections || {});
    if (rej.length) parts.push(table(["rejected by", "nodes"], rej.map(([k, v]) => [k, v])));
    if (s.nearest && s.nearest.length) {
      parts.push(el("h4", {}, "Nearest to fitting"),
        table(["node", "plugin", "reason", "lacks"], s.nearest.map((n) => [n.node, n.plugin, n.reason, n.lacks])));
    }
  }
  const a = m.latest;
  if (a) {
    parts.push(el("h4", {}, "Attempt " + a.attempt + " (" + a.outcome + ", profile " + a.profile + ")"
      + (a.selectedNode ? ": selected " + a.selectedNode : "") + (a.nominatedNode ? ": nominated " + a.nominatedNode : "")));
    if (a.message) parts.push(el("p", { class: "muted" }, a.message));
    const nodes = Object.entries((a.filter && a.filter.nodes) || {});
    if (nodes.length) {
      parts.push(el("h4", {}, "Filter, per node"), table(["node", "verdict", "plugin", "reason", "lacks"],
        nodes.map(([n, v]) => [n, v.passed ? "passed" : "rejected", v.plugin, v.reason, v.lacks])));
    }
    const scored = Object.entries((a.scores && a.scores.nodes) || {});
    if (scored.length) {
      const plugins = Object.keys(a.scores.weights || {});
      parts.push(el("h4", {}, "Scores (weighted)"), table(["node", ...plugins, "total"],
        scored.map(([n, r]) => [n, ...plugins.map((p) => r.plugins[p] ? r.plugins[p].weighted : ""), r.total])));
    }
    if (a.preemption) {
      parts.push(el("h4", {}, "Preemption"), table(["candidate", "victims", "PDB violations"],
        a.preemption.candidates.map((c) => [c.node, c.victims, c.pdbViolations])),
        el("p", {}, "victims: " + (a.preemption.victims.join(", ") || "none")));
    }
  }
  return parts;
}

async function explain(ns, name) {
  const dialog = $("explain");
  $("explain-title").textContent = "Why is " + ns + "/" + name + " not on a node?";
  $("explain-body").replaceChildren(el("p", { class: "muted" }, "loading…"));
  if (!dialog.open) dialog.showModal();
  const r = await fetch("/api/pods/" + encodeURIComponent(ns) + "/" + encodeURIComponent(name) + "/explain");
  const x = await r.json();
  if (!r.ok) { $("explain-body").replaceChildren(el("p", {}, x.error)); return; }
  const rows = [["node", x.node || "none"], ["nominated node", x.nominatedNode || ""], ["queue", x.queue || ""],
    ["attempts", x.attempts ?? ""], ["next try after backoff", x.backoffUntil || ""],
    ["rejected last by", (x.unschedulablePlugins || []).join(", ")], ["gated by", x.gatingPlugin || ""]]
    .filter((r) => r[1] !== "");
  const body = [el("p", { class: "explain-reason" }, x.reason), table(["", ""], rows)];
  if (x.condition) body.push(el("p", { class: "muted" }, "PodScheduled=" + x.condition.status + " " + (x.condition.reason || "")));
  if (x.explain) body.push(el("h4", {}, "The scheduler's record"), ...renderExplainModel(x.explain));
  if (x.events && x.events.length) {
    body.push(el("h4", {}, "Events"), table(["time", "type", "reason", "message"],
      x.events.map((e) => [e.time, e.type, e.reason + (e.count > 1 ? " ×" + e.count : ""), e.message])));
  }
  $("explain-body").replaceChildren(...body);
}

function addEvent(e) {
  const list = $("events");
  const t = (e.time || "").replace(/^.*T/, "").replace(/\..*$/, "").replace("Z", "");
  list.prepend(el("li", { class: e.type },
    el("span", { class: "time" }, t), " ", el("span", { class: "reason" }, e.reason), " ",
    el("span", { class: "object" }, e.object), ": ", el("span", {}, e.message)));
  while (list.children.length > 300) list.lastChild.remove();
}

function follow() {
  const source = new EventSource("/api/events/stream");
  source.addEventListener("k8s", (m) => { addEvent(JSON.parse(m.data)); refresh(); });
  source.onopen = () => { $("stream-state").textContent = "(live)"; };
  source.onerror = () => { $("stream-state").textContent = "(reconnecting…)"; };
}

refresh();
setInterval(refresh, 1000);
follow();
