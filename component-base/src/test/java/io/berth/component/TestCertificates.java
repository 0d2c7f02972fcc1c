package io.berth.component;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Key pairs, certificates and PEM files for the TLS tests, made with BouncyCastle the way openssl writes them:
 * PKCS#1 ({@code RSA PRIVATE KEY}), SEC 1 ({@code EC PRIVATE KEY}) and PKCS#8 ({@code PRIVATE KEY}). Stateless.
 */
final class TestCertificates {

  private TestCertificates() {
  }

  static KeyPair rsa() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  static KeyPair ec() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  /** A certificate for {@code subjectPair}, signed by {@code issuerPair} (self-signed when the same). */
  static X509Certificate certificate(String cn, KeyPair subjectPair, String issuerCn, KeyPair issuerPair)
      throws Exception {
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + issuerCn),
        BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minusSeconds(60)),
        Date.from(now.plus(Duration.ofDays(1))), new X500Name("CN=" + cn), subjectPair.getPublic());
    b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
    String alg = issuerPair.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    return new JcaX509CertificateConverter().getCertificate(
        b.build(new JcaContentSignerBuilder(alg).build(issuerPair.getPrivate())));
  }

  static X509Certificate selfSigned(KeyPair pair) throws Exception {
    return certificate("localhost", pair, "localhost", pair);
  }

  /** PEM in OpenSSL's traditional form (PKCS#1 for RSA keys), certificates as CERTIFICATE. */
  static String pem(Object... objects) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      for (Object o : objects) {
        w.writeObject(o);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** An EC key in SEC 1 form ({@code EC PRIVATE KEY}) with its curve, as openssl writes it. */
  static String sec1(PrivateKey ecKey) throws Exception {
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(ecKey.getEncoded());
    ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
    ECPrivateKey withCurve = new ECPrivateKey(256, inner.getKey(), info.getPrivateKeyAlgorithm().getParameters());
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(new PemObject("EC PRIVATE KEY", withCurve.getEncoded()));
    }
    return out.toString();
  }

  static String pkcs8(PrivateKey key) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(new JcaPKCS8Generator(key, null));
    }
    return out.toString();
  }

  static Path write(Path dir, String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  /** An HTTP client trusting exactly {@code certificate} (hostname verification stays on). */
  static HttpClient trusting(X509Certificate certificate) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", certificate);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
  }
}
