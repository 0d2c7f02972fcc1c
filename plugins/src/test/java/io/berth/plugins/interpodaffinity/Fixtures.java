package io.berth.plugins.interpodaffinity;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinity;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Builders for InterPodAffinity tests: pods, nodes, terms, snapshots and the plugin. */
final class Fixtures {
  static final String DEFAULT_NS = "default";
  private static final AtomicInteger UIDS = new AtomicInteger();

  /** The namespaces of upstream's tests: two per team, labelled {@code team=teamN}. */
  static final Namespace[] NAMESPACES = {
      namespace("subteam1.team1", "team", "team1"),
      namespace("subteam2.team1", "team", "team1"),
      namespace("subteam1.team2", "team", "team2"),
      namespace("subteam2.team2", "team", "team2"),
      namespace(DEFAULT_NS)};

  private Fixtures() {}

  static Map<String, String> labels(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  static Node node(String name, Map<String, String> labels) {
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .build();
  }

  static Node node(String name, String... kv) {
    return node(name, labels(kv));
  }

  static Namespace namespace(String name, String... kv) {
    return new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels(kv))
        .endMetadata().build();
  }

  static LabelSelectorRequirement in(String key, String... values) {
    return new LabelSelectorRequirement(key, "In", List.of(values));
  }

  static LabelSelectorRequirement notIn(String key, String... values) {
    return new LabelSelectorRequirement(key, "NotIn", List.of(values));
  }

  static LabelSelectorRequirement exists(String key) {
    return new LabelSelectorRequirement(key, "Exists", null);
  }

  static LabelSelectorRequirement doesNotExist(String key) {
    return new LabelSelectorRequirement(key, "DoesNotExist", null);
  }

  static LabelSelector selector(LabelSelectorRequirement... requirements) {
    return new LabelSelector(List.of(requirements), null);
  }

  /** A term over the declaring pod's namespace. */
  static PodAffinityTerm term(String topologyKey, LabelSelectorRequirement... requirements) {
    PodAffinityTerm t = new PodAffinityTerm();
    t.setTopologyKey(topologyKey);
    t.setLabelSelector(selector(requirements));
    return t;
  }

  /** A term over explicit namespaces and/or a namespace selector. */
  static PodAffinityTerm term(String topologyKey, List<String> namespaces,
      LabelSelector namespaceSelector, LabelSelectorRequirement... requirements) {
    PodAffinityTerm t = term(topologyKey, requirements);
    t.setNamespaces(namespaces);
    t.setNamespaceSelector(namespaceSelector);
    return t;
  }

  static WeightedPodAffinityTerm weighted(int weight, PodAffinityTerm term) {
    return new WeightedPodAffinityTerm(term, weight);
  }

  static PodMaker pod() {
    return new PodMaker();
  }

  /** NodeInfos for {@code nodes}, each holding the pods bound to it (others are dropped). */
  static List<NodeInfo> nodeInfos(List<Node> nodes, List<Pod> pods) {
    List<NodeInfo> infos = new ArrayList<>();
    for (Node n : nodes) {
      String name = n.getMetadata().getName();
      infos.add(NodeInfo.of(n, pods.stream()
          .filter(p -> name.equals(p.getSpec().getNodeName())).toArray(Pod[]::new)));
    }
    return infos;
  }

  /** The plugin built by its factory over a TestHandle holding {@code infos} and namespaces. */
  static InterPodAffinity plugin(List<NodeInfo> infos, Map<String, Object> args) {
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(NAMESPACES);
    return (InterPodAffinity) InterPodAffinity.create(args, handle);
  }

  /** The plugin over {@code infos} using {@code parallelizer} for its parallel loops. */
  static InterPodAffinity plugin(List<NodeInfo> infos, Parallelizer parallelizer) {
    TestHandle handle = new TestHandle().withNodes(infos).withObjects(NAMESPACES);
    return new InterPodAffinity(InterPodAffinityArgs.DEFAULTS, handle,
        handle.lister(Namespace.class), parallelizer);
  }

  /** A fluent pod builder in the spirit of upstream's {@code st.MakePod()}. */
  static final class PodMaker {
    private String name = "pod-" + UIDS.incrementAndGet();
    private String namespace = DEFAULT_NS;
    private String nodeName;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final List<PodAffinityTerm> affinity = new ArrayList<>();
    private final List<PodAffinityTerm> antiAffinity = new ArrayList<>();
    private final List<WeightedPodAffinityTerm> preferredAffinity = new ArrayList<>();
    private final List<WeightedPodAffinityTerm> preferredAntiAffinity = new ArrayList<>();

    PodMaker name(String n) {
      this.name = n;
      return this;
    }

    PodMaker ns(String ns) {
      this.namespace = ns;
      return this;
    }

    PodMaker node(String n) {
      this.nodeName = n;
      return this;
    }

    PodMaker label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    PodMaker labels(Map<String, String> l) {
      labels.putAll(l);
      return this;
    }

    PodMaker affinity(PodAffinityTerm... terms) {
      affinity.addAll(Arrays.asList(terms));
      return this;
    }

    PodMaker antiAffinity(PodAffinityTerm... terms) {
      antiAffinity.addAll(Arrays.asList(terms));
      return this;
    }

    PodMaker preferredAffinity(WeightedPodAffinityTerm... terms) {
      preferredAffinity.addAll(Arrays.asList(terms));
      return this;
    }

    PodMaker preferredAntiAffinity(WeightedPodAffinityTerm... terms) {
      preferredAntiAffinity.addAll(Arrays.asList(terms));
      return this;
    }

    /** Copies the terms of an {@link Affinity} built elsewhere. */
    PodMaker affinity(Affinity a) {
      if (a.getPodAffinity() != null) {
        nonNull(a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
            .forEach(affinity::add);
        nonNull(a.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
            .forEach(preferredAffinity::add);
      }
      if (a.getPodAntiAffinity() != null) {
        nonNull(a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
            .forEach(antiAffinity::add);
        nonNull(a.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
            .forEach(preferredAntiAffinity::add);
      }
      return this;
    }

    private static <T> List<T> nonNull(List<T> l) {
      return l == null ? List.of() : l;
    }

    Pod obj() {
      Affinity a = null;
      if (!affinity.isEmpty() || !antiAffinity.isEmpty() || !preferredAffinity.isEmpty()
          || !preferredAntiAffinity.isEmpty()) {
        a = new Affinity();
        if (!affinity.isEmpty() || !preferredAffinity.isEmpty()) {
          PodAffinity pa = new PodAffinity();
          pa.setRequiredDuringSchedulingIgnoredDuringExecution(List.copyOf(affinity));
          pa.setPreferredDuringSchedulingIgnoredDuringExecution(List.copyOf(preferredAffinity));
          a.setPodAffinity(pa);
        }
        if (!antiAffinity.isEmpty() || !preferredAntiAffinity.isEmpty()) {
          PodAntiAffinity paa = new PodAntiAffinity();
          paa.setRequiredDuringSchedulingIgnoredDuringExecution(List.copyOf(antiAffinity));
          paa.setPreferredDuringSchedulingIgnoredDuringExecution(
              List.copyOf(preferredAntiAffinity));
          a.setPodAntiAffinity(paa);
        }
      }
      return new PodBuilder()
          .withNewMetadata().withName(name).withNamespace(namespace)
          .withUid("uid-" + name + "-" + UIDS.incrementAndGet()).withLabels(Map.copyOf(labels))
          .endMetadata()
          .withNewSpec().withNodeName(nodeName).withAffinity(a).endSpec()
          .build();
    }
  }
}
