package io.berth.bench.workqueue;

import java.time.Duration;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code addAfter} of 100,000 distinct items with random delays up to 1 s from 4 threads, 4
 * workers taking them out, on a fresh queue per run. The primary score is the time from the first
 * {@code addAfter} to the last delivery (or to the give-up point, 1 s + 1 s grace after the last
 * {@code addAfter}). Each run also logs, on its own output line, how many of the 100,000 items
 * were delivered and the rate of the 100,000 {@code addAfter} calls. (JMH's auxiliary counters
 * would be summed over iterations in single-shot mode, which reads wrongly for a count.)
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class DelayedAddBenchmark {

  private static final Logger LOG = LoggerFactory.getLogger(DelayedAddBenchmark.class);

  static final int ITEMS = 100_000;
  static final int PRODUCERS = 4;
  static final int WORKERS = 4;
  static final Duration MAX_DELAY = Duration.ofSeconds(1);
  static final Duration GRACE = Duration.ofSeconds(1);

  @Param({BenchQueue.BERTH, BenchQueue.CLIENT_JAVA})
  public String queue;

  private DelayedAddRun run;
  private DelayedAddRun.Result result;

  @Setup(Level.Invocation)
  public void setUp() {
    run = new DelayedAddRun(BenchQueue.create(queue), ITEMS, PRODUCERS, WORKERS, MAX_DELAY, GRACE);
  }

  @TearDown(Level.Invocation)
  public void tearDown() throws InterruptedException {
    run.close();
    LOG.info(
        String.format(
            "delayed-add %s: delivered %d of %d (%.1f%%), addAfter %.0f calls/s, "
                + "last delivery after %.0f ms",
            queue,
            result.delivered(),
            result.items(),
            result.deliveredPercent(),
            result.addAfterPerSecond(),
            result.deliverNanos() / 1e6));
  }

  @Benchmark
  public void addAfterAndDeliver() throws InterruptedException {
    result = run.execute();
  }
}
