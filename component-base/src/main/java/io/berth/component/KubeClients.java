package io.berth.component;

import io.berth.informer.ClientSerialization;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Optional;

/**
 * Builds the daemons' fabric8 clients: the resolved {@link Config}, the daemon's name as User-Agent, and, unless
 * the limit is off, a client-side token bucket of {@code --kube-api-qps}/{@code --kube-api-burst} installed as a
 * fabric8 HTTP interceptor (see {@link RateLimitInterceptor} for what counts as a request). Each client gets its
 * own bucket, as each client-go clientset does: the leader-election client is built separately so that busy
 * controllers can never starve the Lease renewals. The transport is {@link KubeHttpClientFactory}'s: HTTP/2 on one
 * connection to a TLS server, as client-go's. Every client shares the JVM's {@link ClientSerialization#shared()}
 * (one Jackson mapping, its (de)serializers built once, and the readers the informers decode watch events with)
 * instead of fabric8 building one per client. The caller owns and closes the client. Stateless.
 *
 * <p>{@link #derive} gives a part of a daemon (a controller) a client of its own bucket over the same connection, as
 * kube-controller-manager gives each controller its own clientset (each with its own {@code --kube-api-qps} budget)
 * while client-go's transport cache keeps one connection for all of them. A derived client shares the base client's
 * connection pool and its closed state: never close it; closing the base client ends both.
 */
public final class KubeClients {

  /** Takes the base client's limiter's place in a derived client whose limit is off. */
  private static final Interceptor UNLIMITED = new Interceptor() {
  };

  private KubeClients() {
  }

  /** A new client for {@code config}, rate limited as {@code settings} says. */
  public static KubernetesClient create(Config config, ClientSettings settings) {
    config.setUserAgent(settings.userAgent());
    return create(config, limiterOf(settings));
  }

  static KubernetesClient create(Config config, Optional<TokenBucketRateLimiter> limiter) {
    KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config)
        .withHttpClientFactory(KubeHttpClientFactory.forConfig(config))
        .withKubernetesSerialization(ClientSerialization.shared());
    limiter.ifPresent(l -> builder.withHttpClientBuilderConsumer(
        http -> http.addOrReplaceInterceptor(RateLimitInterceptor.NAME, new RateLimitInterceptor(l))));
    return builder.build();
  }

  /**
   * A client over {@code base}'s connection with its own token bucket of {@code settings}' qps/burst (none when the
   * limit is off) and {@code settings}' User-Agent; the configuration (server, credentials) is {@code base}'s. Do not
   * close it: it shares {@code base}'s transport and closed state (see the type's documentation).
   */
  public static KubernetesClient derive(KubernetesClient base, ClientSettings settings) {
    return derive(base, settings, limiterOf(settings));
  }

  private static Optional<TokenBucketRateLimiter> limiterOf(ClientSettings settings) {
    return settings.rateLimited()
        ? Optional.of(new TokenBucketRateLimiter(settings.effectiveQps(), settings.effectiveBurst(),
            TokenBucketRateLimiter.Ticker.SYSTEM))
        : Optional.empty();
  }

  static KubernetesClient derive(KubernetesClient base, ClientSettings settings,
      Optional<TokenBucketRateLimiter> limiter) {
    Config config = new ConfigBuilder(base.getConfiguration())
        .withUserAgent(settings.userAgent()).build();
    HttpClient shared = base.getHttpClient();
    // fabric8's derived builders are full builders (StandardHttpClientBuilder.copy); built, they reuse the pool
    HttpClient.Factory overShared = () -> (HttpClient.Builder) shared.newBuilder();
    KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config)
        .withHttpClientFactory(overShared)
        .withKubernetesSerialization(ClientSerialization.shared())
        .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor(RateLimitInterceptor.NAME,
            limiter.<Interceptor>map(RateLimitInterceptor::new).orElse(UNLIMITED)));
    return builder.build();
  }
}
