package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link LeaderElection} over fabric8's LeaderElector against the embedded API server's Leases. */
class LeaderElectionIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String NAMESPACE = "kube-system";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  /** Records callbacks in order. Thread-safe: the list is concurrent. */
  private static final class Recorder implements LeadershipListener {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void startedLeading() {
      calls.add("started");
    }

    @Override
    public void stoppedLeading() {
      calls.add("stopped");
    }
  }

  private static LeaderElectionSettings settings(String lease) {
    return new LeaderElectionSettings(true, Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(250),
        NAMESPACE, lease);
  }

  private static double gauge(SimpleMeterRegistry registry, String lease) {
    return registry.get("leader.election.master.status").tag("name", lease).gauge().value();
  }

  @Test
  void aLoneCandidateLeadsPublishesTheGaugeAndReleasesTheLeaseOnStop() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Recorder recorder = new Recorder();
    LeaderElection election = new LeaderElection(CLUSTER.client(), settings("lone"), "me_1", registry, recorder);
    assertThat(gauge(registry, "lone")).isZero();
    election.start();
    await().atMost(WAIT).until(election::isLeading);
    assertThat(recorder.calls).containsExactly("started");
    assertThat(Leases.holder(CLUSTER.client(), NAMESPACE, "lone")).hasValue("me_1");
    assertThat(gauge(registry, "lone")).isEqualTo(1.0);

    election.stop();
    assertThat(recorder.calls).containsExactly("started", "stopped");
    assertThat(election.isLeading()).isFalse();
    assertThat(gauge(registry, "lone")).isZero();
    assertThat(Leases.holder(CLUSTER.client(), NAMESPACE, "lone")).isEmpty();
    election.stop(); // idempotent
    assertThat(recorder.calls).containsExactly("started", "stopped");
  }

  @Test
  void ofTwoCandidatesOneLeadsAndTheOtherTakesOverWhenItReleases() {
    Recorder first = new Recorder();
    Recorder second = new Recorder();
    LeaderElection a = new LeaderElection(CLUSTER.client(), settings("pair"), "a_1", new SimpleMeterRegistry(),
        first);
    LeaderElection b = new LeaderElection(CLUSTER.client(), settings("pair"), "b_1", new SimpleMeterRegistry(),
        second);
    try {
      a.start();
      await().atMost(WAIT).until(a::isLeading);
      b.start();
      // Once b has seen a holding a fresh Lease it cannot acquire it before the lease duration passes.
      await().atMost(WAIT).until(() -> b.observedLeader().equals(Optional.of("a_1")));
      assertThat(b.isLeading()).isFalse();
      assertThat(second.calls).isEmpty();

      a.stop();
      await().atMost(WAIT).until(b::isLeading);
      assertThat(Leases.holder(CLUSTER.client(), NAMESPACE, "pair")).hasValue("b_1");
      assertThat(first.calls).containsExactly("started", "stopped");
      assertThat(second.calls).containsExactly("started");
    } finally {
      a.stop();
      b.stop();
    }
  }

  @Test
  void theHolderWritesItsAnnotationsWithEachRenewalTheStandbyReadsThemAndReleaseRemovesThem() {
    LeaseAnnotations leaderNotes = new LeaseAnnotations();
    LeaseAnnotations standbyNotes = new LeaseAnnotations();
    leaderNotes.publish("example.berth.io/address", "leader:1");
    standbyNotes.publish("example.berth.io/address", "standby:2");
    LeaderElection a = new LeaderElection(CLUSTER.client(), settings("notes"), "a_1", new SimpleMeterRegistry(),
        new Recorder(), leaderNotes);
    LeaderElection b = new LeaderElection(CLUSTER.client(), settings("notes"), "b_1", new SimpleMeterRegistry(),
        new Recorder(), standbyNotes);
    try {
      a.start();
      await().atMost(WAIT).until(a::isLeading);
      b.start();
      await().atMost(WAIT).until(() -> standbyNotes.observed().map(LeaseAnnotations.Observed::holderIdentity)
          .equals(Optional.of("a_1")));
      assertThat(standbyNotes.observed().orElseThrow().annotations())
          .containsEntry("example.berth.io/address", "leader:1");
      assertThat(CLUSTER.client().leases().inNamespace(NAMESPACE).withName("notes").get().getMetadata()
          .getAnnotations()).containsEntry("example.berth.io/address", "leader:1");
      // a value published later goes out with the next renewal
      leaderNotes.publish("example.berth.io/address", "leader:3");
      await().atMost(WAIT).until(() -> "leader:3".equals(standbyNotes.observed().orElseThrow().annotations()
          .get("example.berth.io/address")));

      a.stop();
      await().atMost(WAIT).until(b::isLeading);
      // the release took a's annotation away; b's acquisition wrote its own
      assertThat(CLUSTER.client().leases().inNamespace(NAMESPACE).withName("notes").get().getMetadata()
          .getAnnotations()).containsEntry("example.berth.io/address", "standby:2");
    } finally {
      a.stop();
      b.stop();
    }
    assertThat(CLUSTER.client().leases().inNamespace(NAMESPACE).withName("notes").get().getMetadata()
        .getAnnotations()).as("released: no holder's annotation is left")
        .satisfiesAnyOf(m -> assertThat(m).isNull(), m -> assertThat(m).doesNotContainKey(
            "example.berth.io/address"));
  }

  @Test
  void aStolenLeaseStopsTheLeaderOnce() {
    Recorder recorder = new Recorder();
    LeaderElection election = new LeaderElection(CLUSTER.client(), settings("stolen"), "victim_1",
        new SimpleMeterRegistry(), recorder);
    try {
      election.start();
      await().atMost(WAIT).until(election::isLeading);
      Leases.steal(CLUSTER.client(), NAMESPACE, "stolen", "intruder_1");
      await().atMost(WAIT).until(() -> recorder.calls.contains("stopped"));
      assertThat(election.isLeading()).isFalse();
      assertThat(election.observedLeader()).hasValue("intruder_1");
      election.stop();
      assertThat(recorder.calls).containsExactly("started", "stopped");
      // Stopping a non-leader does not touch the intruder's Lease.
      assertThat(Leases.holder(CLUSTER.client(), NAMESPACE, "stolen")).hasValue("intruder_1");
    } finally {
      election.stop();
    }
  }

  @Test
  void aLeaderWhoseRenewalHangsStepsDownAtTheRenewDeadline() throws Exception {
    Recorder recorder = new Recorder();
    KubernetesClient client = CLUSTER.cluster().newClient(); // 30 s request timeout, no retries
    LeaderElection election = new LeaderElection(client, settings("hung"), "slow_1", new SimpleMeterRegistry(),
        recorder);
    try {
      election.start();
      await().atMost(WAIT).until(election::isLeading);
      CLUSTER.cluster().faults().addLatency("update", "leases", Duration.ofSeconds(60));
      // fabric8 alone would wait for the hung update (30 s timeout) before checking the 2 s deadline; the watchdog
      // steps down long before that.
      await().atMost(Duration.ofSeconds(20)).until(() -> recorder.calls.contains("stopped"));
      assertThat(election.isLeading()).isFalse();
    } finally {
      CLUSTER.cluster().faults().clear();
      client.close(); // fails the hung request, so that stop() does not wait for it
      election.stop();
    }
    assertThat(recorder.calls).containsExactly("started", "stopped");
  }

  @Test
  void identityIsHostnameUnderscoreUuid() {
    String identity = LeaderElection.newIdentity();
    assertThat(identity).matches(".+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    assertThat(LeaderElection.newIdentity()).isNotEqualTo(identity);
  }
}
