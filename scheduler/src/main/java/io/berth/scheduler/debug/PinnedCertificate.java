package io.berth.scheduler.debug;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts exactly one server certificate: the one this scheduler serves itself, which the replicas
 * of one Deployment share (one Secret), so a standby sends a caller's token only to a peer holding
 * that certificate's key. The peer's address comes from the Lease, not from a name a certificate
 * could be checked against, so no host name is verified; being an {@link X509ExtendedTrustManager},
 * this also keeps the JDK from checking one. Trusts no client. Thread-safe: immutable.
 */
final class PinnedCertificate extends X509ExtendedTrustManager {
  private final X509Certificate pinned;

  PinnedCertificate(X509Certificate pinned) {
    this.pinned = Objects.requireNonNull(pinned, "pinned");
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    if (chain == null || chain.length == 0 || !pinned.equals(chain[0])) {
      throw new CertificateException("the leader's serving certificate ("
          + (chain == null || chain.length == 0 ? "none" : chain[0].getSubjectX500Principal().getName())
          + ") is not the one this instance serves; give the replicas one certificate"
          + " (--tls-cert-file, the chart's scheduler.tls.secretName)");
    }
    pinned.checkValidity();
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    checkServerTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    checkServerTrusted(chain, authType);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    throw new CertificateException("no client is trusted");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    checkClientTrusted(chain, authType);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    checkClientTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
