package io.berth.component;

import java.security.cert.X509Certificate;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Who this daemon process is, for a component that talks to its other replicas: its leader-election identity,
 * the ports its endpoints bound, the certificate its secure endpoint serves, and its Lease's
 * {@link LeaseAnnotations} (empty with leader election off). Immutable; the annotations are thread-safe.
 *
 * @param identity the leader-election identity ({@code hostname_<uuid>})
 * @param plainPort the bound {@code --port}, if plain HTTP is served
 * @param securePort the bound {@code --secure-port}, if served
 * @param servingCertificate the secure endpoint's leaf certificate, if served
 * @param lease what this instance publishes on and reads from its Lease, with leader election on
 */
public record DaemonInstance(String identity, OptionalInt plainPort, OptionalInt securePort,
    Optional<X509Certificate> servingCertificate, Optional<LeaseAnnotations> lease) {

  public DaemonInstance {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(plainPort, "plainPort");
    Objects.requireNonNull(securePort, "securePort");
    Objects.requireNonNull(servingCertificate, "servingCertificate");
    Objects.requireNonNull(lease, "lease");
  }

  /** An instance that serves nothing and elects no leader (workloads built by hand in tests). */
  public static DaemonInstance standalone() {
    return new DaemonInstance("standalone", OptionalInt.empty(), OptionalInt.empty(), Optional.empty(),
        Optional.empty());
  }
}
