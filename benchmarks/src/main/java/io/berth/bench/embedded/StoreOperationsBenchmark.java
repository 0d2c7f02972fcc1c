package io.berth.bench.embedded;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.JulBridge;
import io.berth.embedded.server.DeleteOptions;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoredObject;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.node.ObjectNode;

/**
 * The embedded API server's operations at a fixed store size, in process (through
 * {@link EmbeddedCluster#operations()} and {@link EmbeddedCluster#store()}, no HTTP): a cluster is filled with
 * {@code podsInStore} pods, 1,000 in namespace {@code small} and the rest in {@code bench}, then each benchmark
 * repeats one operation on {@code bench} pods picked at random. {@code createThenDelete} creates a new pod and
 * deletes it again, so the size stays put; its score is the pair. {@code listSmallNamespace} lists the 1,000 pods of
 * {@code small} (the store's snapshot, without serialization). Sample-time mode, so JMH reports the mean and the
 * percentiles (p99 included).
 *
 * <p>Single benchmark thread: the store serializes writes under one lock anyway.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class StoreOperationsBenchmark {

  private static final String NAMESPACE = "bench";
  private static final String SMALL_NAMESPACE = "small";
  private static final int SMALL_NAMESPACE_PODS = 1_000;

  @Param({"10000", "50000"})
  public int podsInStore;

  // written in the trial set-up, then read (and random/next advanced) by the single benchmark thread only
  private EmbeddedCluster cluster;
  private ResourceOperations ops;
  private ObjectStore store;
  private String[] names;
  private final SplittableRandom random = new SplittableRandom(7);
  private long next;

  @Setup(Level.Trial)
  public void fill() {
    JulBridge.install();
    cluster = EmbeddedCluster.builder().start();
    ops = cluster.operations();
    store = cluster.store();
    for (String ns : new String[] {NAMESPACE, SMALL_NAMESPACE}) {
      ObjectNode namespace = Json.object();
      namespace.putObject("metadata").put("name", ns);
      ops.create(ResourceTypes.NAMESPACES, "", namespace);
    }
    for (int i = 0; i < SMALL_NAMESPACE_PODS; i++) {
      ops.create(ResourceTypes.PODS, SMALL_NAMESPACE, BenchPods.tree(BenchPods.name("pod", i)));
    }
    names = new String[podsInStore - SMALL_NAMESPACE_PODS];
    for (int i = 0; i < names.length; i++) {
      names[i] = BenchPods.name("pod", i);
      ops.create(ResourceTypes.PODS, NAMESPACE, BenchPods.tree(names[i]));
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    if (store.count(ResourceTypes.PODS) != podsInStore) {
      throw new IllegalStateException("the store holds " + store.count(ResourceTypes.PODS) + " pods, expected "
          + podsInStore);
    }
    cluster.close();
  }

  private String anyPod() {
    return names[random.nextInt(names.length)];
  }

  @Benchmark
  public Optional<StoredObject> get() {
    return store.get(ResourceTypes.PODS, NAMESPACE, anyPod());
  }

  @Benchmark
  public Optional<StoredObject> update() {
    String touch = Long.toString(next++);
    return ops.mutate(ResourceTypes.PODS, NAMESPACE, anyPod(), pod -> {
      Json.objectAt(pod, "metadata", "annotations").put("bench/touch", touch);
      return pod;
    }, false);
  }

  /** A list of the 1,000 pods of one namespace, whatever the store holds besides: its cost is its result. */
  @Benchmark
  public ObjectStore.Snapshot listSmallNamespace() {
    ObjectStore.Snapshot snapshot = store.list(ResourceTypes.PODS, SMALL_NAMESPACE, pod -> true);
    if (snapshot.items().size() != SMALL_NAMESPACE_PODS) {
      throw new IllegalStateException("listed " + snapshot.items().size() + " pods");
    }
    return snapshot;
  }

  @Benchmark
  public ResourceOperations.DeleteResult createThenDelete() {
    String name = "extra-" + next++;
    ops.create(ResourceTypes.PODS, NAMESPACE, BenchPods.tree(name));
    return ops.delete(ResourceTypes.PODS, NAMESPACE, name, DeleteOptions.DEFAULT);
  }
}
