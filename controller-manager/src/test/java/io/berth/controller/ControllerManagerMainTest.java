package io.berth.controller;

import io.berth.component.RecordingExiter;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.component.DaemonSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The controller manager's command line: flags, defaults and exit statuses, without running a daemon. */
class ControllerManagerMainTest {

  private static final ControllerFactory NONE = context -> {
    throw new UnsupportedOperationException();
  };

  private final RecordingExiter exiter = new RecordingExiter();
  private final StringWriter err = new StringWriter();

  private static ControllerRegistry registry() {
    return new ControllerRegistry().register("replicaset", NONE).register("deployment", NONE);
  }

  private CommandLine commandLine() {
    CommandLine cmd = ControllerManagerMain.commandLine(registry(), new LoggingEventRecorderFactory(), exiter,
        false);
    cmd.setErr(new PrintWriter(err));
    return cmd;
  }

  private ControllerManagerSettings parse(String... args) {
    CommandLine cmd = commandLine();
    cmd.parseArgs(args);
    return ((ControllerManagerMain) cmd.getCommand()).settings();
  }

  @Test
  void defaultsAreKubeControllerManagers() {
    ControllerManagerSettings s = parse();
    DaemonSettings d = s.daemon();
    assertThat(d.component()).isEqualTo("berth-controller-manager");
    assertThat(d.port()).isEqualTo(10257);
    assertThat(d.leaderElection().enabled()).isTrue();
    assertThat(d.leaderElection().resourceName()).isEqualTo("berth-controller-manager");
    assertThat(d.leaderElection().resourceNamespace()).isEqualTo("kube-system");
    assertThat(d.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(d.leaderElection().renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.leaderElection().retryPeriod()).isEqualTo(Duration.ofSeconds(2));
    assertThat(d.client().qps()).isEqualTo(20.0);
    assertThat(d.client().burst()).isEqualTo(30);
    assertThat(s.controllers()).containsExactly("deployment", "replicaset");
    assertThat(s.workers("replicaset")).isEqualTo(5);
    assertThat(s.workers("deployment")).isEqualTo(5);
  }

  @Test
  void theContractsFlagsAreParsed() {
    ControllerManagerSettings s = parse("--kubeconfig", "/tmp/kc", "--controllers", "*,-deployment",
        "--concurrent-deployment-syncs", "7", "--concurrent-replicaset-syncs=3", "--leader-elect=false",
        "--port", "0");
    assertThat(s.daemon().client().kubeconfig()).hasValueSatisfying(p -> assertThat(p).hasToString("/tmp/kc"));
    assertThat(s.controllers()).containsExactly("replicaset");
    assertThat(s.workers("deployment")).isEqualTo(7);
    assertThat(s.workers("replicaset")).isEqualTo(3);
    assertThat(s.daemon().leaderElection().enabled()).isFalse();
    assertThat(s.daemon().port()).isZero();
  }

  @Test
  void anUnknownFlagExitsTwoNamingIt() {
    assertThat(commandLine().execute("--bogus-flag")).isEqualTo(2);
    assertThat(err.toString()).contains("--bogus-flag");
    assertThat(exiter.statuses()).as("usage errors leave exiting to main").isEmpty();
  }

  @Test
  void anUnknownControllerExitsTwoNamingIt() {
    assertThat(commandLine().execute("--controllers=nope")).isEqualTo(2);
    assertThat(err.toString()).contains("--controllers").contains("\"nope\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"--concurrent-deployment-syncs=0", "--concurrent-replicaset-syncs=-1",
      "--concurrent-replicaset-syncs=many", "--leader-elect-lease-duration=fifteen"})
  void anUnusableValueExitsTwoNamingTheFlag(String arg) {
    assertThat(commandLine().execute(arg)).isEqualTo(2);
    assertThat(err.toString()).contains(arg.substring(0, arg.indexOf('=')));
  }

  @Test
  void aMissingKubeconfigExitsTwoNamingTheFlagBeforeStartingAnything() {
    assertThat(commandLine().execute("--kubeconfig=/nonexistent/kubeconfig", "--port=0")).isEqualTo(2);
    assertThat(err.toString()).contains("--kubeconfig").contains("/nonexistent/kubeconfig");
    assertThat(exiter.statuses()).isEmpty();
  }

  @Test
  void helpExitsZero() {
    StringWriter out = new StringWriter();
    CommandLine cmd = commandLine();
    cmd.setOut(new PrintWriter(out));
    assertThat(cmd.execute("--help")).isZero();
    assertThat(out.toString()).contains("--concurrent-replicaset-syncs").contains("--leader-elect-retry-period");
  }
}
