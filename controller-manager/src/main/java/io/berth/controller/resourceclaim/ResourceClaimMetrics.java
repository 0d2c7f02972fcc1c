package io.berth.controller.resourceclaim;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * The controller's metric, under upstream's name: {@code resourceclaim_controller_creates_total{status="success"|
 * "failure", admin_access="true"|"false"}}, the ResourceClaim creations it attempted, by outcome and by whether the
 * claim asks for admin access. All four series exist (at zero) from construction. Thread-safe (Micrometer counters).
 */
final class ResourceClaimMetrics {

  /** Micrometer name of {@code resourceclaim_controller_creates_total}. */
  static final String CREATES = "resourceclaim.controller.creates";

  private final Counter[] counters = new Counter[4];

  ResourceClaimMetrics(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    for (int i = 0; i < counters.length; i++) {
      counters[i] = Counter.builder(CREATES)
          .description("Number of ResourceClaims creation requests, categorized by creation status and admin access")
          .tag("status", (i & 1) == 0 ? "success" : "failure").tag("admin_access", (i & 2) == 0 ? "false" : "true")
          .register(registry);
    }
  }

  void created(boolean success, boolean adminAccess) {
    counters[(success ? 0 : 1) | (adminAccess ? 2 : 0)].increment();
  }
}
