package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of Berth's daemon jars started as the process users run ({@code java -jar ... --port 0}), its merged output in
 * a file. {@link #close()} sends SIGTERM and checks the exit status the command-line contract promises (0).
 * Thread-safe: immutable but for the process, whose methods are.
 */
final class JarProcess implements AutoCloseable {

  private static final Duration STARTUP = Duration.ofSeconds(90);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final String name;
  private final Process process;
  private final Path log;

  private JarProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** The scheduler jar (failsafe's {@code berth.schedulerJar}). */
  static Path schedulerJar() {
    return Path.of(System.getProperty("berth.schedulerJar", "../scheduler/target/berth-scheduler.jar"));
  }

  /** The controller manager jar (failsafe's {@code berth.controllerManagerJar}). */
  static Path controllerManagerJar() {
    return Path.of(System.getProperty("berth.controllerManagerJar",
        "../controller-manager/target/berth-controller-manager.jar"));
  }

  /** Starts {@code jar} with {@code args} and {@code --port 0}, logging to {@code logDir/name.log}. */
  static JarProcess start(String name, Path jar, Path logDir, String... args) throws IOException {
    assertThat(jar).as("the runnable jar (built by package)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString(), "--port", "0"));
    command.addAll(List.of(args));
    Files.createDirectories(logDir);
    Path log = logDir.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("KUBERNETES_SERVICE_HOST");
    return new JarProcess(name, builder.start(), log);
  }

  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<output unreadable: " + e + ">";
    }
  }

  /** Waits until {@code /readyz} answers 200 (informers synced, leading if electing); returns the port. */
  int awaitReady() {
    await().atMost(STARTUP).until(() -> port() > 0 || !process.isAlive());
    assertThat(port()).as("%s logged its port; output:\n%s", name, output()).isPositive();
    int port = port();
    await().atMost(STARTUP).until(() -> !process.isAlive() || status(port, "/readyz") == 200);
    assertThat(process.isAlive()).as("%s is running; output:\n%s", name, output()).isTrue();
    return port;
  }

  /** The body of {@code GET path} on the plain port. */
  String get(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private int port() {
    Matcher m = LISTENING.matcher(output());
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  private static int status(int port, String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** SIGTERM; asserts exit status 0 within 30 s (then kills it). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    boolean exited = process.waitFor(30, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(exited).as("%s exited on SIGTERM; output:\n%s", name, output()).isTrue();
    assertThat(process.exitValue()).as("%s's exit status on SIGTERM; output:\n%s", name, output()).isZero();
  }
}
