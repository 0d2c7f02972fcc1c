package io.berth.component;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the secure endpoint ({@code --secure-port}): the routes of an {@link EndpointRoutes} table on the JDK
 * {@link HttpsServer}, TLS as {@link TlsContexts} sets it up, behind a {@link DelegatedAuthFilter}. The bound port
 * is logged as {@code secure serving on :PORT}. The returned {@link DaemonEndpoint} is thread-safe. Stateless.
 */
public final class SecureEndpoint {

  private static final Logger log = LoggerFactory.getLogger(SecureEndpoint.class);
  // requests may wait on TokenReview/SubjectAccessReview calls, so a few more than the plain endpoint's
  private static final int THREADS = 4;

  private SecureEndpoint() {
  }

  /**
   * Binds {@code address} (port 0 for a free one) and serves {@code routes} over HTTPS behind {@code filter}.
   *
   * @throws IOException if the address cannot be bound
   */
  static DaemonEndpoint start(InetSocketAddress address, SSLContext tls, EndpointRoutes routes,
      DelegatedAuthFilter filter) throws IOException {
    HttpsServer server = HttpsServer.create(address, 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls) {
      @Override
      public void configure(HttpsParameters params) {
        params.setSSLParameters(TlsContexts.serverParameters(getSSLContext()));
      }
    });
    DaemonEndpoint endpoint = DaemonEndpoint.serve(server, routes, Optional.of(filter), THREADS,
        "secure-endpoint");
    log.info("secure serving on :{}", endpoint.port());
    return endpoint;
  }
}
