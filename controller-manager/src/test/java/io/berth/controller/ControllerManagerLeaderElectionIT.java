package io.berth.controller;

import io.berth.component.RecordingExiter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two controller managers in one JVM electing a leader through a Lease of the embedded API server: only the
 * leader runs its controllers; a leader whose Lease is taken stops them and exits 1; a leader shut down releases
 * the Lease and the standby takes over without waiting out the lease duration.
 */
class ControllerManagerLeaderElectionIT {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String NAMESPACE = "kube-system";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  /** One instance and what its (fake) replicaset controller went through. */
  private record Instance(ControllerManager manager, FakeController.Probe probe, RecordingExiter exiter) {
  }

  private static Instance instance(String lease) {
    FakeController.Probe probe = new FakeController.Probe();
    ControllerRegistry registry = new ControllerRegistry()
        .register("replicaset", FakeController.factory("replicaset", probe));
    RecordingExiter exiter = new RecordingExiter();
    // A lease longer than the test's waits: a standby can only take over through a release.
    ControllerManager manager = Managers.manager(registry, exiter, "--kubeconfig",
        CLUSTER.cluster().kubeconfig().toString(), "--port=0", "--leader-elect=true",
        "--leader-elect-resource-name=" + lease, "--leader-elect-lease-duration=60s",
        "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=250ms");
    return new Instance(manager, probe, exiter);
  }

  private static Optional<String> holder(String lease) {
    Lease l = CLUSTER.client().leases().inNamespace(NAMESPACE).withName(lease).get();
    return l == null ? Optional.empty()
        : Optional.ofNullable(l.getSpec().getHolderIdentity()).filter(h -> !h.isEmpty());
  }

  private static void steal(String lease, String intruder) {
    for (int attempt = 1; ; attempt++) {
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      try {
        CLUSTER.client().leases().inNamespace(NAMESPACE).withName(lease).edit(l -> new LeaseBuilder(l).editSpec()
            .withHolderIdentity(intruder).withAcquireTime(now).withRenewTime(now).endSpec().build());
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 20) { // the leader renews concurrently
          throw e;
        }
      }
    }
  }

  /** Starts both, waits until one leads and the other has seen it; returns {leader, standby}. */
  private static Instance[] electOne(Instance a, Instance b, String lease) {
    a.manager().start();
    b.manager().start();
    await().atMost(WAIT).until(() -> a.manager().isLeading() || b.manager().isLeading());
    Instance leader = a.manager().isLeading() ? a : b;
    Instance standby = leader == a ? b : a;
    await().atMost(WAIT).until(() -> standby.manager().observedLeader()
        .equals(Optional.of(leader.manager().identity())));
    await().atMost(WAIT).until(() -> leader.manager().isReady() && leader.probe().startedWorkers == 5);
    assertThat(holder(lease)).hasValue(leader.manager().identity());
    return new Instance[] {leader, standby};
  }

  @Test
  void onlyTheLeaderRunsControllersAndLosingTheLeaseStopsThemAndExitsOne() throws Exception {
    Instance a = instance("cm-stolen");
    Instance b = instance("cm-stolen");
    try {
      Instance[] elected = electOne(a, b, "cm-stolen");
      Instance leader = elected[0];
      Instance standby = elected[1];
      assertThat(standby.probe().startedWorkers).isEqualTo(-1);
      assertThat(standby.manager().isReady()).isFalse();
      assertThat(Managers.get(standby.manager().port(), "/readyz").body()).contains("not leading");
      assertThat(Managers.get(leader.manager().port(), "/metrics").body())
          .contains("leader_election_master_status{name=\"cm-stolen\"} 1.0");
      assertThat(Managers.get(standby.manager().port(), "/metrics").body())
          .contains("leader_election_master_status{name=\"cm-stolen\"} 0.0");

      steal("cm-stolen", "intruder_1");
      assertThat(leader.exiter().awaitStatuses()).containsExactly(1);
      assertThat(leader.probe().shutDowns).containsExactly(Duration.ZERO);
      assertThat(leader.manager().isReady()).isFalse();
      // The intruder holds a fresh 60 s Lease: the standby must not start.
      await().atMost(WAIT).until(() -> standby.manager().observedLeader().equals(Optional.of("intruder_1")));
      assertThat(standby.probe().startedWorkers).isEqualTo(-1);
      assertThat(standby.exiter().statuses()).isEmpty();
    } finally {
      a.manager().shutdown();
      b.manager().shutdown();
    }
  }

  @Test
  void shuttingDownTheLeaderReleasesTheLeaseAndTheStandbyTakesOver() throws Exception {
    Instance a = instance("cm-handover");
    Instance b = instance("cm-handover");
    try {
      Instance[] elected = electOne(a, b, "cm-handover");
      Instance leader = elected[0];
      Instance standby = elected[1];

      leader.manager().shutdown();
      assertThat(leader.exiter().statuses()).containsExactly(0);
      assertThat(leader.probe().shutDowns).containsExactly(Duration.ofSeconds(5));
      // Well within the 60 s lease duration: only a release lets the standby in this soon.
      await().atMost(Duration.ofSeconds(15)).until(() -> standby.manager().isLeading());
      await().atMost(WAIT).until(() -> standby.probe().startedWorkers == 5 && standby.manager().isReady());
      assertThat(holder("cm-handover")).hasValue(standby.manager().identity());
      assertThat(standby.exiter().statuses()).isEmpty();
    } finally {
      a.manager().shutdown();
      b.manager().shutdown();
    }
  }
}
