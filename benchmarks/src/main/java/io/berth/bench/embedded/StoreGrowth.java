package io.berth.bench.embedded;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.server.DeleteOptions;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoredObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import tools.jackson.databind.node.ObjectNode;

/**
 * One in-process growth run on a fresh embedded cluster: pods are created in blocks of {@value #BLOCK} into one
 * namespace until the store holds {@code target} of them, and after every block the run times, on pods picked at
 * random, {@value #GETS_PER_BLOCK} point reads ({@link ObjectStore#get}), {@value #UPDATES_PER_BLOCK}
 * read-modify-write updates ({@link ResourceOperations#mutate}) and {@value #DELETES_PER_BLOCK} deletions
 * ({@link ResourceOperations#delete}, each followed by a create of a new pod so that the size keeps growing). Every
 * sample lands in the slice of {@code sliceSize} pods the store size was in when it was taken, so the result is a
 * latency curve per operation against the store size. Everything bypasses HTTP but runs the server's full write
 * path (validation, defaults, store listeners: garbage collector, simulated kubelet, watch hub).
 *
 * <p>Used once, from one thread.
 */
final class StoreGrowth {

  static final String NAMESPACE = "bench";
  static final int BLOCK = 1_000;
  static final int GETS_PER_BLOCK = 500;
  static final int UPDATES_PER_BLOCK = 500;
  static final int DELETES_PER_BLOCK = 100;

  /** The samples of one run, per slice of store size. */
  record Result(int sliceSize, Latencies[] creates, Latencies[] gets, Latencies[] updates, Latencies[] deletes,
      long fillNanos, int created, long heapBytes) {

    /** The pooled samples of slices {@code [fromSlice, toSlice)} of {@code kind}. */
    static Latencies pool(Latencies[] kind, int fromSlice, int toSlice) {
      Latencies pooled = new Latencies();
      for (int s = fromSlice; s < toSlice; s++) {
        pooled.merge(kind[s]);
      }
      return pooled;
    }
  }

  private final int target;
  private final int sliceSize;
  // random, live, nextName and touches are confined to the thread that calls run()
  private final SplittableRandom random = new SplittableRandom(42);
  private final List<String> live = new ArrayList<>();
  private int nextName;
  private long touches;

  StoreGrowth(int target, int sliceSize) {
    this.target = target;
    this.sliceSize = sliceSize;
  }

  Result run() {
    int slices = (target + sliceSize - 1) / sliceSize;
    Latencies[] creates = newSlices(slices);
    Latencies[] gets = newSlices(slices);
    Latencies[] updates = newSlices(slices);
    Latencies[] deletes = newSlices(slices);
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      ResourceOperations ops = cluster.operations();
      ObjectStore store = cluster.store();
      ObjectNode namespace = Json.object();
      namespace.putObject("metadata").put("name", NAMESPACE);
      ops.create(ResourceTypes.NAMESPACES, "", namespace);
      long start = System.nanoTime();
      while (live.size() < target) {
        int block = Math.min(BLOCK, target - live.size());
        for (int i = 0; i < block; i++) {
          create(ops, creates[slice(slices)]);
        }
        Latencies getSlice = gets[slice(slices)];
        for (int i = 0; i < GETS_PER_BLOCK; i++) {
          get(store, getSlice);
        }
        Latencies updateSlice = updates[slice(slices)];
        for (int i = 0; i < UPDATES_PER_BLOCK; i++) {
          update(ops, updateSlice);
        }
        for (int i = 0; i < DELETES_PER_BLOCK; i++) {
          delete(ops, deletes[slice(slices)]);
          create(ops, creates[slice(slices)]);
        }
      }
      long fill = System.nanoTime() - start;
      if (store.count(ResourceTypes.PODS) != target) {
        throw new IllegalStateException("the store holds " + store.count(ResourceTypes.PODS) + " pods, expected "
            + target);
      }
      return new Result(sliceSize, creates, gets, updates, deletes, fill, nextName, usedHeapAfterGc());
    }
  }

  /** Heap in use after a full collection, with the store still open: what the store (and its history) holds. */
  private static long usedHeapAfterGc() {
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static Latencies[] newSlices(int slices) {
    Latencies[] out = new Latencies[slices];
    for (int i = 0; i < slices; i++) {
      out[i] = new Latencies();
    }
    return out;
  }

  private int slice(int slices) {
    return Math.min(slices - 1, live.size() / sliceSize);
  }

  private void create(ResourceOperations ops, Latencies into) {
    String name = BenchPods.name("pod", nextName++);
    ObjectNode body = BenchPods.tree(name);
    long t0 = System.nanoTime();
    ops.create(ResourceTypes.PODS, NAMESPACE, body);
    into.add(System.nanoTime() - t0);
    live.add(name);
  }

  private void get(ObjectStore store, Latencies into) {
    String name = live.get(random.nextInt(live.size()));
    long t0 = System.nanoTime();
    Optional<StoredObject> pod = store.get(ResourceTypes.PODS, NAMESPACE, name);
    into.add(System.nanoTime() - t0);
    if (pod.isEmpty()) {
      throw new IllegalStateException("pod " + name + " is missing");
    }
  }

  private void update(ResourceOperations ops, Latencies into) {
    String name = live.get(random.nextInt(live.size()));
    String touch = Long.toString(touches++);
    long t0 = System.nanoTime();
    Optional<StoredObject> updated = ops.mutate(ResourceTypes.PODS, NAMESPACE, name, pod -> {
      Json.objectAt(pod, "metadata", "annotations").put("bench/touch", touch);
      return pod;
    }, false);
    into.add(System.nanoTime() - t0);
    if (updated.isEmpty()) {
      throw new IllegalStateException("pod " + name + " is missing");
    }
  }

  private void delete(ResourceOperations ops, Latencies into) {
    int index = random.nextInt(live.size());
    String name = live.get(index);
    long t0 = System.nanoTime();
    ResourceOperations.DeleteResult result = ops.delete(ResourceTypes.PODS, NAMESPACE, name, DeleteOptions.DEFAULT);
    into.add(System.nanoTime() - t0);
    if (!result.removed()) {
      throw new IllegalStateException("pod " + name + " was not removed by its deletion");
    }
    live.set(index, live.get(live.size() - 1));
    live.remove(live.size() - 1);
  }
}
