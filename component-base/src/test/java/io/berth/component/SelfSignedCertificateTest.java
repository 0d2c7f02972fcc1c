package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The certificate generated without {@code --tls-cert-file}, in memory or in {@code --cert-dir}. */
class SelfSignedCertificateTest {

  @TempDir
  Path dir;

  @Test
  void isAServingCertificateForLocalhostTheLoopbackAndTheHost() throws Exception {
    Instant now = Instant.parse("2026-12-01T09:00:00Z");
    ServingCertificate pair = SelfSignedCertificate.generate(List.of("localhost", "127.0.0.1", "::1", "node-a"),
        Clock.fixed(now, ZoneOffset.UTC));
    X509Certificate cert = pair.certificate();
    cert.verify(cert.getPublicKey()); // self-signed
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=localhost@" + now.getEpochSecond());
    assertThat(cert.getSubjectAlternativeNames()).extracting(n -> n.get(1).toString())
        .containsExactly("localhost", "127.0.0.1", "0:0:0:0:0:0:0:1", "node-a");
    assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1"); // serverAuth
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(cert.getNotAfter().toInstant()).isEqualTo(now.plus(SelfSignedCertificate.VALIDITY));
    assertThat(cert.getNotBefore().toInstant()).isBefore(now);
    assertThat(pair.key().getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void theDefaultHostsIncludeLocalhostAndTheLoopback() {
    assertThat(SelfSignedCertificate.hosts()).startsWith("localhost", "127.0.0.1", "::1");
  }

  @Test
  void isWrittenToTheCertDirAndReusedOnTheNextStart() throws Exception {
    Path certDir = dir.resolve("certs");
    ServingCertificate first = SelfSignedCertificate.loadOrGenerate(Optional.of(certDir), "berth-scheduler");
    Path crt = certDir.resolve("berth-scheduler.crt");
    Path key = certDir.resolve("berth-scheduler.key");
    assertThat(crt).isRegularFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
    ServingCertificate second = SelfSignedCertificate.loadOrGenerate(Optional.of(certDir), "berth-scheduler");
    assertThat(second.certificate()).isEqualTo(first.certificate());
    assertThat(second.key().getEncoded()).isEqualTo(first.key().getEncoded());
  }

  @Test
  void withoutACertDirEachStartGeneratesANewOne() {
    ServingCertificate a = SelfSignedCertificate.loadOrGenerate(Optional.empty(), "x");
    ServingCertificate b = SelfSignedCertificate.loadOrGenerate(Optional.empty(), "x");
    assertThat(a.certificate()).isNotEqualTo(b.certificate());
    assertThat(Duration.between(a.certificate().getNotBefore().toInstant(),
        a.certificate().getNotAfter().toInstant())).isGreaterThan(Duration.ofDays(364));
  }
}
