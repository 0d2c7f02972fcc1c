package io.berth.plugins.noderesources;

import io.berth.framework.NodeInfo;
import io.berth.framework.Resource;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.plugins.noderesources.ResourceScorers.ResourceScorer;
import java.util.List;

/**
 * What NodeResourcesFit's scoring strategies and NodeResourcesBalancedAllocation share (upstream's
 * resource_allocation.go): for each configured resource, the node's allocatable amount and what
 * is requested on it without and with the pod, handed to a {@link ResourceScorer}. With
 * {@code useRequested} false, cpu and memory count non-zero requests (a container without a
 * request counts 100m / 200Mi) on both the node and the pod; otherwise plain requests. An extended
 * resource the pod does not request, or one the node lacks, is left out. Immutable and
 * thread-safe; the NodeInfo is only read. The three per-node amount arrays handed to the
 * {@link ResourceScorer} are scratch space confined to the calling thread (one set per thread, rewritten on every
 * call; a scorer must not keep them): Score runs once per node on every Score worker, and three fresh arrays per
 * node and plugin were most of the scheduler's allocation.
 */
final class ResourceAllocationScorer {
  // immutable after construction: Score threads share it
  private final List<ResourceSpec> resources;
  private final boolean[] scalar;
  // which amount each resource reads (one of the KIND_ constants), resolved once here instead of
  // matching the name for every node
  private final int[] kinds;
  private final String[] names;
  private final boolean useRequested;
  private final ResourceScorer scorer;
  // per-thread scratch: {requested, allocated, allocatable}, each of kinds.length; confined to its thread
  private final ThreadLocal<long[][]> scratch;

  private static final int KIND_CPU = 0;
  private static final int KIND_MEMORY = 1;
  private static final int KIND_EPHEMERAL_STORAGE = 2;
  private static final int KIND_OTHER = 3;

  ResourceAllocationScorer(List<ResourceSpec> resources, boolean useRequested,
      ResourceScorer scorer) {
    this.resources = List.copyOf(resources);
    this.scalar = new boolean[resources.size()];
    this.kinds = new int[resources.size()];
    this.names = new String[resources.size()];
    for (int i = 0; i < scalar.length; i++) {
      String name = resources.get(i).name();
      scalar[i] = ResourceNames.isScalar(name);
      names[i] = name;
      kinds[i] = switch (name) {
        case Resource.CPU -> KIND_CPU;
        case Resource.MEMORY -> KIND_MEMORY;
        case Resource.EPHEMERAL_STORAGE -> KIND_EPHEMERAL_STORAGE;
        default -> KIND_OTHER;
      };
    }
    this.useRequested = useRequested;
    this.scorer = scorer;
    int n = resources.size();
    this.scratch = ThreadLocal.withInitial(() -> new long[][] {new long[n], new long[n], new long[n]});
  }

  /** The pod's request of each configured resource, in configuration order. */
  long[] podRequests(Resource plainRequests, Resource nonZeroRequests) {
    Resource pod = useRequested ? plainRequests : nonZeroRequests;
    long[] out = new long[resources.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = amount(pod, resources.get(i).name());
    }
    return out;
  }

  /** Scores {@code nodeInfo} for a pod requesting {@code podRequests}; throws on no resources. */
  long score(NodeInfo nodeInfo, long[] podRequests) {
    int n = kinds.length;
    if (n == 0) {
      throw new StatusException(Status.error("resources not found"));
    }
    Resource allocatable = nodeInfo.allocatable();
    Resource requested = nodeInfo.requested();
    Resource cpuMemoryRequested = useRequested ? requested : nodeInfo.nonZeroRequested();
    long[][] out = scratch.get();
    long[] requestedOut = out[0];
    long[] allocatedOut = out[1];
    long[] allocatableOut = out[2];
    for (int i = 0; i < n; i++) {
      // a resource left out below stays 0 in all three, as in fresh arrays
      requestedOut[i] = 0;
      allocatedOut[i] = 0;
      allocatableOut[i] = 0;
      long podRequest = podRequests[i];
      if (podRequest == 0 && scalar[i]) {
        continue; // an extended resource the pod does not want does not rank nodes
      }
      long alloc;
      long onNode;
      switch (kinds[i]) {
        case KIND_CPU -> {
          alloc = allocatable.milliCpu();
          onNode = cpuMemoryRequested.milliCpu();
        }
        case KIND_MEMORY -> {
          alloc = allocatable.memory();
          onNode = cpuMemoryRequested.memory();
        }
        case KIND_EPHEMERAL_STORAGE -> {
          alloc = allocatable.ephemeralStorage();
          onNode = requested.ephemeralStorage();
        }
        default -> {
          String name = names[i];
          if (!scalar[i] || !allocatable.scalarResources().containsKey(name)) {
            continue;
          }
          alloc = allocatable.scalar(name);
          onNode = requested.scalar(name);
        }
      }
      if (alloc == 0) {
        continue;
      }
      allocatableOut[i] = alloc;
      allocatedOut[i] = onNode;
      requestedOut[i] = onNode + podRequest;
    }
    return scorer.score(requestedOut, allocatedOut, allocatableOut);
  }

  /** A resource's amount by name; "pods" and other non-tracked names count 0. */
  static long amount(Resource r, String name) {
    return switch (name) {
      case Resource.CPU -> r.milliCpu();
      case Resource.MEMORY -> r.memory();
      case Resource.EPHEMERAL_STORAGE -> r.ephemeralStorage();
      default -> r.scalar(name);
    };
  }
}
