package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The shared flags as a daemon sees them: parsed by {@link DaemonCommandLine} through the mixin. */
class DaemonOptionsTest {

  @Command(name = "test-daemon")
  static final class TestDaemon implements Callable<Integer> {
    @Mixin
    DaemonOptions options = new DaemonOptions(10257, "test-lease");
    DaemonSettings settings;

    @Override
    public Integer call() {
      settings = options.settings("test-daemon");
      return 0;
    }
  }

  private record Run(int status, DaemonSettings settings, String err) {
  }

  private static Run run(String... args) {
    TestDaemon daemon = new TestDaemon();
    CommandLine cmd = DaemonCommandLine.create(daemon);
    StringWriter err = new StringWriter();
    cmd.setErr(new PrintWriter(err));
    int status = cmd.execute(args);
    return new Run(status, daemon.settings, err.toString());
  }

  @Test
  void defaultsAreKubeControllerManagers() {
    Run run = run();
    assertThat(run.status()).isZero();
    DaemonSettings s = run.settings();
    assertThat(s.port()).isEqualTo(10257);
    assertThat(s.client().kubeconfig()).isEmpty();
    assertThat(s.client().qps()).isEqualTo(20.0);
    assertThat(s.client().burst()).isEqualTo(30);
    LeaderElectionSettings le = s.leaderElection();
    assertThat(le.enabled()).isTrue();
    assertThat(le.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(le.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(le.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
    assertThat(le.resourceNamespace()).isEqualTo("kube-system");
    assertThat(le.resourceName()).isEqualTo("test-lease");
  }

  @ParameterizedTest
  @CsvSource({"--leader-elect=false, false", "--leader-elect=true, true", "--leader-elect, true",
      "--no-leader-elect, false"})
  void leaderElectIsANegatableBoolean(String flag, boolean expected) {
    Run run = run(flag);
    assertThat(run.status()).isZero();
    assertThat(run.settings().leaderElection().enabled()).isEqualTo(expected);
  }

  @Test
  void everyFlagIsParsed() {
    Run run = run("--kubeconfig", "/tmp/kc", "--port=0", "--kube-api-qps=50.5", "--kube-api-burst", "100",
        "--leader-elect-lease-duration=1m30s", "--leader-elect-renew-deadline=1m", "--leader-elect-retry-period=500ms",
        "--leader-elect-resource-namespace=berth", "--leader-elect-resource-name=other");
    assertThat(run.status()).as(run.err()).isZero();
    DaemonSettings s = run.settings();
    assertThat(s.client().kubeconfig()).isEqualTo(Optional.of(Path.of("/tmp/kc")));
    assertThat(s.port()).isZero();
    assertThat(s.client().qps()).isEqualTo(50.5);
    assertThat(s.client().burst()).isEqualTo(100);
    assertThat(s.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(90));
    assertThat(s.leaderElection().renewDeadline()).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.leaderElection().retryPeriod()).isEqualTo(Duration.ofMillis(500));
    assertThat(s.leaderElection().resourceNamespace()).isEqualTo("berth");
    assertThat(s.leaderElection().resourceName()).isEqualTo("other");
  }

  @Test
  void aRepeatedFlagTakesItsLastValueAsGoFlagsDo() {
    Run run = run("--port=1", "--port=2");
    assertThat(run.status()).isZero();
    assertThat(run.settings().port()).isEqualTo(2);
  }

  @Test
  void unknownFlagIsAUsageErrorNamingIt() {
    Run run = run("--bogus-flag");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains("--bogus-flag");
    assertThat(run.settings()).isNull();
  }

  @ParameterizedTest
  @CsvSource({"--leader-elect-lease-duration=15", "--leader-elect-renew-deadline=ten", "--leader-elect-retry-period=2x",
      "--port=http", "--kube-api-burst=1.5", "--leader-elect=maybe"})
  void unconvertibleValueIsAUsageErrorNamingTheFlag(String arg) {
    Run run = run(arg);
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains(arg.substring(0, arg.indexOf('=')));
  }

  @ParameterizedTest
  @CsvSource({
      "--leader-elect-lease-duration=10s, --leader-elect-lease-duration",
      "--leader-elect-renew-deadline=2s, --leader-elect-renew-deadline",
      "--leader-elect-retry-period=0s, --leader-elect-retry-period",
      "--leader-elect-lease-duration=-1s, --leader-elect-lease-duration",
      "--leader-elect-resource-name=, --leader-elect-resource-name",
      "--port=65536, --port",
      "--kube-api-burst=-1, --kube-api-burst"})
  void inconsistentValuesAreUsageErrorsNamingTheFlag(String arg, String flag) {
    Run run = run(arg);
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains(flag);
  }

  @Test
  void leaseTimingsAreNotCheckedWhenElectionIsOff() {
    Run run = run("--leader-elect=false", "--leader-elect-lease-duration=1s");
    assertThat(run.status()).isZero();
    assertThat(run.settings().leaderElection().enabled()).isFalse();
  }

  @Test
  void renewDeadlineMustExceedJitteredRetryPeriod() {
    // 2.4s = 1.2 x 2s is not enough; 2.5s is.
    assertThat(run("--leader-elect-renew-deadline=2400ms").status()).isEqualTo(2);
    assertThat(run("--leader-elect-renew-deadline=2500ms").status()).isZero();
  }

  @Test
  void helpShowsTheDaemonsDefaults() {
    TestDaemon daemon = new TestDaemon();
    String usage = new CommandLine(daemon).getUsageMessage().replaceAll("\\s+", " ");
    assertThat(usage).contains("--port=N").contains("Default: 10257").contains("Default: test-lease")
        .contains("--[no-]leader-elect");
  }
}
