package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.util.Objects;

/**
 * The outcome of {@link DeploymentProgress#syncRolloutStatus}: the status the Deployment should have, whether
 * it differs from the current one (write it with updateStatus), and, when it does not, whether to come back
 * for a progress-deadline check. Immutable value.
 *
 * @param status      the computed status
 * @param needsUpdate the status differs from the Deployment's current status
 * @param recheck     {@link ProgressRecheck#NONE} whenever {@code needsUpdate}, as upstream only requeues
 *                    when nothing was written (the write itself triggers the next sync)
 */
public record RolloutStatus(DeploymentStatus status, boolean needsUpdate, ProgressRecheck recheck) {

  public RolloutStatus {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(recheck, "recheck");
  }
}
