package io.berth.component;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Lease lock of fabric8's {@code LeaderElector}, written the way client-go's {@code LeaseLock} writes it.
 *
 * <p>Why not fabric8's own {@code LeaseLock}: in 8.0.0 its {@code update} sends a JSON merge patch of the new
 * record, and a released record (no holder) serialises without {@code holderIdentity}, so the merge patch leaves the
 * old holder in place: "release on cancel" never frees the Lease and a standby waits out the whole lease duration.
 * client-go updates with a PUT guarded by the resourceVersion last read (a concurrent writer gets 409 Conflict, the
 * attempt fails and is retried), and writes an empty holder on release. This lock does the same.
 *
 * <p>Also tolerant of Leases written by others: a missing {@code leaseDurationSeconds} reads as 0 and a missing
 * {@code renewTime} as the epoch (an expired Lease) instead of failing.
 *
 * <p>It also remembers when this identity last wrote the Lease as its holder ({@link #lastRenewNanos()}), which
 * {@link LeaderElection} uses to step down on time even when a renewal request hangs.
 *
 * <p>Each write carries the {@link LeaseAnnotations} this instance publishes while it names this instance as
 * holder, and none of them when it names another or none (release); each read and write is remembered there.
 *
 * <p>Thread-safe: {@code lastRead} is guarded by {@code this}; the elector calls get then update under its own lock.
 * {@code lastRenewNanos} is volatile, written here and read by the election's watchdog.
 */
final class LeaseResourceLock implements Lock {

  private static final ZonedDateTime EPOCH = Instant.EPOCH.atZone(ZoneOffset.UTC);

  private final String namespace;
  private final String name;
  private final String identity;
  private final LeaseAnnotations annotations;
  // guarded by this; the Lease as last read or written, whose resourceVersion guards the next update
  private Lease lastRead;
  // System.nanoTime() of the last successful write naming this identity as holder; Long.MIN_VALUE before any
  private volatile long lastRenewNanos = Long.MIN_VALUE;

  LeaseResourceLock(String namespace, String name, String identity) {
    this(namespace, name, identity, new LeaseAnnotations());
  }

  LeaseResourceLock(String namespace, String name, String identity, LeaseAnnotations annotations) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.name = Objects.requireNonNull(name, "name");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.annotations = Objects.requireNonNull(annotations, "annotations");
  }

  @Override
  public synchronized LeaderElectionRecord get(KubernetesClient client) {
    lastRead = client.leases().inNamespace(namespace).withName(name).get();
    annotations.observe(lastRead);
    return lastRead == null ? null : toRecord(lastRead);
  }

  @Override
  public synchronized void create(KubernetesClient client, LeaderElectionRecord record) {
    Lease lease = new LeaseBuilder()
        .withMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
            .withAnnotations(annotationsFor(null, record)).build())
        .withSpec(toSpec(record))
        .build();
    lastRead = client.leases().inNamespace(namespace).resource(lease).create();
    annotations.observe(lastRead);
    renewed(record);
  }

  @Override
  public synchronized void update(KubernetesClient client, LeaderElectionRecord record) {
    if (lastRead == null) {
      throw new IllegalStateException("the Lease must be read or created before it is updated");
    }
    Lease lease = new LeaseBuilder(lastRead).withSpec(toSpec(record)).editMetadata()
        .withAnnotations(annotationsFor(lastRead.getMetadata().getAnnotations(), record)).endMetadata().build();
    lastRead = client.leases().inNamespace(namespace).resource(lease).update();
    annotations.observe(lastRead);
    renewed(record);
  }

  /** The annotations a write of {@code record} leaves: {@link LeaseAnnotations}' while we hold; null for none. */
  private Map<String, String> annotationsFor(Map<String, String> current, LeaderElectionRecord record) {
    Map<String, String> out = annotations.annotationsForWrite(current,
        identity.equals(record.getHolderIdentity()));
    return out.isEmpty() ? null : out;
  }

  private void renewed(LeaderElectionRecord written) {
    if (identity.equals(written.getHolderIdentity())) {
      lastRenewNanos = System.nanoTime();
    }
  }

  /** When this identity last wrote the Lease as holder ({@link System#nanoTime()}); empty if never. */
  OptionalLong lastRenewNanos() {
    long last = lastRenewNanos;
    return last == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(last);
  }

  @Override
  public String identity() {
    return identity;
  }

  @Override
  public String describe() {
    return "Lease " + namespace + "/" + name + " (" + identity + ")";
  }

  private static LeaseSpec toSpec(LeaderElectionRecord record) {
    return new LeaseSpecBuilder()
        .withHolderIdentity(Optional.ofNullable(record.getHolderIdentity()).orElse(""))
        .withLeaseDurationSeconds((int) record.getLeaseDuration().toSeconds())
        .withAcquireTime(record.getAcquireTime())
        .withRenewTime(record.getRenewTime())
        .withLeaseTransitions(record.getLeaderTransitions())
        .build();
  }

  private static LeaderElectionRecord toRecord(Lease lease) {
    LeaseSpec spec = Optional.ofNullable(lease.getSpec()).orElseGet(LeaseSpec::new);
    return new LeaderElectionRecord(
        spec.getHolderIdentity(),
        Duration.ofSeconds(Optional.ofNullable(spec.getLeaseDurationSeconds()).orElse(0)),
        spec.getAcquireTime(),
        Optional.ofNullable(spec.getRenewTime()).orElse(EPOCH),
        Optional.ofNullable(spec.getLeaseTransitions()).orElse(0));
  }
}
