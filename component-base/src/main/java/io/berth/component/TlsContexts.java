package io.berth.component;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Server-side TLS for the secure endpoint: an {@link SSLContext} presenting a {@link ServingCertificate}, and the
 * parameters every handshake uses: TLS 1.2 and 1.3 only (upstream's {@code --tls-min-version} default), the JDK's
 * default cipher suites for those, and no client certificate requested (client certificate authentication,
 * upstream's {@code --client-ca-file}, is not supported: callers authenticate with bearer tokens). Stateless;
 * thread-safe.
 */
public final class TlsContexts {

  /** The protocols the secure endpoint accepts. */
  public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  private TlsContexts() {
  }

  /** A server context presenting {@code certificate}. */
  public static SSLContext server(ServingCertificate certificate) {
    try {
      char[] password = "berth".toCharArray();
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("serving", certificate.key(), password,
          certificate.chain().toArray(new X509Certificate[0]));
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build the TLS context: " + e.getMessage(), e);
    }
  }

  /** The handshake parameters of {@code context}, restricted to {@link #PROTOCOLS}, no client certificates. */
  public static SSLParameters serverParameters(SSLContext context) {
    SSLParameters parameters = context.getDefaultSSLParameters();
    String[] supported = context.getSupportedSSLParameters().getProtocols();
    parameters.setProtocols(PROTOCOLS.stream().filter(p -> Arrays.asList(supported).contains(p))
        .toArray(String[]::new));
    parameters.setNeedClientAuth(false);
    parameters.setWantClientAuth(false);
    return parameters;
  }
}
