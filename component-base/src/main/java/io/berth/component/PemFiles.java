package io.berth.component;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads a PEM serving certificate and key as {@code --tls-cert-file} and {@code --tls-private-key-file} name them:
 * the certificate file holds one or more {@code CERTIFICATE} blocks (the serving certificate first, then
 * intermediates); the key file an unencrypted RSA key (PKCS#1 {@code RSA PRIVATE KEY}), EC key (SEC 1
 * {@code EC PRIVATE KEY}) or PKCS#8 {@code PRIVATE KEY}, the first one found (other blocks are skipped). The
 * key must belong to the certificate. Every failure is a {@link ConfigurationException} naming the flag (both
 * flags when they do not match), which the daemons turn into exit status 2. Parsing is BouncyCastle's, conversion
 * the JDK providers' (BouncyCastle is not installed as a provider). Stateless; thread-safe.
 */
public final class PemFiles {

  private PemFiles() {
  }

  /**
   * The pair in {@code certFile} and {@code keyFile}.
   *
   * @throws ConfigurationException naming {@code certFlag} and/or {@code keyFlag}
   */
  public static ServingCertificate load(Path certFile, String certFlag, Path keyFile, String keyFlag) {
    List<X509Certificate> chain = certificates(certFile, certFlag);
    PrivateKey key = privateKey(keyFile, keyFlag);
    if (!matches(key, chain.get(0).getPublicKey())) {
      throw new ConfigurationException(certFlag, certFlag + " " + certFile + " and " + keyFlag + " " + keyFile
          + ": the private key does not match the certificate's public key");
    }
    return new ServingCertificate(chain, key);
  }

  /** The certificates of a PEM file, in file order; at least one. */
  static List<X509Certificate> certificates(Path file, String flag) {
    List<X509Certificate> chain = new ArrayList<>();
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    Reader reader = reader(file, flag);
    try (PEMParser parser = new PEMParser(reader)) {
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof X509CertificateHolder holder) {
          chain.add(converter.getCertificate(holder));
        }
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new ConfigurationException(flag, flag + " " + file + ": not a PEM certificate file: " + e.getMessage(),
          e);
    }
    if (chain.isEmpty()) {
      throw new ConfigurationException(flag, flag + " " + file + ": no PEM CERTIFICATE block");
    }
    return chain;
  }

  /** The first private key of a PEM file. */
  static PrivateKey privateKey(Path file, String flag) {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    Reader reader = reader(file, flag);
    boolean sawCertificate = false;
    try (PEMParser parser = new PEMParser(reader)) {
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof PEMKeyPair pair) {
          return supported(converter.getPrivateKey(pair.getPrivateKeyInfo()), file, flag);
        }
        if (o instanceof PrivateKeyInfo info) {
          return supported(converter.getPrivateKey(info), file, flag);
        }
        if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new ConfigurationException(flag, flag + " " + file + ": encrypted private keys are not supported");
        }
        // other blocks (EC PARAMETERS before openssl's EC keys, certificates) are skipped, as Go's X509KeyPair does
        sawCertificate |= o instanceof X509CertificateHolder;
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof ConfigurationException ce) {
        throw ce;
      }
      throw new ConfigurationException(flag, flag + " " + file + ": not a PEM private key: " + e.getMessage(), e);
    }
    throw new ConfigurationException(flag, flag + " " + file + (sawCertificate
        ? ": found a certificate rather than a private key" : ": no PEM private key block"));
  }

  private static PrivateKey supported(PrivateKey key, Path file, String flag) {
    if (!key.getAlgorithm().equals("RSA") && !key.getAlgorithm().equals("EC")) {
      throw new ConfigurationException(flag, flag + " " + file + ": a " + key.getAlgorithm()
          + " key; RSA and EC keys are supported");
    }
    return key;
  }

  /** Checks that {@code file} is a readable regular file, naming {@code flag} otherwise. */
  static void checkReadable(Path file, String flag) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigurationException(flag, flag + " " + file + ": no such file");
    }
    if (!Files.isReadable(file)) {
      throw new ConfigurationException(flag, flag + " " + file + ": cannot be read");
    }
  }

  private static Reader reader(Path file, String flag) {
    checkReadable(file, flag);
    try {
      return Files.newBufferedReader(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new ConfigurationException(flag, flag + " " + file + ": cannot be read: " + e.getMessage(), e);
    }
  }

  private static boolean matches(PrivateKey key, PublicKey publicKey) {
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      return false;
    }
    String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    try {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
