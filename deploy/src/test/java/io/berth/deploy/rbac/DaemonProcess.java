package io.berth.deploy.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
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
 * A daemon jar started as the process users run ({@code java -jar ...}), its stdout and stderr merged into a file.
 * The environment drops {@code KUBECONFIG} and the in-cluster variables so that only the flags decide which API
 * server and identity the daemon uses. Confined to the test thread; {@link #close()} kills what is still running.
 */
final class DaemonProcess implements AutoCloseable {
  private static final Duration STARTUP = Duration.ofSeconds(90);
  private static final Pattern SECURE = Pattern.compile("secure serving on :(\\d+)");

  private final String name;
  private final Process process;
  private final Path log;

  private DaemonProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code jar} with {@code args}; the log goes to {@code dir/<name>.log}. */
  static DaemonProcess start(String name, Path jar, Path dir, List<String> args) throws IOException {
    assertThat(jar).as("the runnable jar of %s (built by package)", name).isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString()));
    command.addAll(args);
    Path log = dir.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("KUBERNETES_SERVICE_HOST");
    builder.environment().remove("KUBERNETES_SERVICE_PORT");
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    return new DaemonProcess(name, builder.start(), log);
  }

  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<output unreadable: " + e + ">";
    }
  }

  /** The HTTPS port the daemon logged ({@code secure serving on :PORT}). */
  int awaitSecurePort() {
    await().atMost(STARTUP).until(() -> SECURE.matcher(output()).find() || !process.isAlive());
    Matcher m = SECURE.matcher(output());
    assertThat(m.find()).as("%s logged its secure port; output:\n%s", name, output()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Sends SIGTERM and returns the exit status. */
  int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    assertThat(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)).as("%s exited; output:\n%s", name,
        output()).isTrue();
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
