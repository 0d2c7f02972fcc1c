package io.berth.component;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the secure endpoint serves, as parsed from {@link SecureServingOptions}. Immutable.
 *
 * @param port {@code --secure-port}; 0 picks a free one
 * @param bindAddress {@code --bind-address}, an IP address ({@code 0.0.0.0} for all interfaces)
 * @param tlsCertFile {@code --tls-cert-file}, if given (then {@code tlsPrivateKeyFile} is too)
 * @param tlsPrivateKeyFile {@code --tls-private-key-file}, if given
 * @param certDir {@code --cert-dir}: where a self-signed pair is kept; without it, in memory only
 * @param authenticationKubeconfig {@code --authentication-kubeconfig}; without it the daemon's own client
 *     configuration creates the TokenReviews
 * @param authorizationKubeconfig {@code --authorization-kubeconfig}; without it the daemon's own client
 *     configuration creates the SubjectAccessReviews
 * @param alwaysAllowPaths {@code --authorization-always-allow-paths}: served without authentication
 * @param authenticationCacheTtl {@code --authentication-token-webhook-cache-ttl}
 * @param authorizedCacheTtl {@code --authorization-webhook-cache-authorized-ttl}
 * @param unauthorizedCacheTtl {@code --authorization-webhook-cache-unauthorized-ttl}
 */
public record SecureServingSettings(int port, String bindAddress, Optional<Path> tlsCertFile,
    Optional<Path> tlsPrivateKeyFile, Optional<Path> certDir, Optional<Path> authenticationKubeconfig,
    Optional<Path> authorizationKubeconfig, List<String> alwaysAllowPaths, Duration authenticationCacheTtl,
    Duration authorizedCacheTtl, Duration unauthorizedCacheTtl) {

  /** Upstream's default of {@code --bind-address}. */
  public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";
  /** Upstream's {@code --authorization-always-allow-paths} of kube-scheduler and kube-controller-manager. */
  public static final List<String> DEFAULT_ALWAYS_ALLOW_PATHS = List.of("/healthz", "/readyz", "/livez");
  /** Upstream's default of the three cache time-to-live flags. */
  public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(10);

  public SecureServingSettings {
    Objects.requireNonNull(bindAddress, "bindAddress");
    Objects.requireNonNull(tlsCertFile, "tlsCertFile");
    Objects.requireNonNull(tlsPrivateKeyFile, "tlsPrivateKeyFile");
    Objects.requireNonNull(certDir, "certDir");
    Objects.requireNonNull(authenticationKubeconfig, "authenticationKubeconfig");
    Objects.requireNonNull(authorizationKubeconfig, "authorizationKubeconfig");
    alwaysAllowPaths = List.copyOf(alwaysAllowPaths);
    Objects.requireNonNull(authenticationCacheTtl, "authenticationCacheTtl");
    Objects.requireNonNull(authorizedCacheTtl, "authorizedCacheTtl");
    Objects.requireNonNull(unauthorizedCacheTtl, "unauthorizedCacheTtl");
  }

  /** Upstream's defaults on {@code port}: all interfaces, a self-signed certificate in memory. */
  public static SecureServingSettings defaults(int port) {
    return new SecureServingSettings(port, DEFAULT_BIND_ADDRESS, Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty(), DEFAULT_ALWAYS_ALLOW_PATHS, DEFAULT_CACHE_TTL,
        DEFAULT_CACHE_TTL, DEFAULT_CACHE_TTL);
  }

  /** These settings on another port. */
  public SecureServingSettings withPort(int newPort) {
    return new SecureServingSettings(newPort, bindAddress, tlsCertFile, tlsPrivateKeyFile, certDir,
        authenticationKubeconfig, authorizationKubeconfig, alwaysAllowPaths, authenticationCacheTtl,
        authorizedCacheTtl, unauthorizedCacheTtl);
  }

  /** These settings keeping a self-signed pair in {@code dir}. */
  public SecureServingSettings withCertDir(Path dir) {
    return new SecureServingSettings(port, bindAddress, tlsCertFile, tlsPrivateKeyFile, Optional.of(dir),
        authenticationKubeconfig, authorizationKubeconfig, alwaysAllowPaths, authenticationCacheTtl,
        authorizedCacheTtl, unauthorizedCacheTtl);
  }

  /**
   * Checks every value, naming the flag at fault: the port range, an IP literal as bind address, the certificate
   * and key given together, readable and matching (they are parsed here), the kubeconfigs usable, the paths
   * absolute, the durations not negative.
   *
   * @return this
   * @throws ConfigurationException if a value cannot be used
   */
  public SecureServingSettings validate() {
    String portFlag = SecureServingOptions.SECURE_PORT;
    if (port < 0 || port > 65_535) {
      throw new ConfigurationException(portFlag, portFlag + " must be between 0 and 65535, got " + port);
    }
    bindInetAddress();
    String certFlag = SecureServingOptions.TLS_CERT_FILE;
    String keyFlag = SecureServingOptions.TLS_PRIVATE_KEY_FILE;
    tlsCertFile.ifPresent(file -> PemFiles.checkReadable(file, certFlag));
    tlsPrivateKeyFile.ifPresent(file -> PemFiles.checkReadable(file, keyFlag));
    if (tlsCertFile.isPresent() != tlsPrivateKeyFile.isPresent()) {
      String given = tlsCertFile.isPresent() ? certFlag : keyFlag;
      throw new ConfigurationException(given, certFlag + " and " + keyFlag + " are given together; only " + given
          + " is set");
    }
    if (tlsCertFile.isPresent()) {
      PemFiles.load(tlsCertFile.get(), certFlag, tlsPrivateKeyFile.get(), keyFlag);
    }
    authenticationKubeconfig.ifPresent(file -> ClientConfigResolver.validateKubeconfig(file,
        SecureServingOptions.AUTHENTICATION_KUBECONFIG));
    authorizationKubeconfig.ifPresent(file -> ClientConfigResolver.validateKubeconfig(file,
        SecureServingOptions.AUTHORIZATION_KUBECONFIG));
    for (String path : alwaysAllowPaths) {
      if (!path.startsWith("/")) {
        throw new ConfigurationException(SecureServingOptions.ALWAYS_ALLOW_PATHS,
            SecureServingOptions.ALWAYS_ALLOW_PATHS + ": a path starts with /, got \"" + path + "\"");
      }
    }
    notNegative(authenticationCacheTtl, SecureServingOptions.AUTHENTICATION_CACHE_TTL);
    notNegative(authorizedCacheTtl, SecureServingOptions.AUTHORIZED_CACHE_TTL);
    notNegative(unauthorizedCacheTtl, SecureServingOptions.UNAUTHORIZED_CACHE_TTL);
    return this;
  }

  /** {@link #bindAddress()} as an address (an IP literal: no name is looked up). */
  public InetAddress bindInetAddress() {
    String flag = SecureServingOptions.BIND_ADDRESS;
    boolean literal = bindAddress.contains(":") || bindAddress.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    if (!literal) {
      throw new ConfigurationException(flag, flag + " must be an IP address, got \"" + bindAddress + "\"");
    }
    try {
      return InetAddress.getByName(bindAddress);
    } catch (UnknownHostException e) {
      throw new ConfigurationException(flag, flag + " must be an IP address, got \"" + bindAddress + "\"", e);
    }
  }

  private static void notNegative(Duration d, String flag) {
    if (d.isNegative()) {
      throw new ConfigurationException(flag, flag + " must not be negative, got " + GoDurations.format(d));
    }
  }
}
