package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The secure serving flags through the shared mixin: defaults, the compatibility rule, and exit-2 messages. */
class SecureServingOptionsTest {

  @TempDir
  Path dir;

  @Command(name = "test-daemon")
  static final class TestDaemon implements Callable<Integer> {
    @Mixin
    DaemonOptions options = new DaemonOptions(10259, "test-lease");
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
  void withoutSecurePortOnlyPlainHttpServesAsBefore() {
    Run run = run();
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.settings().plainServing()).isTrue();
    assertThat(run.settings().port()).isEqualTo(10259);
    assertThat(run.settings().secureServing()).isEmpty();
  }

  @Test
  void secureFlagsWithoutSecurePortAreCheckedButDoNotServe() {
    Run run = run("--bind-address=127.0.0.1", "--port=0");
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.settings().secureServing()).isEmpty();
    assertThat(run.settings().plainServing()).isTrue();
  }

  @Test
  void securePortAloneTurnsThePlainPortOffWithUpstreamDefaults() {
    Run run = run("--secure-port=0");
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.settings().plainServing()).isFalse();
    SecureServingSettings s = run.settings().secureServing().orElseThrow();
    assertThat(s).isEqualTo(SecureServingSettings.defaults(0));
    assertThat(s.bindAddress()).isEqualTo("0.0.0.0");
    assertThat(s.alwaysAllowPaths()).containsExactly("/healthz", "/readyz", "/livez");
    assertThat(s.authenticationCacheTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.authorizedCacheTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.unauthorizedCacheTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.tlsCertFile()).isEmpty();
    assertThat(s.certDir()).isEmpty();
  }

  @Test
  void theDefaultSecurePortIsTheDaemonsAndShownInTheHelp() {
    Run run = run("--secure-port", "10259");
    assertThat(run.settings().secureServing().orElseThrow().port()).isEqualTo(10259);
    CommandLine cmd = DaemonCommandLine.create(new TestDaemon());
    CommandLine.Model.OptionSpec secure = cmd.getCommandSpec().findOption("--secure-port");
    assertThat(secure.defaultValueString()).isEqualTo("10259");
    assertThat(String.join(" ", secure.description())).contains("Default: 10259.")
        .contains("Secure serving starts only when this flag is given; then plain HTTP is served only if --port is"
            + " given too");
    assertThat(String.join(" ", cmd.getCommandSpec().findOption("--port").description()))
        .contains("Not served when --secure-port is given without --port");
    StringWriter out = new StringWriter();
    cmd.usage(new PrintWriter(out));
    assertThat(out.toString()).contains("--secure-port=N").contains("--tls-cert-file=FILE")
        .contains("--tls-private-key-file=FILE").contains("--authorization-always-allow-paths=PATH");
  }

  @Test
  void bothPortsGivenServeBoth() {
    Run run = run("--secure-port=0", "--port=0");
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.settings().plainServing()).isTrue();
    assertThat(run.settings().secureServing()).isPresent();
  }

  @Test
  void everySecureFlagIsParsed() throws Exception {
    KeyPair pair = TestCertificates.ec();
    Path cert = TestCertificates.write(dir, "tls.crt", TestCertificates.pem(TestCertificates.selfSigned(pair)));
    Path key = TestCertificates.write(dir, "tls.key", TestCertificates.pkcs8(pair.getPrivate()));
    Run run = run("--secure-port=8443", "--bind-address=127.0.0.1", "--tls-cert-file=" + cert,
        "--tls-private-key-file", key.toString(), "--cert-dir=" + dir,
        "--authorization-always-allow-paths=/healthz,/debug/*", "--authentication-token-webhook-cache-ttl=1m",
        "--authorization-webhook-cache-authorized-ttl=30s", "--authorization-webhook-cache-unauthorized-ttl=0s");
    assertThat(run.status()).as(run.err()).isZero();
    SecureServingSettings s = run.settings().secureServing().orElseThrow();
    assertThat(s.port()).isEqualTo(8443);
    assertThat(s.bindAddress()).isEqualTo("127.0.0.1");
    assertThat(s.tlsCertFile()).hasValue(cert);
    assertThat(s.tlsPrivateKeyFile()).hasValue(key);
    assertThat(s.certDir()).hasValue(dir);
    assertThat(s.alwaysAllowPaths()).isEqualTo(List.of("/healthz", "/debug/*"));
    assertThat(s.authenticationCacheTtl()).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.authorizedCacheTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.unauthorizedCacheTtl()).isZero();
    assertThat(s.authenticationKubeconfig()).isEqualTo(Optional.empty());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--tls-cert-file=/nonexistent | --tls-cert-file",
      "--secure-port=x | --secure-port",
      "--secure-port=70000 | --secure-port must be between 0 and 65535",
      "--bind-address=localhost | --bind-address must be an IP address",
      "--authentication-token-webhook-cache-ttl=ten | --authentication-token-webhook-cache-ttl",
      "--authorization-webhook-cache-authorized-ttl=-1s | --authorization-webhook-cache-authorized-ttl",
      "--authorization-webhook-cache-unauthorized-ttl=1x | --authorization-webhook-cache-unauthorized-ttl",
      "--authorization-always-allow-paths=healthz | --authorization-always-allow-paths",
      "--authentication-kubeconfig=/nonexistent | --authentication-kubeconfig /nonexistent: no such file",
      "--authorization-kubeconfig=/nonexistent | --authorization-kubeconfig /nonexistent: no such file"})
  void badValuesExitTwoNamingTheFlag(String arg, String named) {
    Run run = run("--secure-port=0", arg);
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains(named).doesNotContain("\tat ");
    assertThat(run.settings()).isNull();
  }

  @Test
  void aMissingCertificateExitsTwoEvenWithoutSecurePort() {
    Run run = run("--tls-cert-file", "/nonexistent", "--tls-private-key-file", "/nonexistent.key");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains("Error: --tls-cert-file /nonexistent: no such file");
  }

  @Test
  void aMissingCertificateAloneIsReportedAsMissing() {
    Run run = run("--secure-port=0", "--tls-cert-file=/nonexistent");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains("Error: --tls-cert-file /nonexistent: no such file");
  }

  @Test
  void aCertificateWithoutAKeyNamesBothFlags() throws Exception {
    Path cert = TestCertificates.write(dir, "tls.crt",
        TestCertificates.pem(TestCertificates.selfSigned(TestCertificates.ec())));
    Run certOnly = run("--secure-port=0", "--tls-cert-file=" + cert);
    assertThat(certOnly.status()).isEqualTo(2);
    assertThat(certOnly.err()).contains("--tls-cert-file").contains("--tls-private-key-file");
    Run keyOnly = run("--secure-port=0", "--tls-private-key-file=" + cert);
    assertThat(keyOnly.status()).isEqualTo(2);
    assertThat(keyOnly.err()).contains("--tls-cert-file").contains("--tls-private-key-file");
  }
}
