package io.berth.bench.workqueue;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * add/get/done throughput in items per second: {@code producers} threads add distinct items, 4
 * worker threads get and done them, for Berth's rate-limiting queue and client-java's {@code
 * DefaultRateLimitingQueue} in the same harness ({@link ThroughputHarness}). One operation is one
 * item through the whole cycle.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class WorkQueueThroughputBenchmark {

  static final int WORKERS = 4;
  /** Items per round; divisible by every producer count. */
  static final int ITEMS = 96_000;

  @Param({"1", "4", "16"})
  public int producers;

  @Param({BenchQueue.BERTH, BenchQueue.CLIENT_JAVA})
  public String queue;

  private ThroughputHarness harness;

  @Setup(Level.Trial)
  public void setUp() {
    harness = new ThroughputHarness(BenchQueue.create(queue), producers, WORKERS, ITEMS);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    harness.close();
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public void addGetDone() throws InterruptedException {
    harness.runRound();
  }
}
