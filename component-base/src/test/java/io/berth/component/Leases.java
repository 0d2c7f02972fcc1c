package io.berth.component;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;

/** Reading and stealing leader-election Leases through the API, for tests. Stateless. */
final class Leases {

  private Leases() {
  }

  static Optional<String> holder(KubernetesClient client, String namespace, String name) {
    Lease lease = client.leases().inNamespace(namespace).withName(name).get();
    if (lease == null || lease.getSpec() == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(lease.getSpec().getHolderIdentity()).filter(h -> !h.isEmpty());
  }

  /** Creates the Lease held by {@code holder}, freshly renewed for an hour. */
  static void createHeld(KubernetesClient client, String namespace, String name, String holder) {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withHolderIdentity(holder).withLeaseDurationSeconds(3600).withAcquireTime(now)
        .withRenewTime(now).withLeaseTransitions(0).endSpec().build()).create();
  }

  /** Makes {@code intruder} the holder, freshly renewed for an hour, as another instance would. */
  static void steal(KubernetesClient client, String namespace, String name, String intruder) {
    // The holder renews concurrently; retry on 409 Conflict as any writer of a Lease must.
    for (int attempt = 1; ; attempt++) {
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      try {
        client.leases().inNamespace(namespace).withName(name).edit(lease -> new LeaseBuilder(lease).editSpec()
            .withHolderIdentity(intruder).withLeaseDurationSeconds(3600).withAcquireTime(now).withRenewTime(now)
            .endSpec().build());
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 20) {
          throw e;
        }
      }
    }
  }
}
