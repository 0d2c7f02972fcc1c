package io.berth.component;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * The certificate chain (serving certificate first) and private key the secure endpoint presents. Immutable.
 *
 * @param chain the serving certificate followed by its intermediates, at least one
 * @param key the serving certificate's private key
 */
public record ServingCertificate(List<X509Certificate> chain, PrivateKey key) {

  public ServingCertificate {
    chain = List.copyOf(chain);
    Objects.requireNonNull(key, "key");
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("a serving certificate chain has at least one certificate");
    }
  }

  /** The serving (leaf) certificate. */
  public X509Certificate certificate() {
    return chain.get(0);
  }
}
