package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;

/**
 * The apps/v1 defaults a real API server fills into a Deployment when fields are missing (upstream
 * apps/v1 SetDefaults_Deployment): replicas 1; strategy RollingUpdate; for RollingUpdate, maxUnavailable and
 * maxSurge 25%; revisionHistoryLimit 10; progressDeadlineSeconds 600. Pod template defaults are the API
 * server's business and are not touched.
 *
 * <p>Needed because tests may run against a plain mock server that stores objects as sent. Stateless and
 * thread-safe; returns a copy and never mutates its argument.
 */
public final class DeploymentDefaults {

  public static final int DEFAULT_REPLICAS = 1;
  public static final String DEFAULT_MAX_UNAVAILABLE = "25%";
  public static final String DEFAULT_MAX_SURGE = "25%";
  public static final int DEFAULT_REVISION_HISTORY_LIMIT = HistoryCleanup.DEFAULT_REVISION_HISTORY_LIMIT;
  public static final int DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

  private DeploymentDefaults() {
  }

  /** A copy of {@code d} with every missing defaulted field filled; present fields are kept as they are. */
  public static Deployment withDefaults(Deployment d) {
    Deployment copy = new DeploymentBuilder(d).build();
    DeploymentSpec spec = copy.getSpec();
    if (spec == null) {
      spec = new DeploymentSpec();
      copy.setSpec(spec);
    }
    if (spec.getReplicas() == null) {
      spec.setReplicas(DEFAULT_REPLICAS);
    }
    DeploymentStrategy strategy = spec.getStrategy();
    if (strategy == null) {
      strategy = new DeploymentStrategy();
      spec.setStrategy(strategy);
    }
    if (strategy.getType() == null || strategy.getType().isEmpty()) {
      strategy.setType(RollingUpdateMath.STRATEGY_ROLLING_UPDATE);
    }
    if (RollingUpdateMath.STRATEGY_ROLLING_UPDATE.equals(strategy.getType())) {
      RollingUpdateDeployment rollingUpdate = strategy.getRollingUpdate();
      if (rollingUpdate == null) {
        rollingUpdate = new RollingUpdateDeployment();
        strategy.setRollingUpdate(rollingUpdate);
      }
      if (rollingUpdate.getMaxUnavailable() == null) {
        rollingUpdate.setMaxUnavailable(new IntOrString(DEFAULT_MAX_UNAVAILABLE));
      }
      if (rollingUpdate.getMaxSurge() == null) {
        rollingUpdate.setMaxSurge(new IntOrString(DEFAULT_MAX_SURGE));
      }
    }
    if (spec.getRevisionHistoryLimit() == null) {
      spec.setRevisionHistoryLimit(DEFAULT_REVISION_HISTORY_LIMIT);
    }
    if (spec.getProgressDeadlineSeconds() == null) {
      spec.setProgressDeadlineSeconds(DEFAULT_PROGRESS_DEADLINE_SECONDS);
    }
    return copy;
  }
}
