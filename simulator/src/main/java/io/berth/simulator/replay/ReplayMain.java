package io.berth.simulator.replay;

import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.config.SchedulerConfigException;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.record.RecordedEvent;
import io.berth.scheduler.record.RecordingReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code berth-replay --from FILE [--config A.yaml ...] [--json] [--seed N]}: replays a scheduler
 * recording ({@code berth-scheduler --record FILE}) through each configuration on its own copy of
 * the recorded cluster ({@link ReplayRun}) and prints, per configuration, the placements that differ
 * (from the recording, and from the first configuration), the pending pods and their reasons,
 * scheduling latency percentiles on the simulated clock, and packing quality ({@link Packing}).
 * Without {@code --config}, one run with the default configuration. Exit statuses: 0 done, 2 bad
 * input (unknown flag, missing or malformed recording, invalid configuration; the message names the
 * file and field), 1 a failure of the replay itself. Run as
 * {@code java -cp simulator/target/berth-simulator.jar io.berth.simulator.replay.ReplayMain}.
 * Confined to the main thread.
 */
@Command(name = "berth-replay", sortOptions = false, mixinStandardHelpOptions = true,
    description = "Replays a berth-scheduler --record stream through scheduler configurations and"
        + " compares placements, pending pods, latency and packing.")
public final class ReplayMain implements Callable<Integer> {
  /** Exit status for bad input, as the daemons'. */
  static final int BAD_INPUT = 2;

  @Option(names = "--from", required = true, paramLabel = "FILE",
      description = "The recording (JSON Lines, .gz for gzip'd) berth-scheduler --record wrote.")
  private Path from;

  @Option(names = "--config", paramLabel = "FILE",
      description = "A kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration; repeat to compare."
          + " Default: the default configuration.")
  private List<Path> configs = new ArrayList<>();

  @Option(names = "--json", description = "Print JSON instead of text.")
  private boolean json;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
      description = "Seed of the tie-break among equally scored nodes (default: ${DEFAULT-VALUE}).")
  private long seed;

  private final PrintStream out;
  private final PrintStream err;

  ReplayMain(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    ReplayLogging.toStandardError();
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command line, returning the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new ReplayMain(out, err));
    cl.setOut(new java.io.PrintWriter(out, true, StandardCharsets.UTF_8));
    cl.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
    return cl.execute(args);
  }

  @Override
  public Integer call() throws Exception {
    Registry registry = InTreeRegistry.create().loadOutOfTree(ReplayMain.class.getClassLoader());
    List<String> names = new ArrayList<>();
    List<SchedulerConfiguration> loaded = new ArrayList<>();
    if (configs.isEmpty()) {
      names.add("default");
      loaded.add(SchedulerConfigLoader.defaults(registry));
    }
    for (Path file : configs) {
      try {
        SchedulerConfiguration cfg = SchedulerConfigLoader.load(file, registry);
        SchedulerAssembly.validate(cfg, registry);
        names.add(file.toString());
        loaded.add(cfg);
      } catch (SchedulerConfigException e) {
        return bad("--config " + file + ": " + e.getMessage());
      } catch (IllegalArgumentException e) {
        return bad("--config " + file + ": " + e.getMessage());
      }
    }
    List<RecordedEvent> events;
    try {
      events = RecordingReader.readAll(from);
    } catch (RecordingReader.BadRecordingException e) {
      return bad("--from " + e.getMessage());
    }
    List<ReplayRun.Result> results = new ArrayList<>();
    for (int i = 0; i < loaded.size(); i++) {
      results.add(ReplayRun.run(names.get(i), loaded.get(i), registry, events, seed));
    }
    out.print(json ? ReplayReport.json(results) + "\n" : ReplayReport.text(results));
    out.flush();
    return 0;
  }

  private int bad(String message) {
    err.println("berth-replay: " + message);
    return BAD_INPUT;
  }
}
