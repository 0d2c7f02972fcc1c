package io.berth.component;

import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * What a {@link DaemonWorkload} is built from: the settings, the rate-limited API client, the one shared informer
 * factory (register informers on it while building; the daemon starts them) and the registry {@code /metrics}
 * serves. Immutable; the parts are thread-safe and owned by the daemon (do not close or shut them down).
 *
 * @param settings the daemon's validated settings
 * @param client the API client
 * @param informers the shared informer factory
 * @param metrics the metrics registry
 */
public record DaemonContext(DaemonSettings settings, KubernetesClient client, SharedInformerFactory informers,
    MeterRegistry metrics) {

  public DaemonContext {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(informers, "informers");
    Objects.requireNonNull(metrics, "metrics");
  }
}
