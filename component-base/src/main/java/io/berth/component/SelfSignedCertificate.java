package io.berth.component;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving certificate used when neither {@code --tls-cert-file} nor {@code --tls-private-key-file} is given, as
 * upstream's {@code MaybeDefaultWithSelfSignedCerts}: an ECDSA P-256 certificate, self-signed, valid for one year,
 * for {@code localhost}, {@code 127.0.0.1}, {@code ::1} and this host's name, with the serverAuth extended key
 * usage. With {@code --cert-dir} the pair is kept as {@code <component>.crt} and {@code <component>.key} (PKCS#8,
 * readable by the owner only) and reused on the next start if both files are there; without it the pair lives in
 * memory only. Stateless; thread-safe.
 */
public final class SelfSignedCertificate {

  /** How long a generated certificate is valid. */
  public static final Duration VALIDITY = Duration.ofDays(365);

  private static final Logger log = LoggerFactory.getLogger(SelfSignedCertificate.class);

  private SelfSignedCertificate() {
  }

  /**
   * The pair in {@code certDir} if both files are there, else a new one (written there if a directory is given).
   *
   * @param pairName the files' base name (the component's name)
   * @throws ConfigurationException naming {@code --cert-dir} if the directory cannot be used
   */
  public static ServingCertificate loadOrGenerate(Optional<Path> certDir, String pairName) {
    if (certDir.isPresent()) {
      Path cert = certDir.get().resolve(pairName + ".crt");
      Path key = certDir.get().resolve(pairName + ".key");
      if (Files.isRegularFile(cert) && Files.isRegularFile(key)) {
        log.info("using the serving certificate in {}", cert);
        return PemFiles.load(cert, SecureServingOptions.CERT_DIR, key, SecureServingOptions.CERT_DIR);
      }
      ServingCertificate generated = generate(hosts(), Clock.systemUTC());
      write(generated, certDir.get(), cert, key);
      log.info("generated a self-signed serving certificate in {}", cert);
      return generated;
    }
    log.info("generated a self-signed serving certificate (in memory) for {}", hosts());
    return generate(hosts(), Clock.systemUTC());
  }

  /** A new self-signed certificate for {@code hosts} (DNS names or IP literals), valid from {@code clock}'s now. */
  public static ServingCertificate generate(List<String> hosts, Clock clock) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair pair = generator.generateKeyPair();
      Instant now = clock.instant();
      X500Name subject = new X500Name("CN=" + hosts.get(0) + "@" + now.getEpochSecond());
      JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
          new BigInteger(63, new SecureRandom()), Date.from(now.minus(Duration.ofHours(1))),
          Date.from(now.plus(VALIDITY)), subject, pair.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      builder.addExtension(Extension.subjectAlternativeName, false, alternativeNames(hosts));
      X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
      return new ServingCertificate(List.of(certificate), pair.getPrivate());
    } catch (GeneralSecurityException | OperatorCreationException | CertIOException e) {
      throw new IllegalStateException("cannot generate a self-signed certificate: " + e.getMessage(), e);
    }
  }

  /** The names a generated certificate is valid for: localhost, the loopback addresses and this host's name. */
  static List<String> hosts() {
    Set<String> hosts = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
    try {
      String name = InetAddress.getLocalHost().getHostName();
      if (name != null && !name.isBlank()) {
        hosts.add(name);
      }
    } catch (IOException e) {
      log.debug("no host name for the self-signed certificate: {}", e.getMessage());
    }
    return List.copyOf(hosts);
  }

  private static GeneralNames alternativeNames(List<String> hosts) {
    List<GeneralName> names = new ArrayList<>();
    for (String host : hosts) {
      boolean ip = host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
      names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, host));
    }
    return new GeneralNames(names.toArray(new GeneralName[0]));
  }

  private static void write(ServingCertificate pair, Path dir, Path cert, Path key) {
    try {
      Files.createDirectories(dir);
      Files.writeString(cert, pem(pair.certificate()), StandardCharsets.US_ASCII);
      boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
      Files.deleteIfExists(key);
      if (posix) {
        Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
      Files.writeString(key, pem(new JcaPKCS8Generator(pair.key(), null)), StandardCharsets.US_ASCII);
    } catch (IOException | UncheckedIOException e) {
      throw new ConfigurationException(SecureServingOptions.CERT_DIR, SecureServingOptions.CERT_DIR + " " + dir
          + ": cannot write the self-signed certificate: " + e.getMessage(), e);
    }
  }

  /** {@code object} (a certificate, or a PEM generator such as the PKCS#8 key's) as PEM text. */
  static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
