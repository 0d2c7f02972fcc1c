package io.berth.controller;

import io.berth.component.RecordingExiter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import picocli.CommandLine;

/** Building in-process controller managers from command-line flags, and asking their endpoint. Stateless. */
final class Managers {

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Managers() {
  }

  /** Settings as {@code berth-controller-manager args} would parse them against {@code registry}. */
  static ControllerManagerSettings settings(ControllerRegistry registry, String... args) {
    CommandLine cmd = ControllerManagerMain.commandLine(registry, new LoggingEventRecorderFactory(), status -> { },
        false);
    cmd.setErr(new PrintWriter(new StringWriter()));
    cmd.parseArgs(args);
    return ((ControllerManagerMain) cmd.getCommand()).settings();
  }

  /** A manager for several-per-JVM tests: no shutdown hook, a 5 s drain. */
  static ControllerManager manager(ControllerRegistry registry, RecordingExiter exiter, String... args) {
    return ControllerManager.builder(settings(registry, args), registry).exiter(exiter).installShutdownHook(false)
        .drainTimeout(Duration.ofSeconds(5)).build();
  }

  static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static int status(int port, String path) {
    try {
      return get(port, path).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }
}
