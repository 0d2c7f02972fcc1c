package io.berth.component;

import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * What a {@link DaemonWorkload} is built from: the settings, the rate-limited API client, the one shared informer
 * factory (register informers on it while building; the daemon starts them), the registry {@code /metrics}
 * serves, and the route table of the daemon's endpoints (register extra GET paths such as {@code /debug/...} on
 * it; both the plain and the secure endpoint serve them), and the client events are written with (its own token
 * bucket, so that events never hold up the work's requests; the main client where none was given). Immutable; the
 * parts are thread-safe and owned by the daemon (do not close or shut them down).
 *
 * @param settings the daemon's validated settings
 * @param client the API client
 * @param informers the shared informer factory
 * @param metrics the metrics registry
 * @param routes the paths the daemon's endpoints serve
 * @param eventsClient the client to record events with
 * @param instance this process: identity, bound ports, serving certificate, Lease annotations
 */
public record DaemonContext(DaemonSettings settings, KubernetesClient client, SharedInformerFactory informers,
    MeterRegistry metrics, EndpointRoutes routes, KubernetesClient eventsClient, DaemonInstance instance) {

  public DaemonContext {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(informers, "informers");
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(routes, "routes");
    Objects.requireNonNull(eventsClient, "eventsClient");
    Objects.requireNonNull(instance, "instance");
  }

  /**
   * A client for one part of the work ({@code part}, such as {@code replicaset-controller}): over {@link #client()}'s
   * connection, with a token bucket of its own of the daemon's {@code --kube-api-qps}/{@code --kube-api-burst} and
   * the User-Agent {@code <daemon>/<part>}, as kube-controller-manager gives each controller a clientset of its own.
   * Owned by the daemon like {@link #client()}: never close it (see {@link KubeClients#derive}).
   */
  public KubernetesClient clientFor(String part) {
    ClientSettings base = settings.client();
    return KubeClients.derive(client, new ClientSettings(base.kubeconfig(), base.qps(), base.burst(),
        base.userAgent() + "/" + part));
  }

  /** A context of a {@link DaemonInstance#standalone()} instance whose events go through the main client. */
  public DaemonContext(DaemonSettings settings, KubernetesClient client, SharedInformerFactory informers,
      MeterRegistry metrics, EndpointRoutes routes) {
    this(settings, client, informers, metrics, routes, client, DaemonInstance.standalone());
  }

  /** A context whose routes are served by no endpoint (tests building a workload by hand). */
  public DaemonContext(DaemonSettings settings, KubernetesClient client, SharedInformerFactory informers,
      MeterRegistry metrics) {
    this(settings, client, informers, metrics, new EndpointRoutes(), client, DaemonInstance.standalone());
  }
}
