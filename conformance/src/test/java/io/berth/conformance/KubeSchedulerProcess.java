package io.berth.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A second, real kube-scheduler (the binary conformance/build made) started with a {@code KubeSchedulerConfiguration}
 * file (whose {@code clientConnection.kubeconfig} names its identity, {@code system:kube-scheduler}), at {@code -v=10}, where it logs every node's final score for every pod it
 * scores. {@link #finalScores} reads them back, so that a test can tell the set of nodes with the top score (where
 * upstream breaks ties at random) from a placement upstream would always make. Thread-safe: immutable but for the
 * process, whose methods are.
 */
final class KubeSchedulerProcess implements AutoCloseable {

  /** klog's line for one node's summed, weighted score (schedule_one.go, at V(10)). */
  private static final Pattern FINAL_SCORE = Pattern.compile(
      "\"Calculated node's final score for pod\" pod=\"([^\"]+)\" node=\"([^\"]+)\" score=(\\d+)");

  private final Process process;
  private final Path log;

  private KubeSchedulerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static KubeSchedulerProcess start(ControlPlane plane, Path config, Path workDir) throws IOException {
    Path kubeconfig = plane.kubeconfig("kube-scheduler");
    Files.createDirectories(workDir);
    Path log = workDir.resolve("kube-scheduler.log");
    List<String> command = new ArrayList<>(List.of(plane.binaries().resolve("kube-scheduler").toString(),
        "--config", config.toString(),
        "--authentication-kubeconfig", kubeconfig.toString(), "--authorization-kubeconfig", kubeconfig.toString(),
        "--bind-address=127.0.0.1", "--secure-port=0", "--v=10"));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new KubeSchedulerProcess(process, log);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Final scores per node for {@code namespace/name}, from the log; empty when it scored none (one feasible node). */
  Map<String, Long> finalScores(String namespacedName) throws IOException {
    Map<String, Long> scores = new HashMap<>();
    try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
      lines.filter(l -> l.contains("Calculated node's final score for pod")).forEach(line -> {
        Matcher m = FINAL_SCORE.matcher(line);
        if (m.find() && m.group(1).equals(namespacedName)) {
          scores.put(m.group(2), Long.parseLong(m.group(3)));
        }
      });
    }
    return scores;
  }

  String tail() throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
