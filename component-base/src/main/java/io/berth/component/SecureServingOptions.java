package io.berth.component;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The secure serving flags, with kube-scheduler's and kube-controller-manager's names and defaults, as a picocli
 * mixin that {@link DaemonOptions} includes (so both daemons get them): {@code --secure-port}, {@code --bind-address},
 * {@code --tls-cert-file}, {@code --tls-private-key-file}, {@code --cert-dir}, {@code --authentication-kubeconfig},
 * {@code --authorization-kubeconfig}, {@code --authorization-always-allow-paths} and the three cache time-to-live
 * flags (Go durations).
 *
 * <p>Compatibility rule: secure serving starts only when {@code --secure-port} is given explicitly (any value; 0
 * picks a free port). Then the plain {@code --port} is served only if {@code --port} is given too; without
 * {@code --secure-port} the daemon serves plain HTTP on {@code --port} (or its default) exactly as before, and the
 * other secure flags are only checked. {@link DaemonOptions#settings(String)} applies the rule. Mutable while
 * picocli parses, then read once; confined to the parsing thread.
 */
public final class SecureServingOptions {

  public static final String SECURE_PORT = "--secure-port";
  public static final String BIND_ADDRESS = "--bind-address";
  public static final String TLS_CERT_FILE = "--tls-cert-file";
  public static final String TLS_PRIVATE_KEY_FILE = "--tls-private-key-file";
  public static final String CERT_DIR = "--cert-dir";
  public static final String AUTHENTICATION_KUBECONFIG = "--authentication-kubeconfig";
  public static final String AUTHORIZATION_KUBECONFIG = "--authorization-kubeconfig";
  public static final String ALWAYS_ALLOW_PATHS = "--authorization-always-allow-paths";
  public static final String AUTHENTICATION_CACHE_TTL = "--authentication-token-webhook-cache-ttl";
  public static final String AUTHORIZED_CACHE_TTL = "--authorization-webhook-cache-authorized-ttl";
  public static final String UNAUTHORIZED_CACHE_TTL = "--authorization-webhook-cache-unauthorized-ttl";

  /** Every secure serving flag, for telling whether any was given. */
  static final List<String> FLAGS = List.of(SECURE_PORT, BIND_ADDRESS, TLS_CERT_FILE, TLS_PRIVATE_KEY_FILE, CERT_DIR,
      AUTHENTICATION_KUBECONFIG, AUTHORIZATION_KUBECONFIG, ALWAYS_ALLOW_PATHS, AUTHENTICATION_CACHE_TTL,
      AUTHORIZED_CACHE_TTL, UNAUTHORIZED_CACHE_TTL);

  @Option(names = SECURE_PORT, paramLabel = "N",
      description = "The port of HTTPS with delegated authentication and authorization (/healthz, /livez, /readyz,"
          + " /metrics); 0 picks a free port and logs it. Secure serving starts only when this flag is given; then"
          + " plain HTTP is served only if --port is given too. Default: ${DEFAULT-VALUE}.")
  private int securePort;

  @Option(names = BIND_ADDRESS, paramLabel = "IP",
      description = "The IP address the secure port listens on (0.0.0.0 or :: for all interfaces)."
          + " Default: ${DEFAULT-VALUE}.")
  private String bindAddress = SecureServingSettings.DEFAULT_BIND_ADDRESS;

  @Option(names = TLS_CERT_FILE, paramLabel = "FILE",
      description = "PEM serving certificate, followed by any intermediates. Without it and --tls-private-key-file,"
          + " a self-signed certificate for localhost, 127.0.0.1 and the host name is generated.")
  private Path tlsCertFile;

  @Option(names = TLS_PRIVATE_KEY_FILE, paramLabel = "FILE",
      description = "PEM private key of --tls-cert-file: RSA (PKCS#1), EC or PKCS#8, unencrypted.")
  private Path tlsPrivateKeyFile;

  @Option(names = CERT_DIR, paramLabel = "DIR",
      description = "Where the generated self-signed pair is written (and reused); ignored with --tls-cert-file."
          + " Without it the pair lives in memory only.")
  private Path certDir;

  @Option(names = AUTHENTICATION_KUBECONFIG, paramLabel = "FILE",
      description = "kubeconfig of the API server that reviews bearer tokens (TokenReview). Default: the"
          + " daemon's own client configuration.")
  private Path authenticationKubeconfig;

  @Option(names = AUTHORIZATION_KUBECONFIG, paramLabel = "FILE",
      description = "kubeconfig of the API server that authorizes requests (SubjectAccessReview). Default: the"
          + " daemon's own client configuration.")
  private Path authorizationKubeconfig;

  @Option(names = ALWAYS_ALLOW_PATHS, paramLabel = "PATH", split = ",",
      description = "Paths served on the secure port without authentication or authorization; an entry ending in *"
          + " is a prefix. Default: /healthz,/readyz,/livez.")
  private List<String> alwaysAllowPaths = new ArrayList<>(SecureServingSettings.DEFAULT_ALWAYS_ALLOW_PATHS);

  @Option(names = AUTHENTICATION_CACHE_TTL, paramLabel = "DURATION", converter = GoDurationConverter.class,
      description = "How long successful token reviews are cached. Default: 10s.")
  private Duration authenticationCacheTtl = SecureServingSettings.DEFAULT_CACHE_TTL;

  @Option(names = AUTHORIZED_CACHE_TTL, paramLabel = "DURATION", converter = GoDurationConverter.class,
      description = "How long allowed access reviews are cached. Default: 10s.")
  private Duration authorizedCacheTtl = SecureServingSettings.DEFAULT_CACHE_TTL;

  @Option(names = UNAUTHORIZED_CACHE_TTL, paramLabel = "DURATION", converter = GoDurationConverter.class,
      description = "How long denied access reviews are cached. Default: 10s.")
  private Duration unauthorizedCacheTtl = SecureServingSettings.DEFAULT_CACHE_TTL;

  /** Options with a daemon's own default {@code --secure-port}. */
  public SecureServingOptions(int defaultSecurePort) {
    this.securePort = defaultSecurePort;
  }

  /**
   * The parsed flags as validated settings (whether they are used is {@link DaemonOptions}'s decision).
   *
   * @throws ConfigurationException naming the first flag whose value cannot be used
   */
  public SecureServingSettings settings() {
    List<String> paths = alwaysAllowPaths.stream().map(String::trim).filter(p -> !p.isEmpty()).toList();
    return new SecureServingSettings(securePort, bindAddress.trim(), Optional.ofNullable(tlsCertFile),
        Optional.ofNullable(tlsPrivateKeyFile), Optional.ofNullable(certDir),
        Optional.ofNullable(authenticationKubeconfig), Optional.ofNullable(authorizationKubeconfig), paths,
        authenticationCacheTtl, authorizedCacheTtl, unauthorizedCacheTtl).validate();
  }
}
