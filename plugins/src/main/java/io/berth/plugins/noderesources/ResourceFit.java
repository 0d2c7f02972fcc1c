package io.berth.plugins.noderesources;

import io.berth.framework.Quantities;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fit check of NodeResourcesFit (upstream's {@code fitsRequest}): the pod count, then cpu,
 * memory and ephemeral storage, then scalar resources in name order, each compared with what is
 * left of the node's allocatable. A resource the pod does not request (amount 0) is not checked;
 * an extended resource named in {@code ignoredResources}, or whose domain is in
 * {@code ignoredResourceGroups}, is skipped. Which scalars to check depends only on the pod and
 * the arguments, so it is computed once per cycle ({@link #scalarsToCheck}). Stateless; the
 * arguments are only read.
 */
final class ResourceFit {
  static final String TOO_MANY_PODS = "Too many pods";
  static final String INSUFFICIENT_PREFIX = "Insufficient ";
  // "Insufficient <name>" for every resource name seen: a node that lacks room is reported with
  // it on every Filter call (preemption's failing attempts reject every node), so the reason is
  // built once per name instead of concatenated per node; the names are the pods' resource
  // names, a small set (past MAX_REASONS names the rest are concatenated). Thread-safe (concurrent map; Filter runs on many threads).
  private static final java.util.concurrent.ConcurrentMap<String, String> REASONS =
      new java.util.concurrent.ConcurrentHashMap<>();
  static final int MAX_REASONS = 256;

  private ResourceFit() {}

  /**
   * The scalar resources of {@code podRequest} the fit check looks at, sorted by name (so that
   * several insufficient scalars are reported in a stable order): requested (non-zero), tracked
   * by the scheduler, and not ignored.
   */
  static List<String> scalarsToCheck(Resource podRequest, Set<String> ignoredResources,
      Set<String> ignoredResourceGroups) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Long> e : new TreeMap<>(podRequest.scalarResources()).entrySet()) {
      String name = e.getKey();
      if (e.getValue() == 0 || !ResourceNames.isScalar(name)) {
        continue;
      }
      if (ResourceNames.isExtended(name) && (ignoredResources.contains(name)
          || ignoredResourceGroups.contains(ResourceNames.group(name)))) {
        continue;
      }
      out.add(name);
    }
    return List.copyOf(out);
  }

  /**
   * Every resource the node lacks for {@code podRequest}, given the {@code podCount} pods and
   * their {@code nodeRequested} sum already there; empty when the pod fits. Of the scalar
   * resources only {@code scalars} (from {@link #scalarsToCheck}) are checked.
   */
  static List<InsufficientResource> insufficient(Resource podRequest, List<String> scalars,
      int podCount, Resource nodeRequested, Resource allocatable) {
    List<InsufficientResource> out = new ArrayList<>(4);
    long allowedPods = allocatable.allowedPodNumber();
    if (podCount + 1L > allowedPods) {
      out.add(new InsufficientResource(Resource.PODS, TOO_MANY_PODS, 1, podCount, allowedPods));
    }
    check(out, Resource.CPU, podRequest.milliCpu(), nodeRequested.milliCpu(),
        allocatable.milliCpu());
    check(out, Resource.MEMORY, podRequest.memory(), nodeRequested.memory(),
        allocatable.memory());
    check(out, Resource.EPHEMERAL_STORAGE, podRequest.ephemeralStorage(),
        nodeRequested.ephemeralStorage(), allocatable.ephemeralStorage());
    for (String name : scalars) {
      check(out, name, podRequest.scalar(name), nodeRequested.scalar(name),
          allocatable.scalar(name));
    }
    return out;
  }

  /** What {@link #soleReason} returns when the node lacks more than one resource. */
  static final String SEVERAL = new String("several insufficient resources");
  private static final String CPU_REASON = reason(Resource.CPU);
  private static final String MEMORY_REASON = reason(Resource.MEMORY);
  private static final String EPHEMERAL_STORAGE_REASON = reason(Resource.EPHEMERAL_STORAGE);

  /**
   * What {@link #insufficient} would report, told without building it: null when the pod fits, the reason when one
   * resource lacks room, {@link #SEVERAL} (compare by identity) when more do. Filter's answer for a rejected node
   * needs no list then: preemption's failing attempts reject every node, each with one shared status.
   */
  static String soleReason(Resource podRequest, List<String> scalars, int podCount,
      Resource nodeRequested, Resource allocatable) {
    String found = podCount + 1L > allocatable.allowedPodNumber() ? TOO_MANY_PODS : null;
    if (lacks(podRequest.milliCpu(), nodeRequested.milliCpu(), allocatable.milliCpu())) {
      if (found != null) {
        return SEVERAL;
      }
      found = CPU_REASON;
    }
    if (lacks(podRequest.memory(), nodeRequested.memory(), allocatable.memory())) {
      if (found != null) {
        return SEVERAL;
      }
      found = MEMORY_REASON;
    }
    if (lacks(podRequest.ephemeralStorage(), nodeRequested.ephemeralStorage(),
        allocatable.ephemeralStorage())) {
      if (found != null) {
        return SEVERAL;
      }
      found = EPHEMERAL_STORAGE_REASON;
    }
    for (int i = 0; i < scalars.size(); i++) {
      String name = scalars.get(i);
      if (lacks(podRequest.scalar(name), nodeRequested.scalar(name), allocatable.scalar(name))) {
        if (found != null) {
          return SEVERAL;
        }
        found = reason(name);
      }
    }
    return found;
  }

  private static boolean lacks(long request, long used, long capacity) {
    return request > 0 && request > capacity - used;
  }

  private static void check(List<InsufficientResource> out, String name, long request, long used,
      long capacity) {
    if (request > 0 && request > capacity - used) {
      out.add(new InsufficientResource(name, reason(name), request, used, capacity));
    }
  }

  /** {@code "Insufficient " + name}; the same instance on every call for the first names seen. */
  static String reason(String name) {
    String r = REASONS.get(name);
    if (r != null) {
      return r;
    }
    return REASONS.size() < MAX_REASONS
        ? REASONS.computeIfAbsent(name, n -> INSUFFICIENT_PREFIX + n) : INSUFFICIENT_PREFIX + name;
  }

  /** The node's allocatable resources; throws naming the field on a malformed quantity. */
  static Resource allocatableOf(Node node) {
    Resource allocatable = new Resource();
    if (node.getStatus() == null || node.getStatus().getAllocatable() == null) {
      return allocatable;
    }
    String nodeName = node.getMetadata() == null ? "" : node.getMetadata().getName();
    for (Map.Entry<String, Quantity> e : node.getStatus().getAllocatable().entrySet()) {
      String field = "node " + nodeName + ": status.allocatable." + e.getKey();
      allocatable.set(e.getKey(), Quantities.forResource(e.getKey(), e.getValue(), field));
    }
    return allocatable;
  }
}
