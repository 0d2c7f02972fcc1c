package io.berth.simulator.scenario;

import io.berth.component.GoDurations;
import io.berth.embedded.NodeSpec;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.config.SchedulerConfigException;
import io.berth.scheduler.config.SchedulerConfigLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads a scenario file: YAML documents separated by {@code ---} lines, each an ordinary Kubernetes manifest,
 * plus at most one {@code simulator.berth.io/v1alpha1 Scenario} document holding the nodes, an optional scheduler
 * configuration, timed steps and expectations (the format is documented in the README, "Scenarios"). Everything is
 * checked before anything runs: any problem in any document rejects the whole file with a {@link ScenarioException}
 * naming the file, the document (counted from 1, empty documents not counted) and the field. Stateless and
 * thread-safe.
 */
public final class ScenarioLoader {

  public static final String API_VERSION = "simulator.berth.io/v1alpha1";
  public static final String KIND = "Scenario";
  /** Without a Scenario document: three 4-cpu nodes, one per zone. */
  static final List<NodeSpec> DEFAULT_NODES = List.of(
      NodeSpec.node("node-a").withZone("zone-a").withRegion("region-1"),
      NodeSpec.node("node-b").withZone("zone-b").withRegion("region-1"),
      NodeSpec.node("node-c").withZone("zone-c").withRegion("region-1"));
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  private static final ObjectMapper YAML = YAMLMapper.builder().build();
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final Pattern SEPARATOR = Pattern.compile("^---(\\s.*)?$");
  private static final Set<String> SPEC_FIELDS =
      Set.of("description", "schedulerConfig", "nodes", "podSets", "steps", "expect");
  private static final Set<String> POD_SET_FIELDS =
      Set.of("namePrefix", "count", "namespace", "onNodes", "template");
  private static final int MAX_POD_SET = 200_000;
  private static final Set<String> NODE_FIELDS =
      Set.of("name", "namePrefix", "count", "zone", "region", "cpu", "memory", "pods", "labels", "taints", "gpus");
  private static final Set<String> ACTIONS =
      Set.of("scale", "setImage", "addNode", "removeNode", "cordon", "uncordon", "apply");

  private ScenarioLoader() {
  }

  /** Loads and validates {@code file}. */
  public static Scenario load(Path file) {
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ScenarioException(file.toString(), List.of("cannot read the file: " + e));
    }
    return parse(file.toString(), content);
  }

  /** Validates {@code content}, reporting problems against the name {@code file}. */
  public static Scenario parse(String file, String content) {
    Problems problems = new Problems();
    List<Manifest> manifests = new ArrayList<>();
    Map<String, String> priorityRefs = new LinkedHashMap<>();
    JsonNode scenarioDoc = null;
    int scenarioDocNumber = 0;
    int number = 0;
    for (Document d : documentsWithLines(content)) {
      String text = d.text();
      number++;
      JsonNode node;
      try {
        node = YAML.readTree(text);
      } catch (JacksonException e) {
        problems.document(number, "");
        problems.add("", "not valid YAML: " + e.getOriginalMessage());
        continue;
      }
      problems.document(number, node.isObject() ? ManifestValidator.label(node) : "");
      if (node.isObject() && KIND.equals(node.path("kind").asString(""))
          && API_VERSION.equals(node.path("apiVersion").asString(""))) {
        if (scenarioDoc != null) {
          problems.add("kind", "Duplicate value: a file holds one Scenario document (the first is document "
              + scenarioDocNumber + ")");
        } else {
          scenarioDoc = node;
          scenarioDocNumber = number;
        }
        continue;
      }
      int before = problems.size();
      Map<String, String> refs = new LinkedHashMap<>();
      ManifestValidator.validate(node, "", problems, refs);
      if (problems.size() == before) {
        UnknownFields.check(node, node.path("kind").asString(""),
            () -> UnknownFields.lines(YAML, text, d.firstLine()), problems);
      }
      int doc = number;
      refs.forEach((field, pc) -> priorityRefs.put(doc + " " + field, pc));
      if (problems.size() == before) {
        manifests.add(manifest(number, (ObjectNode) node));
      }
    }
    if (number == 0) {
      problems.document(0, "");
      throw new ScenarioException(file, List.of("the file holds no YAML document"));
    }
    String name = Path.of(file).getFileName().toString().replaceFirst("\\.ya?ml$", "");
    String description = "";
    Optional<String> config = Optional.empty();
    List<NodeSpec> nodes = DEFAULT_NODES;
    List<Step> steps = List.of();
    List<PodSet> podSets = List.of();
    List<PodExpectation> expectations = List.of();
    List<String> rolledOut = new ArrayList<>();
    Duration timeout = DEFAULT_TIMEOUT;
    Set<String> objects = new HashSet<>();
    for (Manifest m : manifests) {
      if (!objects.add(m.kind() + " " + m.namespace() + "/" + m.name())) {
        problems.document(m.document(), m.label());
        problems.add("metadata.name", "Duplicate value: " + Problems.quote(m.name()) + ": defined twice");
      }
    }
    if (scenarioDoc != null) {
      problems.document(scenarioDocNumber, ManifestValidator.label(scenarioDoc));
      JsonNode meta = scenarioDoc.path("metadata");
      if (meta.path("name").isString()) {
        name = meta.path("name").stringValue();
      }
      JsonNode spec = scenarioDoc.path("spec");
      if (!spec.isObject()) {
        problems.required("spec");
      } else {
        unknownFields(spec, "spec", SPEC_FIELDS, problems);
        description = spec.path("description").asString("");
        config = schedulerConfig(spec.path("schedulerConfig"), problems);
        if (!spec.path("nodes").isMissingNode()) {
          nodes = nodeList(spec.path("nodes"), "spec.nodes", problems);
        }
        Set<String> nodeNames = new HashSet<>();
        for (NodeSpec n : nodes) {
          if (!nodeNames.add(n.name())) {
            problems.add("spec.nodes", "Duplicate value: node " + Problems.quote(n.name()));
          }
        }
        podSets = podSets(spec.path("podSets"), problems, priorityRefs, scenarioDocNumber);
        Map<String, Manifest> deployments = new HashMap<>();
        manifests.stream().filter(m -> m.kind().equals("Deployment"))
            .forEach(m -> deployments.put(m.namespace() + "/" + m.name(), m));
        steps = steps(spec.path("steps"), nodeNames, deployments, objects, problems, priorityRefs,
            scenarioDocNumber);
        JsonNode expect = spec.path("expect");
        if (!expect.isMissingNode()) {
          unknownFields(expect, "spec.expect", Set.of("timeout", "pods", "rolledOut"), problems);
          JsonNode ro = expect.path("rolledOut");
          if (!ro.isMissingNode() && !ro.isArray()) {
            problems.invalid("spec.expect.rolledOut", ro, "must be a list of NAMESPACE/NAME");
          }
          for (int i = 0; ro.isArray() && i < ro.size(); i++) {
            String ref = ro.get(i).asString("");
            String key = ref.contains("/") ? ref : "default/" + ref;
            if (!deployments.containsKey(key)) {
              problems.add("spec.expect.rolledOut[" + i + "]", "Not found: no Deployment " + Problems.quote(key)
                  + " in the scenario");
            } else {
              rolledOut.add(key);
            }
          }
          if (!expect.path("timeout").isMissingNode()) {
            timeout = duration(expect.path("timeout"), "spec.expect.timeout", problems);
          }
          expectations = expectations(expect.path("pods"), "spec.expect.pods", problems);
        }
      }
    }
    Set<String> priorityClasses = new HashSet<>(Set.of("system-cluster-critical", "system-node-critical"));
    manifests.stream().filter(m -> m.kind().equals("PriorityClass")).forEach(m -> priorityClasses.add(m.name()));
    steps.stream().filter(s -> s instanceof Step.Apply a && a.manifest().kind().equals("PriorityClass"))
        .forEach(s -> priorityClasses.add(((Step.Apply) s).manifest().name()));
    for (Map.Entry<String, String> ref : priorityRefs.entrySet()) {
      if (!priorityClasses.contains(ref.getValue())) {
        String[] parts = ref.getKey().split(" ", 2);
        int doc = Integer.parseInt(parts[0]);
        problems.document(doc, labelOf(doc, manifests, scenarioDocNumber, scenarioDoc));
        problems.add(parts[1], "Not found: no PriorityClass with name " + Problems.quote(ref.getValue())
            + " in the scenario (nor a system one)");
      }
    }
    if (!problems.isEmpty()) {
      throw new ScenarioException(file, problems.all());
    }
    return new Scenario(file, name, description, config, nodes, manifests, podSets, steps, expectations, rolledOut,
        timeout);
  }

  private static String labelOf(int doc, List<Manifest> manifests, int scenarioDocNumber, JsonNode scenarioDoc) {
    if (doc == scenarioDocNumber && scenarioDoc != null) {
      return ManifestValidator.label(scenarioDoc);
    }
    return manifests.stream().filter(m -> m.document() == doc).map(Manifest::label).findFirst().orElse("");
  }

  /** The documents of a multi-document YAML text, without the empty ones (only blank lines and comments). */
  static List<String> documents(String content) {
    return documentsWithLines(content).stream().map(Document::text).toList();
  }

  /** One document's text and the line of the file its text starts on (from 1). */
  record Document(String text, int firstLine) {
  }

  /** As {@link #documents}, with where each starts in the file. */
  static List<Document> documentsWithLines(String content) {
    List<Document> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean hasContent = false;
    int lineNumber = 0;
    int first = 1;
    for (String line : content.split("\r?\n", -1)) {
      lineNumber++;
      if (SEPARATOR.matcher(line).matches()) {
        if (hasContent) {
          out.add(new Document(current.toString(), first));
        }
        current.setLength(0);
        hasContent = false;
        first = lineNumber + 1;
        continue;
      }
      current.append(line).append('\n');
      String t = line.strip();
      hasContent |= !t.isEmpty() && !t.startsWith("#");
    }
    if (hasContent) {
      out.add(new Document(current.toString(), first));
    }
    return out;
  }

  private static Manifest manifest(int number, ObjectNode node) {
    String kind = node.path("kind").stringValue();
    ObjectNode meta = (ObjectNode) node.path("metadata");
    String namespace = "";
    if (!ManifestValidator.CLUSTER_SCOPED.contains(kind)) {
      namespace = meta.path("namespace").asString("default");
      meta.put("namespace", namespace);
    }
    return new Manifest(number, node.path("apiVersion").stringValue(), kind, namespace,
        meta.path("name").stringValue(), JSON.writeValueAsString(node));
  }

  private static Optional<String> schedulerConfig(JsonNode node, Problems problems) {
    if (node.isMissingNode() || node.isNull()) {
      return Optional.empty();
    }
    if (!node.isObject()) {
      problems.invalid("spec.schedulerConfig", ManifestValidator.nodeType(node),
          "must be a KubeSchedulerConfiguration mapping");
      return Optional.empty();
    }
    String json = JSON.writeValueAsString(node);
    try {
      SchedulerConfigLoader.load(json, InTreeRegistry.create());
    } catch (SchedulerConfigException e) {
      for (String error : e.errors()) {
        problems.add("spec.schedulerConfig", error);
      }
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      problems.add("spec.schedulerConfig", e.getMessage());
      return Optional.empty();
    }
    return Optional.of(json);
  }

  /**
   * {@code spec.podSets}: each entry's template is validated as the Pod document it stands for (named
   * {@code namePrefix-0}), so a pod set is refused for what would refuse a Pod document.
   */
  private static List<PodSet> podSets(JsonNode list, Problems problems, Map<String, String> priorityRefs, int doc) {
    if (list.isMissingNode()) {
      return List.of();
    }
    if (!list.isArray()) {
      problems.invalid("spec.podSets", ManifestValidator.nodeType(list), "must be a list of pod sets");
      return List.of();
    }
    List<PodSet> out = new ArrayList<>();
    Set<String> prefixes = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String path = "spec.podSets[" + i + "]";
      JsonNode e = list.get(i);
      if (!e.isObject()) {
        problems.invalid(path, ManifestValidator.nodeType(e), "must be a mapping");
        continue;
      }
      int before = problems.size();
      unknownFields(e, path, POD_SET_FIELDS, problems);
      String prefix = ManifestValidator.text(e, "namePrefix", path, problems, true);
      String namespace = e.path("namespace").asString("default");
      JsonNode c = e.path("count");
      if (!c.isIntegralNumber() || c.asInt() < 1 || c.asInt() > MAX_POD_SET) {
        problems.invalid(path + ".count", c.isMissingNode() ? "" : c, "must be between 1 and " + MAX_POD_SET);
      }
      JsonNode onNodes = e.path("onNodes");
      if (!onNodes.isMissingNode() && !onNodes.isBoolean()) {
        problems.invalid(path + ".onNodes", onNodes, "must be true or false");
      }
      JsonNode template = e.path("template");
      if (!template.isObject()) {
        problems.invalid(path + ".template", ManifestValidator.nodeType(template),
            "must be a Pod's metadata and spec");
        continue;
      }
      if (prefix != null && !prefixes.add(namespace + "/" + prefix)) {
        problems.add(path + ".namePrefix", "Duplicate value: " + Problems.quote(prefix) + " in namespace "
            + Problems.quote(namespace));
      }
      ObjectNode pod = JSON.createObjectNode();
      pod.put("apiVersion", "v1");
      pod.put("kind", "Pod");
      ObjectNode meta = pod.putObject("metadata");
      if (template.path("metadata").isObject()) {
        meta.setAll((ObjectNode) template.path("metadata"));
      }
      meta.put("name", (prefix == null ? "pod" : prefix) + "-0");
      meta.put("namespace", namespace);
      pod.set("spec", template.path("spec"));
      Map<String, String> refs = new LinkedHashMap<>();
      ManifestValidator.validate(pod, path + ".template", problems, refs);
      refs.forEach((field, pc) -> priorityRefs.put(doc + " " + field, pc));
      if (problems.size() == before) {
        meta.remove("name");
        out.add(new PodSet(prefix, c.asInt(), namespace, onNodes.asBoolean(false), JSON.writeValueAsString(pod)));
      }
    }
    return out;
  }

  private static List<NodeSpec> nodeList(JsonNode list, String path, Problems problems) {
    if (!list.isArray()) {
      problems.invalid(path, ManifestValidator.nodeType(list), "must be a list of nodes");
      return List.of();
    }
    List<NodeSpec> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      out.addAll(nodes(list.get(i), path + "[" + i + "]", problems));
    }
    return out;
  }

  /** One entry of {@code spec.nodes} (or an {@code addNode} step): a named node or {@code count} numbered ones. */
  private static List<NodeSpec> nodes(JsonNode n, String path, Problems problems) {
    if (!n.isObject()) {
      problems.invalid(path, ManifestValidator.nodeType(n), "must be a mapping");
      return List.of();
    }
    unknownFields(n, path, NODE_FIELDS, problems);
    String name = ManifestValidator.text(n, "name", path, problems, false);
    String prefix = ManifestValidator.text(n, "namePrefix", path, problems, false);
    int count = 1;
    if (name == null && prefix == null) {
      problems.required(path + ".name");
      return List.of();
    }
    if (name != null && (prefix != null || !n.path("count").isMissingNode())) {
      problems.invalid(path + ".name", name, "give either name, or namePrefix and count");
      return List.of();
    }
    if (prefix != null) {
      JsonNode c = n.path("count");
      if (!c.isIntegralNumber() || c.asInt() < 1 || c.asInt() > 5000) {
        problems.invalid(path + ".count", c.isMissingNode() ? "" : c, "must be between 1 and 5000");
        return List.of();
      }
      count = c.asInt();
    }
    NodeSpec base = NodeSpec.node(name != null ? name : prefix);
    String zone = ManifestValidator.text(n, "zone", path, problems, false);
    String region = ManifestValidator.text(n, "region", path, problems, false);
    base = zone != null ? base.withZone(zone) : base;
    base = region != null ? base.withRegion(region) : base;
    for (String r : List.of("cpu", "memory")) {
      JsonNode q = n.path(r);
      if (q.isMissingNode()) {
        continue;
      }
      if (!ManifestValidator.isQuantity(q)) {
        problems.invalid(path + "." + r, q,
            "must be a quantity such as \"4\", \"3500m\" or \"16Gi\"");
        continue;
      }
      base = r.equals("cpu") ? base.withCpu(q.asString()) : base.withMemory(q.asString());
    }
    JsonNode pods = n.path("pods");
    if (!pods.isMissingNode()) {
      if (!pods.isIntegralNumber() || pods.asInt() < 1) {
        problems.invalid(path + ".pods", pods, "must be a positive integer");
      } else {
        base = base.withPods(pods.asInt());
      }
    }
    ManifestValidator.stringMap(n.path("labels"), path + ".labels", problems);
    if (n.path("labels").isObject()) {
      for (Map.Entry<String, JsonNode> e : n.path("labels").properties()) {
        base = base.withLabel(e.getKey(), e.getValue().asString());
      }
    }
    JsonNode taints = n.path("taints");
    if (!taints.isMissingNode() && !taints.isArray()) {
      problems.invalid(path + ".taints", taints, "must be a list");
    }
    for (int i = 0; taints.isArray() && i < taints.size(); i++) {
      JsonNode t = taints.get(i);
      String tp = path + ".taints[" + i + "]";
      unknownFields(t, tp, Set.of("key", "value", "effect"), problems);
      String key = ManifestValidator.text(t, "key", tp, problems, true);
      String effect = ManifestValidator.text(t, "effect", tp, problems, true);
      if (effect != null && !Set.of("NoSchedule", "PreferNoSchedule", "NoExecute").contains(effect)) {
        problems.add(tp + ".effect", "Unsupported value: " + Problems.quote(effect)
            + ": supported values: \"NoExecute\", \"NoSchedule\", \"PreferNoSchedule\"");
      } else if (key != null && effect != null) {
        base = base.withTaint(key, t.path("value").asString(""), effect);
      }
    }
    base = gpus(n.path("gpus"), path + ".gpus", problems).map(base::withGpus).orElse(base);
    if (prefix == null) {
      return List.of(base);
    }
    List<NodeSpec> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(base.withName(prefix + "-" + i));
    }
    return out;
  }

  /** A node's {@code gpus: {count, model, memory}}: devices it publishes as a DRA ResourceSlice. */
  private static java.util.Optional<io.berth.embedded.GpuSpec> gpus(JsonNode g, String path, Problems problems) {
    if (g.isMissingNode()) {
      return java.util.Optional.empty();
    }
    if (!g.isObject()) {
      problems.invalid(path, ManifestValidator.nodeType(g), "must be a mapping of count, model and memory");
      return java.util.Optional.empty();
    }
    unknownFields(g, path, Set.of("count", "model", "memory"), problems);
    JsonNode c = g.path("count");
    if (!c.isIntegralNumber() || c.asInt() < 1 || c.asInt() > io.berth.embedded.GpuSpec.MAX_COUNT) {
      problems.invalid(path + ".count", c.isMissingNode() ? "" : c, "must be between 1 and "
          + io.berth.embedded.GpuSpec.MAX_COUNT);
      return java.util.Optional.empty();
    }
    String model = ManifestValidator.text(g, "model", path, problems, false);
    JsonNode memory = g.path("memory");
    if (!memory.isMissingNode() && !ManifestValidator.isQuantity(memory)) {
      problems.invalid(path + ".memory", memory, "must be a quantity such as \"80Gi\"");
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(new io.berth.embedded.GpuSpec(c.asInt(),
          model != null ? model : io.berth.embedded.GpuSpec.DEFAULT_MODEL,
          memory.isMissingNode() ? io.berth.embedded.GpuSpec.DEFAULT_MEMORY : memory.asString()));
    } catch (IllegalArgumentException e) {
      problems.add(path, e.getMessage());
      return java.util.Optional.empty();
    }
  }

  private static List<Step> steps(JsonNode list, Set<String> nodeNames, Map<String, Manifest> deployments,
      Set<String> objects, Problems problems, Map<String, String> priorityRefs, int docNumber) {
    if (list.isMissingNode()) {
      return List.of();
    }
    if (!list.isArray()) {
      problems.invalid("spec.steps", ManifestValidator.nodeType(list), "must be a list of steps");
      return List.of();
    }
    Set<String> nodes = new HashSet<>(nodeNames);
    List<Step> out = new ArrayList<>();
    Duration last = Duration.ZERO;
    for (int i = 0; i < list.size(); i++) {
      JsonNode s = list.get(i);
      String sp = "spec.steps[" + i + "]";
      if (!s.isObject()) {
        problems.invalid(sp, ManifestValidator.nodeType(s), "must be a mapping");
        continue;
      }
      Set<String> allowed = new HashSet<>(ACTIONS);
      allowed.add("at");
      unknownFields(s, sp, allowed, problems);
      Duration at = s.path("at").isMissingNode() ? last : duration(s.path("at"), sp + ".at", problems);
      if (at.compareTo(last) < 0) {
        problems.invalid(sp + ".at", s.path("at").asString(), "must not be earlier than the step before ("
            + GoDurations.format(last) + ")");
      }
      last = at.compareTo(last) > 0 ? at : last;
      List<String> actions = ACTIONS.stream().filter(a -> !s.path(a).isMissingNode()).sorted().toList();
      if (actions.size() != 1) {
        problems.add(sp, actions.isEmpty() ? "Required value: one of addNode, apply, cordon, removeNode, scale, "
            + "setImage, uncordon" : "Forbidden: one action per step, got " + String.join(", ", actions));
        continue;
      }
      String action = actions.get(0);
      String ap = sp + "." + action;
      JsonNode a = s.path(action);
      switch (action) {
        case "scale" -> {
          unknownFields(a, ap, Set.of("deployment", "replicas"), problems);
          Manifest d = deployment(a, ap, deployments, problems);
          JsonNode r = a.path("replicas");
          if (!r.isIntegralNumber() || r.asInt() < 0) {
            problems.invalid(ap + ".replicas", r.isMissingNode() ? "" : r,
                "must be greater than or equal to 0");
          } else if (d != null) {
            out.add(new Step.Scale(at, d.namespace(), d.name(), r.asInt()));
          }
        }
        case "setImage" -> {
          unknownFields(a, ap, Set.of("deployment", "container", "image"), problems);
          Manifest d = deployment(a, ap, deployments, problems);
          String image = ManifestValidator.text(a, "image", ap, problems, true);
          String container = ManifestValidator.text(a, "container", ap, problems, false);
          if (d != null && image != null) {
            List<String> names = new ArrayList<>();
            JSON.readTree(d.json()).path("spec").path("template").path("spec").path("containers")
                .forEach(c -> names.add(c.path("name").asString()));
            if (container == null && names.size() != 1) {
              problems.required(ap + ".container");
            } else if (container != null && !names.contains(container)) {
              problems.invalid(ap + ".container", container, "not a container of " + d.label() + " (" 
                  + String.join(", ", names) + ")");
            } else {
              out.add(new Step.SetImage(at, d.namespace(), d.name(), container != null ? container : names.get(0),
                  image));
            }
          }
        }
        case "addNode" -> {
          List<NodeSpec> added = nodes(a, ap, problems);
          for (NodeSpec n : added) {
            if (!nodes.add(n.name())) {
              problems.add(ap + ".name", "Duplicate value: node " + Problems.quote(n.name()) + " exists by then");
            }
          }
          if (!added.isEmpty()) {
            out.add(new Step.AddNodes(at, added));
          }
        }
        case "removeNode", "cordon", "uncordon" -> {
          if (!a.isString() || a.stringValue().isEmpty()) {
            problems.invalid(ap, ManifestValidator.nodeType(a), "must be a node name");
          } else if (!nodes.contains(a.stringValue())) {
            problems.add(ap, "Not found: node " + Problems.quote(a.stringValue()) + " does not exist by then");
          } else if (action.equals("removeNode")) {
            nodes.remove(a.stringValue());
            out.add(new Step.RemoveNode(at, a.stringValue()));
          } else {
            out.add(new Step.Cordon(at, a.stringValue(), action.equals("cordon")));
          }
        }
        case "apply" -> {
          int before = problems.size();
          Map<String, String> refs = new LinkedHashMap<>();
          ManifestValidator.validate(a, ap, problems, refs);
          refs.forEach((field, pc) -> priorityRefs.put(docNumber + " " + field, pc));
          if (problems.size() == before) {
            Manifest m = manifest(docNumber, (ObjectNode) a);
            if (!objects.add(m.kind() + " " + m.namespace() + "/" + m.name())) {
              problems.add(ap + ".metadata.name", "Duplicate value: " + Problems.quote(m.name())
                  + ": " + m.label() + " exists by then");
            }
            if (m.kind().equals("Deployment")) {
              deployments.put(m.namespace() + "/" + m.name(), m);
            }
            out.add(new Step.Apply(at, m));
          }
        }
        default -> throw new IllegalStateException(action);
      }
    }
    return out;
  }

  private static Manifest deployment(JsonNode action, String path, Map<String, Manifest> deployments,
      Problems problems) {
    String ref = ManifestValidator.text(action, "deployment", path, problems, true);
    if (ref == null) {
      return null;
    }
    String key = ref.contains("/") ? ref : "default/" + ref;
    Manifest d = deployments.get(key);
    if (d == null) {
      problems.add(path + ".deployment", "Not found: no Deployment " + Problems.quote(key)
          + " in the scenario by then (write NAMESPACE/NAME)");
    }
    return d;
  }

  private static List<PodExpectation> expectations(JsonNode list, String path, Problems problems) {
    if (list.isMissingNode()) {
      return List.of();
    }
    if (!list.isArray()) {
      problems.invalid(path, ManifestValidator.nodeType(list), "must be a list");
      return List.of();
    }
    List<PodExpectation> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode e = list.get(i);
      String ep = path + "[" + i + "]";
      unknownFields(e, ep, Set.of("namespace", "labels", "phase", "scheduled", "count"), problems);
      ManifestValidator.stringMap(e.path("labels"), ep + ".labels", problems);
      Map<String, String> labels = new LinkedHashMap<>();
      if (e.path("labels").isObject()) {
        e.path("labels").properties().forEach(p -> labels.put(p.getKey(), p.getValue().asString()));
      }
      String phase = ManifestValidator.text(e, "phase", ep, problems, false);
      if (phase != null && !Set.of("Pending", "Running", "Succeeded", "Failed").contains(phase)) {
        problems.add(ep + ".phase", "Unsupported value: " + Problems.quote(phase)
            + ": supported values: \"Failed\", \"Pending\", \"Running\", \"Succeeded\"");
      }
      JsonNode scheduled = e.path("scheduled");
      if (!scheduled.isMissingNode() && !scheduled.isBoolean()) {
        problems.invalid(ep + ".scheduled", scheduled, "must be true or false");
      }
      JsonNode count = e.path("count");
      if (!count.isIntegralNumber() || count.asInt() < 0) {
        problems.invalid(ep + ".count", count.isMissingNode() ? "" : count,
            "must be greater than or equal to 0");
        continue;
      }
      out.add(new PodExpectation(e.path("namespace").asString("default"), labels, Optional.ofNullable(phase),
          scheduled.isBoolean() ? Optional.of(scheduled.asBoolean()) : Optional.empty(), count.asInt()));
    }
    return out;
  }

  private static Duration duration(JsonNode node, String path, Problems problems) {
    if (!node.isString()) {
      problems.invalid(path, node, "must be a duration such as \"10s\" or \"1m30s\"");
      return Duration.ZERO;
    }
    try {
      Duration d = GoDurations.parse(node.stringValue());
      if (d.isNegative()) {
        problems.invalid(path, node.stringValue(), "must not be negative");
        return Duration.ZERO;
      }
      return d;
    } catch (IllegalArgumentException e) {
      problems.invalid(path, node.stringValue(), "must be a duration such as \"10s\" or \"1m30s\"");
      return Duration.ZERO;
    }
  }

  private static void unknownFields(JsonNode object, String path, Set<String> allowed, Problems problems) {
    if (!object.isObject()) {
      return;
    }
    for (String field : object.propertyNames()) {
      if (!allowed.contains(field)) {
        problems.unknown(path + "." + field);
      }
    }
  }
}
