package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leases work with fabric8's LeaderElector: one leader at a time, and release on cancel hands over. */
class LeaseIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static CompletableFuture<?> elect(KubernetesClient client, String identity, AtomicReference<String> leader) {
    return client.leaderElector().withConfig(new LeaderElectionConfigBuilder().withName("berth-test")
        .withLock(new LeaseLock("kube-system", "berth-test", identity))
        .withLeaseDuration(Duration.ofSeconds(3)).withRenewDeadline(Duration.ofSeconds(2))
        .withRetryPeriod(Duration.ofMillis(200)).withReleaseOnCancel(true)
        .withLeaderCallbacks(new LeaderCallbacks(() -> leader.set(identity), () -> leader.compareAndSet(identity, null),
            id -> { }))
        .build()).build().start();
  }

  @Test
  void oneLeaderAtATimeAndReleaseOnCancelHandsOver() {
    AtomicReference<String> leaderA = new AtomicReference<>();
    AtomicReference<String> leaderB = new AtomicReference<>();
    try (KubernetesClient a = CLUSTER.cluster().newClient(); KubernetesClient b = CLUSTER.cluster().newClient()) {
      CompletableFuture<?> electionA = elect(a, "instance-a", leaderA);
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> "instance-a".equals(leaderA.get()));
      CompletableFuture<?> electionB = elect(b, "instance-b", leaderB);
      Awaitility.await().pollDelay(1, TimeUnit.SECONDS).atMost(3, TimeUnit.SECONDS)
          .untilAsserted(() -> assertThat(leaderB.get()).isNull());
      Lease lease = a.leases().inNamespace("kube-system").withName("berth-test").get();
      assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("instance-a");
      electionA.cancel(true);
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> "instance-b".equals(leaderB.get()));
      assertThat(b.leases().inNamespace("kube-system").withName("berth-test").get().getSpec().getHolderIdentity())
          .isEqualTo("instance-b");
      electionB.cancel(true);
    }
  }
}
