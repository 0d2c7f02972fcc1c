package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulator jar started as users start it ({@code java -jar simulator/target/berth-simulator.jar ARGS}), its
 * output in a log file under {@code target/}; {@link #dashboardUrl} waits for the line that prints the dashboard's
 * address. Closing sends SIGTERM and waits. Not thread-safe: one test thread.
 */
final class SimulatorProcess implements AutoCloseable {

  static final Path JAR = Path.of("target", "berth-simulator.jar");
  private static final Pattern DASHBOARD = Pattern.compile("^dashboard: +(http://\\S+)$", Pattern.MULTILINE);
  private static final Pattern KUBECONFIG = Pattern.compile("^kubeconfig: +(\\S+)$", Pattern.MULTILINE);

  private final Process process;
  private final Path log;

  private SimulatorProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static SimulatorProcess start(String... args) throws IOException {
    assertThat(JAR).as("the runnable jar (built by package)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Path dir = Files.createDirectories(Path.of("target", "simulator-it"));
    Path log = Files.createTempFile(dir, "simulator-", ".log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new SimulatorProcess(p, log);
  }

  String output() throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  /** Waits for the dashboard's address to be printed. */
  String dashboardUrl() throws Exception {
    return await(DASHBOARD);
  }

  String kubeconfig() throws Exception {
    return await(KUBECONFIG);
  }

  private String await(Pattern pattern) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(180));
    while (Instant.now().isBefore(deadline)) {
      Matcher m = pattern.matcher(output());
      if (m.find()) {
        return m.group(1);
      }
      if (!process.isAlive()) {
        throw new AssertionError("the simulator exited with " + process.exitValue() + ":\n" + output());
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no " + pattern + " in the simulator's output:\n" + output());
  }

  /** Waits for the process to exit by itself; empty if it is still running after {@code timeout}. */
  Optional<Integer> exitCode(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(process.exitValue())
        : Optional.empty();
  }

  static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
