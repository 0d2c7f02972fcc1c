package io.berth.component;

import io.berth.informer.ClientSerialization;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
 */
public final class KubeClients {

  private KubeClients() {
  }

  /** A new client for {@code config}, rate limited as {@code settings} says. */
  public static KubernetesClient create(Config config, ClientSettings settings) {
    Optional<TokenBucketRateLimiter> limiter = settings.rateLimited()
        ? Optional.of(new TokenBucketRateLimiter(settings.effectiveQps(), settings.effectiveBurst(),
            TokenBucketRateLimiter.Ticker.SYSTEM))
        : Optional.empty();
    config.setUserAgent(settings.userAgent());
    return create(config, limiter);
  }

  static KubernetesClient create(Config config, Optional<TokenBucketRateLimiter> limiter) {
    KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config)
        .withHttpClientFactory(KubeHttpClientFactory.forConfig(config))
        .withKubernetesSerialization(ClientSerialization.shared());
    limiter.ifPresent(l -> builder.withHttpClientBuilderConsumer(
        http -> http.addOrReplaceInterceptor(RateLimitInterceptor.NAME, new RateLimitInterceptor(l))));
    return builder.build();
  }
}
