package io.berth.component;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secure endpoint of one daemon, put together from {@link SecureServingSettings}: {@link #prepare} loads the
 * serving certificate (the given PEM pair or a self-signed one) and the delegation client configurations, failing
 * with a {@link ConfigurationException} (exit status 2) before anything starts; {@link #start} builds the
 * TokenReview and SubjectAccessReview clients (their own, with upstream's delegation limits of 200 QPS / burst 400
 * and a 10 s timeout), the {@link DelegatingAuthenticator} and {@link DelegatingAuthorizer} and the HTTPS
 * {@link DaemonEndpoint}; {@link #stop} stops the endpoint and closes those clients. Used by {@link Daemon} under its
 * lock; not thread-safe on its own.
 */
final class SecureServing {

  static final double DELEGATION_QPS = 200;
  static final int DELEGATION_BURST = 400;
  static final int DELEGATION_TIMEOUT_MILLIS = 10_000;

  private static final Logger log = LoggerFactory.getLogger(SecureServing.class);

  private final SecureServingSettings settings;
  private final String component;
  private final SSLContext tls;
  private final X509Certificate certificate;
  private final Config authenticationConfig;
  private final Config authorizationConfig;
  // confined to the daemon's lock, as the whole object
  private DaemonEndpoint endpoint;
  // confined to the daemon's lock
  private KubernetesClient authenticationClient;
  // confined to the daemon's lock; the same object as authenticationClient when both configs are the daemon's own
  private KubernetesClient authorizationClient;

  private SecureServing(SecureServingSettings settings, String component, SSLContext tls,
      X509Certificate certificate, Config authenticationConfig, Config authorizationConfig) {
    this.settings = settings;
    this.component = component;
    this.tls = tls;
    this.certificate = certificate;
    this.authenticationConfig = authenticationConfig;
    this.authorizationConfig = authorizationConfig;
  }

  /**
   * Loads everything that can be wrong in the configuration.
   *
   * @param ownConfig the daemon's own client configuration, a new object per call (used without
   *     {@code --authentication-kubeconfig}/{@code --authorization-kubeconfig})
   * @throws ConfigurationException naming the flag at fault
   */
  static SecureServing prepare(SecureServingSettings settings, String component, Supplier<Config> ownConfig) {
    settings.validate();
    ServingCertificate certificate = settings.tlsCertFile().isPresent()
        ? PemFiles.load(settings.tlsCertFile().get(), SecureServingOptions.TLS_CERT_FILE,
            settings.tlsPrivateKeyFile().orElseThrow(), SecureServingOptions.TLS_PRIVATE_KEY_FILE)
        : SelfSignedCertificate.loadOrGenerate(settings.certDir(), component);
    Config authentication = settings.authenticationKubeconfig().map(SecureServing::fromFile)
        .orElseGet(ownConfig);
    Config authorization = settings.authorizationKubeconfig().equals(settings.authenticationKubeconfig())
        ? null : settings.authorizationKubeconfig().map(SecureServing::fromFile).orElseGet(ownConfig);
    return new SecureServing(settings, component, TlsContexts.server(certificate), certificate.certificate(),
        authentication, authorization);
  }

  /**
   * Starts serving {@code routes} over HTTPS.
   *
   * @throws IOException if the address cannot be bound
   */
  void start(EndpointRoutes routes) throws IOException {
    authenticationClient = client(authenticationConfig, settings.authenticationKubeconfig());
    authorizationClient = authorizationConfig == null ? authenticationClient
        : client(authorizationConfig, settings.authorizationKubeconfig());
    DelegatedAuthFilter filter = new DelegatedAuthFilter(
        new DelegatingAuthenticator(authenticationClient, settings.authenticationCacheTtl()),
        new DelegatingAuthorizer(authorizationClient, settings.authorizedCacheTtl(),
            settings.unauthorizedCacheTtl()),
        settings.alwaysAllowPaths());
    endpoint = SecureEndpoint.start(new InetSocketAddress(settings.bindInetAddress(), settings.port()), tls,
        routes, filter);
  }

  /** The leaf certificate served. */
  X509Certificate certificate() {
    return certificate;
  }

  /** The bound port. */
  int port() {
    if (endpoint == null) {
      throw new IllegalStateException("the secure endpoint is not serving");
    }
    return endpoint.port();
  }

  /** Stops the endpoint and closes the delegation clients. Idempotent. */
  void stop() {
    if (endpoint != null) {
      endpoint.stop();
    }
    if (authorizationClient != null && authorizationClient != authenticationClient) {
      authorizationClient.close();
    }
    if (authenticationClient != null) {
      authenticationClient.close();
    }
  }

  private KubernetesClient client(Config config, Optional<Path> kubeconfig) {
    config.setRequestTimeout(DELEGATION_TIMEOUT_MILLIS);
    config.setConnectionTimeout(DELEGATION_TIMEOUT_MILLIS);
    // a request waits for the review: retry once, briefly, instead of fabric8's default of ten backoffs
    config.setRequestRetryBackoffLimit(1);
    config.setRequestRetryBackoffInterval(200);
    log.debug("delegated authentication/authorization against {}", config.getMasterUrl());
    return KubeClients.create(config, new ClientSettings(kubeconfig, DELEGATION_QPS, DELEGATION_BURST,
        component + "/auth-delegator"));
  }

  private static Config fromFile(Path file) {
    return Config.fromKubeconfig(Objects.requireNonNull(file, "file").toFile());
  }
}
