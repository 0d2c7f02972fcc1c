package io.berth.framework;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A pod with what the scheduler derives from it once: its resource requests (plain and non-zero)
 * and its compiled pod affinity and anti-affinity terms. Immutable after construction and
 * thread-safe; the pod itself is shared with the informer cache and must not be mutated.
 *
 * <p>Construction never throws: a malformed quantity, selector or toleration is reported by
 * {@link #parseError()} with the field it came from (the scheduler fails such a pod with that
 * message instead of stopping), and the broken part counts as empty.
 */
public final class PodInfo {
  private final Pod pod;
  private final Resource requests;
  private final Resource nonZeroRequests;
  private final List<AffinityTerm> requiredAffinityTerms;
  private final List<AffinityTerm> requiredAntiAffinityTerms;
  private final List<WeightedAffinityTerm> preferredAffinityTerms;
  private final List<WeightedAffinityTerm> preferredAntiAffinityTerms;
  private final String parseError;
  // every container port (host port or not), flattened; usually empty
  private final List<ContainerPort> containerPorts;
  // "namespace/claimName" of each PVC volume; usually empty
  private final List<String> pvcKeys;
  // spec.priority (0 when unset) and metadata.uid, read once: Filter with nominated pods compares them for every
  // nominated pod on every node it visits, and the hops through the Pod to its spec and metadata were a cache miss each
  private final int priority;
  private final String uid;

  private PodInfo(Pod pod) {
    this.pod = pod;
    this.priority = pod.getSpec() == null || pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority();
    this.uid = pod.getMetadata() == null ? null : pod.getMetadata().getUid();
    List<String> errors = new ArrayList<>();
    Resource req;
    Resource nonZero;
    try {
      req = PodRequests.of(pod);
      nonZero = PodRequests.nonZero(pod);
    } catch (IllegalArgumentException e) {
      errors.add(e.getMessage());
      req = new Resource();
      nonZero = new Resource();
    }
    this.requests = req;
    this.nonZeroRequests = nonZero;
    Affinity affinity = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
    String base = "spec.affinity.";
    if (affinity != null && affinity.getPodAffinity() != null) {
      var pa = affinity.getPodAffinity();
      requiredAffinityTerms = terms(pa.getRequiredDuringSchedulingIgnoredDuringExecution(),
          base + "podAffinity.requiredDuringSchedulingIgnoredDuringExecution", errors);
      preferredAffinityTerms = weighted(pa.getPreferredDuringSchedulingIgnoredDuringExecution(),
          base + "podAffinity.preferredDuringSchedulingIgnoredDuringExecution", errors);
    } else {
      requiredAffinityTerms = List.of();
      preferredAffinityTerms = List.of();
    }
    if (affinity != null && affinity.getPodAntiAffinity() != null) {
      var pa = affinity.getPodAntiAffinity();
      requiredAntiAffinityTerms = terms(pa.getRequiredDuringSchedulingIgnoredDuringExecution(),
          base + "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution", errors);
      preferredAntiAffinityTerms = weighted(pa.getPreferredDuringSchedulingIgnoredDuringExecution(),
          base + "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution", errors);
    } else {
      requiredAntiAffinityTerms = List.of();
      preferredAntiAffinityTerms = List.of();
    }
    if (pod.getSpec() != null) {
      Taints.validateTolerations(pod.getSpec().getTolerations()).ifPresent(errors::add);
    }
    this.parseError = errors.isEmpty() ? null : String.join("; ", errors);
    List<ContainerPort> ports = List.of();
    List<String> claims = List.of();
    if (pod.getSpec() != null) {
      if (pod.getSpec().getContainers() != null) {
        for (Container c : pod.getSpec().getContainers()) {
          if (c.getPorts() != null && !c.getPorts().isEmpty()) {
            ports = ports.isEmpty() ? new ArrayList<>() : ports;
            ports.addAll(c.getPorts());
          }
        }
      }
      if (pod.getSpec().getVolumes() != null) {
        for (Volume v : pod.getSpec().getVolumes()) {
          if (v.getPersistentVolumeClaim() != null) {
            claims = claims.isEmpty() ? new ArrayList<>() : claims;
            claims.add(namespace() + "/" + v.getPersistentVolumeClaim().getClaimName());
          }
        }
      }
    }
    this.containerPorts = List.copyOf(ports);
    this.pvcKeys = List.copyOf(claims);
  }

  /** Every port of the pod's containers, in order; NodeInfo tracks their host ports. */
  public List<ContainerPort> containerPorts() {
    return containerPorts;
  }

  /** {@code namespace/claimName} of each PersistentVolumeClaim volume, in order. */
  public List<String> pvcKeys() {
    return pvcKeys;
  }

  /**
   * Derives the pod's requests and affinity terms. One cycle asks for the same pod's PodInfo several times (the queue,
   * NodeResourcesFit's PreFilter and PreScore, NodeResourcesBalancedAllocation, InterPodAffinity, the signers), and
   * parsing its quantities each time was ~2% of a cycle: the last PodInfos derived are kept in a small table by the
   * pod's identity, which is sound because a pod the scheduler sees is never mutated (see above).
   */
  public static PodInfo of(Pod pod) {
    int slot = System.identityHashCode(pod) & (RECENT.length - 1);
    PodInfo cached = RECENT[slot];
    if (cached != null && cached.pod == pod) {
      return cached;
    }
    PodInfo info = new PodInfo(pod);
    RECENT[slot] = info;
    return info;
  }

  /**
   * Makes {@code info} what {@link #of} returns for its pod while it stays in the table of recent
   * ones: a scheduling cycle hands over the PodInfo the queue derived when the pod arrived, so that
   * the plugins' and signers' {@code of} calls find it instead of parsing the pod again (by the
   * time a pod is popped, later arrivals have usually taken its slot).
   */
  public static void remember(PodInfo info) {
    RECENT[System.identityHashCode(info.pod) & (RECENT.length - 1)] = info;
  }

  // Recently derived PodInfos by the identity hash of their pod. Racy on purpose: PodInfo's fields are final, so a
  // reader sees either a whole PodInfo or an older one (a miss only costs deriving it again).
  private static final PodInfo[] RECENT = new PodInfo[64];

  /**
   * This pod's derived data for {@code assumed}, a copy of this pod that differs only in
   * {@code spec.nodeName} (the scheduler's assumed pod): nothing depends on the node name, so
   * nothing is derived again. A copy that differs in anything else needs {@link #of}.
   */
  public PodInfo forAssumed(Pod assumed) {
    return new PodInfo(assumed, this);
  }

  private PodInfo(Pod pod, PodInfo same) {
    this.pod = pod;
    this.priority = pod.getSpec() == null || pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority();
    this.uid = pod.getMetadata() == null ? null : pod.getMetadata().getUid();
    this.requests = same.requests;
    this.nonZeroRequests = same.nonZeroRequests;
    this.requiredAffinityTerms = same.requiredAffinityTerms;
    this.requiredAntiAffinityTerms = same.requiredAntiAffinityTerms;
    this.preferredAffinityTerms = same.preferredAffinityTerms;
    this.preferredAntiAffinityTerms = same.preferredAntiAffinityTerms;
    this.parseError = same.parseError;
    this.containerPorts = same.containerPorts;
    this.pvcKeys = same.pvcKeys;
  }

  public Pod pod() {
    return pod;
  }

  /** The pod's requests; callers must not mutate the returned object. */
  public Resource requests() {
    return requests;
  }

  /** The pod's requests with missing cpu/memory defaulted; callers must not mutate it. */
  public Resource nonZeroRequests() {
    return nonZeroRequests;
  }

  public List<AffinityTerm> requiredAffinityTerms() {
    return requiredAffinityTerms;
  }

  public List<AffinityTerm> requiredAntiAffinityTerms() {
    return requiredAntiAffinityTerms;
  }

  public List<WeightedAffinityTerm> preferredAffinityTerms() {
    return preferredAffinityTerms;
  }

  public List<WeightedAffinityTerm> preferredAntiAffinityTerms() {
    return preferredAntiAffinityTerms;
  }

  /** Whether the pod declares any pod affinity or anti-affinity term. */
  public boolean hasAffinity() {
    return !requiredAffinityTerms.isEmpty() || !requiredAntiAffinityTerms.isEmpty()
        || !preferredAffinityTerms.isEmpty() || !preferredAntiAffinityTerms.isEmpty();
  }

  /** What could not be parsed, naming the field; empty when the pod is well-formed. */
  public Optional<String> parseError() {
    return Optional.ofNullable(parseError);
  }

  /** The pod's namespace; "" when unset. */
  public String namespace() {
    String ns = pod.getMetadata().getNamespace();
    return ns == null ? "" : ns;
  }

  public String name() {
    return pod.getMetadata().getName();
  }

  public String uid() {
    return uid;
  }

  /** The pod's {@code spec.priority}, 0 when unset (as the scheduler's priority sort reads it). */
  public int priority() {
    return priority;
  }

  /** {@code namespace/name}. */
  public String key() {
    return namespace() + "/" + name();
  }

  private List<AffinityTerm> terms(List<PodAffinityTerm> terms, String field, List<String> errors) {
    if (terms == null || terms.isEmpty()) {
      return List.of();
    }
    List<AffinityTerm> out = new ArrayList<>(terms.size());
    for (int i = 0; i < terms.size(); i++) {
      try {
        out.add(compile(terms.get(i), field + "[" + i + "]"));
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
      }
    }
    return List.copyOf(out);
  }

  private List<WeightedAffinityTerm> weighted(List<WeightedPodAffinityTerm> terms, String field,
      List<String> errors) {
    if (terms == null || terms.isEmpty()) {
      return List.of();
    }
    List<WeightedAffinityTerm> out = new ArrayList<>(terms.size());
    for (int i = 0; i < terms.size(); i++) {
      WeightedPodAffinityTerm w = terms.get(i);
      String f = field + "[" + i + "]";
      try {
        if (w.getPodAffinityTerm() == null) {
          throw new IllegalArgumentException(f + ".podAffinityTerm: Required value");
        }
        int weight = w.getWeight() == null ? 0 : w.getWeight();
        out.add(new WeightedAffinityTerm(compile(w.getPodAffinityTerm(), f + ".podAffinityTerm"), weight));
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
      }
    }
    return List.copyOf(out);
  }

  private AffinityTerm compile(PodAffinityTerm term, String field) {
    String topologyKey = term.getTopologyKey();
    if (topologyKey == null || topologyKey.isEmpty()) {
      throw new IllegalArgumentException(field + ".topologyKey: Required value: can not be empty");
    }
    LabelMatcher selector = LabelSelectors.compile(term.getLabelSelector(), field + ".labelSelector");
    Set<String> namespaces;
    if ((term.getNamespaces() == null || term.getNamespaces().isEmpty())
        && term.getNamespaceSelector() == null) {
      namespaces = Set.of(namespace());
    } else {
      namespaces = term.getNamespaces() == null ? Set.of() : Set.copyOf(term.getNamespaces());
    }
    LabelMatcher nsSelector = LabelSelectors.compile(term.getNamespaceSelector(),
        field + ".namespaceSelector");
    return new AffinityTerm(namespaces, selector, topologyKey, nsSelector);
  }

  @Override
  public String toString() {
    return "PodInfo{" + key() + "}";
  }
}
