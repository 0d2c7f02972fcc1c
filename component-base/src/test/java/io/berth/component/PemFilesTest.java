package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --tls-cert-file} and {@code --tls-private-key-file} in every key format openssl writes, and bad files. */
class PemFilesTest {

  private static final String CERT = SecureServingOptions.TLS_CERT_FILE;
  private static final String KEY = SecureServingOptions.TLS_PRIVATE_KEY_FILE;

  @TempDir
  Path dir;

  private ServingCertificate load(Path cert, Path key) {
    return PemFiles.load(cert, CERT, key, KEY);
  }

  @Test
  void rsaPkcs1Key() throws Exception {
    KeyPair pair = TestCertificates.rsa();
    X509Certificate cert = TestCertificates.selfSigned(pair);
    String keyPem = TestCertificates.pem(pair.getPrivate());
    assertThat(keyPem).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    ServingCertificate loaded = load(TestCertificates.write(dir, "tls.crt", TestCertificates.pem(cert)),
        TestCertificates.write(dir, "tls.key", keyPem));
    assertThat(loaded.certificate()).isEqualTo(cert);
    assertThat(loaded.key().getAlgorithm()).isEqualTo("RSA");
    assertThat(loaded.key().getEncoded()).isEqualTo(pair.getPrivate().getEncoded());
  }

  @Test
  void rsaPkcs8Key() throws Exception {
    KeyPair pair = TestCertificates.rsa();
    String keyPem = TestCertificates.pkcs8(pair.getPrivate());
    assertThat(keyPem).startsWith("-----BEGIN PRIVATE KEY-----");
    ServingCertificate loaded = load(TestCertificates.write(dir, "tls.crt",
        TestCertificates.pem(TestCertificates.selfSigned(pair))), TestCertificates.write(dir, "tls.key", keyPem));
    assertThat(loaded.key().getEncoded()).isEqualTo(pair.getPrivate().getEncoded());
  }

  @Test
  void ecKeyWithParametersBlockAndPkcs8EcKey() throws Exception {
    KeyPair pair = TestCertificates.ec();
    Path cert = TestCertificates.write(dir, "tls.crt", TestCertificates.pem(TestCertificates.selfSigned(pair)));
    String sec1 = TestCertificates.sec1(pair.getPrivate());
    assertThat(sec1).startsWith("-----BEGIN EC PRIVATE KEY-----");
    // openssl ecparam -genkey writes the curve first
    String withParams = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + sec1;
    assertThat(((ECPrivateKey) load(cert, TestCertificates.write(dir, "ec.key", withParams)).key()).getS())
        .isEqualTo(((ECPrivateKey) pair.getPrivate()).getS());
    assertThat(load(cert, TestCertificates.write(dir, "ec8.key", TestCertificates.pkcs8(pair.getPrivate())))
        .key().getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void aChainKeepsTheServingCertificateFirst() throws Exception {
    KeyPair ca = TestCertificates.ec();
    KeyPair serving = TestCertificates.ec();
    X509Certificate caCert = TestCertificates.selfSigned(ca);
    X509Certificate leaf = TestCertificates.certificate("berth", serving, "localhost", ca);
    ServingCertificate loaded = load(TestCertificates.write(dir, "chain.crt", TestCertificates.pem(leaf, caCert)),
        TestCertificates.write(dir, "tls.key", TestCertificates.sec1(serving.getPrivate())));
    assertThat(loaded.chain()).containsExactly(leaf, caCert);
  }

  @Test
  void aMissingCertificateFileNamesTheFlag() throws Exception {
    Path key = TestCertificates.write(dir, "tls.key", TestCertificates.pkcs8(TestCertificates.ec().getPrivate()));
    assertThatThrownBy(() -> load(Path.of("/nonexistent/tls.crt"), key)).isInstanceOf(ConfigurationException.class)
        .hasMessage("--tls-cert-file /nonexistent/tls.crt: no such file")
        .extracting(e -> ((ConfigurationException) e).source()).isEqualTo(CERT);
  }

  @Test
  void garbageFilesNameTheirFlag() throws Exception {
    KeyPair pair = TestCertificates.ec();
    Path cert = TestCertificates.write(dir, "tls.crt", TestCertificates.pem(TestCertificates.selfSigned(pair)));
    Path key = TestCertificates.write(dir, "tls.key", TestCertificates.pkcs8(pair.getPrivate()));
    Path garbage = TestCertificates.write(dir, "garbage", "not pem at all\n");
    assertThatThrownBy(() -> load(garbage, key)).isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--tls-cert-file " + garbage + ": no PEM CERTIFICATE block");
    assertThatThrownBy(() -> load(cert, garbage)).isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--tls-private-key-file " + garbage + ": no PEM private key block");
    // a certificate where the key should be
    assertThatThrownBy(() -> load(cert, cert)).isInstanceOf(ConfigurationException.class)
        .hasMessage("--tls-private-key-file " + cert + ": found a certificate rather than a private key");
    // a key after the certificate in one file is found
    Path both = TestCertificates.write(dir, "both.pem", TestCertificates.pem(TestCertificates.selfSigned(pair))
        + TestCertificates.pkcs8(pair.getPrivate()));
    assertThat(load(cert, both).key().getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void aKeyOfAnotherCertificateNamesBothFlags() throws Exception {
    Path cert = TestCertificates.write(dir, "tls.crt",
        TestCertificates.pem(TestCertificates.selfSigned(TestCertificates.ec())));
    Path key = TestCertificates.write(dir, "tls.key", TestCertificates.sec1(TestCertificates.ec().getPrivate()));
    assertThatThrownBy(() -> load(cert, key)).isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("--tls-cert-file").hasMessageContaining("--tls-private-key-file")
        .hasMessageContaining("does not match");
  }
}
