package io.berth.embedded.server;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed serving certificate for the API server's TLS listener, valid for {@code localhost}, 127.0.0.1, ::1
 * and the listen host, and its own CA (clients trust it through the kubeconfig's
 * {@code certificate-authority-data}). A new EC P-256 key per cluster. Immutable.
 *
 * @param certificatePem the certificate, PEM
 * @param privateKeyPem the private key, PEM (PKCS#8)
 */
public record ServingCertificate(String certificatePem, String privateKeyPem) {

  /** A new certificate for {@code host} (a name or an IP address). */
  public static ServingCertificate selfSigned(String host) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
      KeyPair keys = generator.generateKeyPair();
      X500Name subject = new X500Name("CN=berth-embedded-apiserver");
      Instant now = Instant.now();
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
          new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofHours(1))),
          Date.from(now.plus(Duration.ofDays(365))), subject, keys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature
          | KeyUsage.keyEncipherment | KeyUsage.keyCertSign));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names(host)
          .toArray(GeneralName[]::new)));
      var certificate = builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
      return new ServingCertificate(pem(new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter()
          .getCertificate(certificate)), pem(keys.getPrivate()));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("could not create the API server's serving certificate: " + e, e);
    }
  }

  private static List<GeneralName> names(String host) {
    List<GeneralName> names = new ArrayList<>();
    names.add(new GeneralName(GeneralName.dNSName, "localhost"));
    names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    names.add(new GeneralName(GeneralName.iPAddress, "::1"));
    if (host != null && !host.isEmpty() && !host.equals("localhost") && !host.equals("127.0.0.1")) {
      names.add(new GeneralName(isIpAddress(host) ? GeneralName.iPAddress : GeneralName.dNSName, host));
    }
    return names;
  }

  private static boolean isIpAddress(String host) {
    if (!host.matches("[0-9.]+") && !host.contains(":")) {
      return false;
    }
    try {
      InetAddress.getByName(host);
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(o instanceof java.security.PrivateKey key
          ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null) : o);
    }
    return out.toString();
  }

  /** The certificate PEM, base64 encoded, as a kubeconfig's {@code certificate-authority-data}. */
  public String certificateBase64() {
    return java.util.Base64.getEncoder().encodeToString(certificatePem.getBytes(StandardCharsets.UTF_8));
  }
}
